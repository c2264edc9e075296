--- The status cache: the last `todoLs/status` payload of each client and workspace folder, the
--- client a command goes to, and the status as text (status line, `:TodoLs status`).
local compat = require('todo_ls.compat')
local protocol = require('todo_ls.protocol')

local value = protocol.value

local M = {}

--- The server sends one status per workspace folder, each naming its `workspace`.
---@type table<integer, table<string, table>> client id -> workspace folder URI -> last payload
local statuses = {}
---@type table<integer, table<string, string>> client id -> workspace URI -> its subscribed files
local subscribed = {}
---@type integer? the client that sent the most recent status
local latest
---@type table<integer, string> client id -> the workspace of its most recent status
local latest_workspace = {}
---@type table<integer, integer> buffer -> client id, for inlay hints waiting for the first status
local hints_pending = {}

--- The buffer number `bufnr` means: nil and 0 are the current buffer.
---@param bufnr? integer
---@return integer
function M.resolve_buf(bufnr)
  if bufnr == nil or bufnr == 0 then
    return vim.api.nvim_get_current_buf()
  end
  return bufnr
end

--- Asks the server for the diagnostics of `bufnr` again. Neovim pulls only after an edit of the
--- current buffer, so an item changed from elsewhere (the panel) would keep its old diagnostic;
--- passing the buffer flushes its pending didChange first, so the answer is for the new text.
---@param client vim.lsp.Client
---@param bufnr integer
function M.pull_diagnostics(client, bufnr)
  if client.server_capabilities.diagnosticProvider and vim.api.nvim_buf_is_loaded(bufnr) then
    compat.request(client, 'textDocument/diagnostic', { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }, nil, bufnr)
  end
end

--- Neovim pulls diagnostics only on open and on edits, and 0.11 does not handle
--- `workspace/diagnostic/refresh`: when the subscribed files change (a command, settings, or the
--- server finishing its start-up after the first pull), pull again for every buffer.
local function repull_diagnostics(client)
  if not client.server_capabilities.diagnosticProvider then
    return -- a push client gets fresh `publishDiagnostics` from the server
  end
  for bufnr in pairs(client.attached_buffers) do
    M.pull_diagnostics(client, bufnr)
  end
end

--- Enables inlay hints in `bufnr` once `client_id` has sent its first status. Hints asked for
--- before the server has read its settings come back empty, and Neovim 0.11 may then keep
--- showing that empty answer after the server's refresh (a redraw between the refresh and its
--- response marks the lines done). The first status means the server is ready.
---@param bufnr integer
---@param client_id integer
function M.enable_hints_when_ready(bufnr, client_id)
  if statuses[client_id] then
    vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
  else
    hints_pending[bufnr] = client_id
  end
end

--- Handler of `todoLs/status` (and of the client's exit, with `payload == nil`).
---@param client_id integer
---@param payload todo_ls.StatusPayload?
function M.on_status(client_id, payload)
  if not payload then
    statuses[client_id], subscribed[client_id], latest_workspace[client_id] = nil, nil, nil
    if latest == client_id then
      latest = next(statuses)
    end
  else
    local workspace = value(payload.workspace) or ''
    statuses[client_id] = statuses[client_id] or {}
    statuses[client_id][workspace] = payload
    latest, latest_workspace[client_id] = client_id, workspace
    local files = table.concat(
      vim.tbl_map(function(file)
        return file.uri
      end, payload.files or {}),
      '\n'
    )
    subscribed[client_id] = subscribed[client_id] or {}
    local client = vim.lsp.get_client_by_id(client_id)
    if client and files ~= subscribed[client_id][workspace] then
      repull_diagnostics(client)
    end
    subscribed[client_id][workspace] = files
    for bufnr, pending_client in pairs(hints_pending) do
      if pending_client == client_id then
        hints_pending[bufnr] = nil
        if vim.api.nvim_buf_is_valid(bufnr) then
          vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
        end
      end
    end
  end
  vim.cmd('redrawstatus!')
  vim.api.nvim_exec_autocmds('User', {
    pattern = 'TodoLsStatus',
    modeline = false,
    data = { client_id = client_id, status = payload },
  })
end

--- The todo-ls clients attached to a buffer.
---@param bufnr? integer
---@return vim.lsp.Client[]
function M.attached(bufnr)
  return vim.lsp.get_clients({ bufnr = M.resolve_buf(bufnr), name = protocol.CLIENT_NAME })
end

--- The client for workspace-wide commands: the one attached to the buffer, else the one that
--- reported last, else any.
---@param bufnr? integer
---@return vim.lsp.Client?
function M.client(bufnr)
  local client = M.attached(bufnr)[1]
  if client then
    return client
  end
  if latest and vim.lsp.get_client_by_id(latest) then
    return vim.lsp.get_client_by_id(latest)
  end
  return vim.lsp.get_clients({ name = protocol.CLIENT_NAME })[1]
end

--- The payload of the workspace folder holding `path` (the deepest one), else the client's
--- most recent one.
local function folder_status(client_id, path)
  local by_folder = statuses[client_id]
  if not by_folder then
    return nil
  end
  local best, best_len = nil, -1
  for workspace, payload in pairs(by_folder) do
    local root = workspace ~= '' and vim.fs.normalize(vim.uri_to_fname(workspace)) or nil
    if root and path and (path == root or path:sub(1, #root + 1) == root .. '/') and #root > best_len then
      best, best_len = payload, #root
    end
  end
  return best or by_folder[latest_workspace[client_id]]
end

--- The cached payload for the buffer's workspace folder (not a copy), else the latest one.
---@param bufnr? integer
---@return table?
function M.of_buffer(bufnr)
  bufnr = M.resolve_buf(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local path = name ~= '' and vim.fs.normalize(vim.fn.fnamemodify(name, ':p')) or nil
  local client = M.attached(bufnr)[1]
  local found = client and folder_status(client.id, path)
  if found then
    return found
  end
  return latest and folder_status(latest, path) or nil
end

--- The last `todoLs/status` payload for the buffer's workspace folder (each folder has its own),
--- else the latest one; nil before the server reported. JSON nulls are `vim.NIL`. For
--- statusline plugins.
---@param bufnr? integer
---@return table?
function M.status(bufnr)
  local status = M.of_buffer(bufnr)
  return status and vim.deepcopy(status) or nil
end

--- The status text, e.g. `📋 ███░░░░░ 8/17 open · working`; '' when there is none.
--- Use it as `%{v:lua.require'todo_ls'.statusline()}` (its `%` are not interpreted there).
---@param bufnr? integer
---@return string
function M.statusline(bufnr)
  local status = M.of_buffer(bufnr)
  return status and value(status.text) or ''
end

--- `ses_… working · 1 tool · 3/7 todos · paused: no-progress · claude-code "title"`: one
--- session entry of a status, naming its host and the progress of its own todo list.
---@param session todo_ls.SessionStatus
---@return string
function M.session_line(session)
  local parts = { ('%s %s'):format(session.id, session.state) }
  local detail, todos = value(session.detail), value(session.todos)
  if detail and detail ~= '' then
    table.insert(parts, detail)
  end
  if todos then
    table.insert(parts, ('%d/%d todos'):format(todos.open, todos.total))
  end
  if value(session.pausedReason) then
    table.insert(parts, 'paused: ' .. session.pausedReason)
  end
  if value(session.host) then
    table.insert(parts, session.host)
  end
  local title = value(session.title)
  return table.concat(parts, ' · ') .. ((title and title ~= '') and (' "' .. title .. '"') or '')
end

--- `opencode-v1 1.18.33 http://127.0.0.1:4096 connected`: the supervisor's host in one line
--- (before detection succeeds its kind is the setting's `auto`: called OpenCode).
---@param host todo_ls.HostStatus
---@return string
function M.host_line(host)
  local kind = host.kind == 'auto' and 'OpenCode' or host.kind
  local parts = { kind, value(host.version), value(host.url), host.connected and 'connected' or 'disconnected' }
  return table.concat(vim.tbl_filter(function(part)
    return part ~= nil and part ~= ''
  end, parts), ' ')
end

--- Why the supervisor cannot watch its host, when the panel should say so (|todo_ls-panel|):
--- a failed connection to a server the user named or todo-ls had found; with nothing found by
--- discovery, only while no session is listed (hook agents alone need no OpenCode).
---@param supervisor? todo_ls.SupervisorStatus
---@return string? line `OpenCode http://127.0.0.1:9 disconnected: <why>`
function M.host_problem(supervisor)
  supervisor = value(supervisor)
  local host = supervisor and supervisor.enabled == true and value(supervisor.host)
  local error = host and not host.connected and value(host.error)
  if not error then
    return nil
  end
  if value(host.url) or #(value(supervisor.sessions) or {}) == 0 then
    return M.host_line(host) .. ': ' .. error
  end
  return nil
end

--- The status of the buffer's workspace folder in lines: the folder, its files, the host and
--- one line per supervised session (`:TodoLs status`).
---@param bufnr? integer
---@return string[]
function M.describe(bufnr)
  local status = M.of_buffer(bufnr)
  if not status then
    return { 'no status from the server yet' }
  end
  local workspace = value(status.workspace)
  local lines = {
    ('%s  %s'):format(workspace and vim.fn.fnamemodify(vim.uri_to_fname(workspace), ':~') or '?', status.text),
  }
  for _, file in ipairs(status.files or {}) do
    local name = vim.fn.fnamemodify(vim.uri_to_fname(file.uri), ':t')
    table.insert(lines, file.missing and ('  %s (missing)'):format(name) or ('  %s %d/%d open'):format(name, file.open, file.total))
  end
  local supervisor = value(status.supervisor) or {}
  local host = value(supervisor.host)
  if supervisor.enabled ~= true then
    table.insert(lines, '  supervisor off')
  elseif host then
    local error = value(host.error)
    table.insert(lines, '  ' .. M.host_line(host) .. (error and (': ' .. error) or ''))
  end
  for _, session in ipairs(supervisor.sessions or {}) do
    table.insert(lines, '  ' .. M.session_line(session))
  end
  return lines
end

return M
