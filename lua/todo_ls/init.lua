--- todo-ls for Neovim: setup(), the status line, and the helpers behind `:TodoLs`.
---
--- The language server does the work; this module starts it (through `lsp/todo_ls.lua`), keeps the
--- last `todoLs/status` payload of each client and turns user commands into
--- `workspace/executeCommand` requests (docs/status-and-commands.md: one JSON-object argument each).
local M = {}

local NAME = 'todo_ls'
local has_011 = vim.fn.has('nvim-0.11') == 1

--- Task states the server knows (docs/checklists.md).
M.states = { 'open', 'inProgress', 'blocked', 'done', 'canceled' }

---@class todo_ls.Options
---@field cmd? string[] server command; nil = `todo-ls` on PATH, else `python3 -m todo_ls`
---@field settings? table `{ todoLs = { … } }`, the server settings (docs/settings.md)
---@field root_markers? string[] files or folders that mark the workspace root
---@field inlay_hints? boolean enable inlay hints (`3/7 done`) in attached buffers
---@field keymaps? table<string, string> normal-mode `lhs` -> `:TodoLs` subcommand, buffer-local
local defaults = {
  cmd = nil,
  settings = { todoLs = {} },
  root_markers = { '.git' },
  inlay_hints = false,
  keymaps = {},
}

---@type todo_ls.Options
M.options = vim.deepcopy(defaults)

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

local function notify(msg, level)
  vim.notify('todo-ls: ' .. msg, level or vim.log.levels.INFO, { title = 'todo-ls' })
end

--- JSON null arrives as vim.NIL; treat it like a missing field.
local function value(v)
  if v == vim.NIL then
    return nil
  end
  return v
end
M._value = value -- shared with health.lua

--- Client:request is a method from 0.11 on and a plain function field before.
local function request(client, method, params, handler, bufnr)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function resolve_buf(bufnr)
  if bufnr == nil or bufnr == 0 then
    return vim.api.nvim_get_current_buf()
  end
  return bufnr
end

--- The `lsp/todo_ls.lua` config table (Neovim 0.10 has no vim.lsp.config to read it for us).
local function lsp_file_config()
  local file = vim.api.nvim_get_runtime_file('lsp/' .. NAME .. '.lua', false)[1]
  return file and dofile(file) or {}
end

--- Decides the workspace folder of a markdown buffer: the nearest root marker, else the current
--- directory when the file is below it, else the file's own directory. Buffers that are not files
--- on disk (no name, `scheme://` names) get no client.
---@param bufnr integer
---@param on_dir fun(root_dir?: string)
function M.root_dir(bufnr, on_dir)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return
  end
  local root = vim.fs.root(bufnr, M.options.root_markers)
  if not root then
    local file = vim.fs.normalize(vim.fn.fnamemodify(name, ':p'))
    local cwd = vim.fs.normalize(vim.fn.getcwd())
    -- `/` or the home directory as a workspace would make every glob a walk over the disk.
    local usable = cwd ~= '/' and cwd ~= vim.fs.normalize(vim.env.HOME or '')
    root = (usable and file:sub(1, #cwd + 1) == cwd .. '/') and cwd or vim.fs.dirname(file)
  end
  on_dir(root)
end

--- Asks the server for the diagnostics of `bufnr` again. Neovim pulls only after an edit of the
--- current buffer, so an item changed from elsewhere (the panel) would keep its old diagnostic;
--- passing the buffer flushes its pending didChange first, so the answer is for the new text.
---@param client vim.lsp.Client
---@param bufnr integer
function M.pull_diagnostics(client, bufnr)
  if client.server_capabilities.diagnosticProvider and vim.api.nvim_buf_is_loaded(bufnr) then
    request(client, 'textDocument/diagnostic', { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }, nil, bufnr)
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

--- Handler of `todoLs/status` (and of the client's exit, with `payload == nil`).
---@param client_id integer
---@param payload table?
function M._on_status(client_id, payload)
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
local function attached(bufnr)
  return vim.lsp.get_clients({ bufnr = resolve_buf(bufnr), name = NAME })
end

--- The client for workspace-wide commands: the one attached to the buffer, else the one that
--- reported last, else any.
---@param bufnr? integer
---@return vim.lsp.Client?
function M.client(bufnr)
  local client = attached(bufnr)[1]
  if client then
    return client
  end
  if latest and vim.lsp.get_client_by_id(latest) then
    return vim.lsp.get_client_by_id(latest)
  end
  return vim.lsp.get_clients({ name = NAME })[1]
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

local function status_of(bufnr)
  bufnr = resolve_buf(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local path = name ~= '' and vim.fs.normalize(vim.fn.fnamemodify(name, ':p')) or nil
  local client = attached(bufnr)[1]
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
  local status = status_of(bufnr)
  return status and vim.deepcopy(status) or nil
end

--- The status text, e.g. `📋 ███░░░░░ 8/17 open · working`; '' when there is none.
--- Use it as `%{v:lua.require'todo_ls'.statusline()}` (its `%` are not interpreted there).
---@param bufnr? integer
---@return string
function M.statusline(bufnr)
  local status = status_of(bufnr)
  return status and value(status.text) or ''
end

--- `ses_… working · 1 tool · 3/7 todos · paused: no-progress · claude-code "title"`: one
--- session entry of a status, naming its host and the progress of its own todo list.
---@param session table
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

--- The status of the buffer's workspace folder in lines: the folder, its files, the host and
--- one line per supervised session (`:TodoLs status`).
---@param bufnr? integer
---@return string[]
function M.describe(bufnr)
  local status = status_of(bufnr)
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
    local version = value(host.version)
    table.insert(lines, ('  %s%s %s'):format(host.kind, version and (' ' .. version) or '', host.connected and 'connected' or 'disconnected'))
  end
  for _, session in ipairs(supervisor.sessions or {}) do
    table.insert(lines, '  ' .. M.session_line(session))
  end
  return lines
end

--- Runs a todo-ls command on the server: `arguments = { argument }`; `on_result(result)` on success.
--- A failure is shown to the user and reported to `on_error` (also when the request could not be
--- sent at all), so a caller waiting for the answer is never left waiting.
local function execute(client, command, argument, bufnr, on_result, on_error)
  local sent = request(client, 'workspace/executeCommand', {
    command = command,
    arguments = { argument },
  }, function(err, result)
    if err then
      notify(('%s failed: %s'):format(command, err.message or vim.inspect(err)), vim.log.levels.ERROR)
      if on_error then
        on_error(err)
      end
      return
    end
    on_result(result or {})
  end, bufnr)
  if not sent and on_error then
    on_error({ message = 'the server is not running' })
  end
end

M._request, M._execute = request, execute -- for the panel, fold and install modules

local function need_client(bufnr, buffer_bound)
  local client = buffer_bound and attached(bufnr)[1] or M.client(bufnr)
  if not client then
    notify(
      buffer_bound and 'not attached to this buffer (todo-ls runs in markdown files)'
        or 'no todo-ls server is running (open a markdown file)',
      vim.log.levels.ERROR
    )
  end
  return client
end
M._need_client = need_client

--- Opens the todo panel: the agent sessions and every subscribed file with its items, kept live
--- by the server's status (`:help todo_ls-panel`).
function M.panel()
  require('todo_ls.panel').open()
end

---@class todo_ls.LineOpts
---@field bufnr? integer
---@field line1? integer first line (1-based); default: the cursor line
---@field line2? integer last line (1-based); default: line1
---@field on_done? fun(applied: integer) called after the last line

--- Sets the state of the task items on lines `line1..line2` (nil state: toggle open <-> done).
--- Lines are sent one after another so each edit sees the previous one applied.
---@param state string? one of M.states, or nil to toggle
---@param opts? todo_ls.LineOpts
function M.set_state(state, opts)
  opts = opts or {}
  local bufnr = resolve_buf(opts.bufnr)
  local client = need_client(bufnr, true)
  if not client then
    return
  end
  if state and not vim.tbl_contains(M.states, state) then
    notify(('unknown state %q (one of %s)'):format(state, table.concat(M.states, ', ')), vim.log.levels.ERROR)
    return
  end
  local first = opts.line1 or vim.api.nvim_win_get_cursor(0)[1]
  local last = opts.line2 or first
  local uri = vim.uri_from_bufnr(bufnr)
  local applied, refused = 0, {}
  local function step(line)
    if line > last then
      if #refused > 0 and first == last then
        notify(refused[1], vim.log.levels.WARN)
      elseif #refused > 0 then
        notify(('changed %d of %d lines; %s'):format(applied, last - first + 1, table.concat(refused, '; ')))
      end
      if opts.on_done then
        opts.on_done(applied)
      end
      return
    end
    local command, argument = 'todoLs.toggle', { uri = uri, line = line - 1 }
    if state then
      command, argument.state = 'todoLs.setState', state
    end
    execute(client, command, argument, bufnr, function(result)
      if result.applied then
        applied = applied + 1
      else
        -- The server's reason names the line ("line 4 is not a task item").
        table.insert(refused, value(result.reason) or ('line %d was not changed'):format(line))
      end
      step(line + 1)
    end)
  end
  step(first)
end

--- The session item under the cursor when the current window shows the agent todo lists.
local function session_item_here()
  local info = vim.fn.getwininfo(vim.api.nvim_get_current_win())[1]
  if not info or info.loclist ~= 1 then
    return nil
  end
  local list = vim.fn.getloclist(0, { title = 1, items = 1 })
  if list.title ~= M.SESSION_LIST_TITLE then
    return nil
  end
  local entry = list.items[vim.api.nvim_win_get_cursor(0)[1]]
  return entry and entry.user_data
end

--- Toggles the item on the cursor line (or `opts` lines): open -> done, anything else -> open.
--- In the location list of agent todo lists (`:TodoLs list`), toggles that session item.
---@param opts? todo_ls.LineOpts
function M.toggle(opts)
  local item = session_item_here()
  if item then
    local win = vim.api.nvim_get_current_win()
    M.toggle_session(item.sessionID, item.index, item.content, function(result)
      local client = result.applied and M.client()
      if not client or not vim.api.nvim_win_is_valid(win) then
        return
      end
      -- Show the new state in place (in a location list window this is its parent's list).
      execute(client, 'todoLs.list', vim.empty_dict(), nil, function(listed)
        local _, session_items = M._list_entries(listed)
        if vim.api.nvim_win_is_valid(win) then
          vim.fn.setloclist(win, {}, 'r', { title = M.SESSION_LIST_TITLE, items = session_items })
        end
      end)
    end)
    return
  end
  M.set_state(nil, opts)
end

local function file_uri(path, bufnr)
  if path and path ~= '' then
    return vim.uri_from_fname(vim.fn.fnamemodify(path, ':p'))
  end
  return vim.uri_from_bufnr(resolve_buf(bufnr))
end

--- Subscribes (or unsubscribes) a file: `path`, else the buffer's file. Stored by the server for
--- the workspace, so it lasts across restarts.
---@param subscribe boolean
---@param path? string
---@param bufnr? integer
---@param on_done? fun() called once the server has changed the subscription
function M.subscribe(subscribe, path, bufnr, on_done)
  local client = need_client(bufnr, false)
  if not client then
    return
  end
  local uri = file_uri(path, bufnr)
  local command = subscribe and 'todoLs.subscribe' or 'todoLs.unsubscribe'
  execute(client, command, { uri = uri }, bufnr, function(result)
    local name = vim.fn.fnamemodify(vim.uri_to_fname(uri), ':~:.')
    notify(('%s %s (%d subscribed)'):format(subscribe and 'subscribed' or 'unsubscribed', name, #(result.files or {})))
    if on_done then
      on_done()
    end
  end)
end

local STATUS_MARKS = { completed = '[x]', in_progress = '[/]', cancelled = '[~]', canceled = '[~]' }

--- The entries of a `todoLs.list` result: file items for the quickfix list (each opened by its
--- own `uri`, whichever workspace folder holds it) and the items of the agent sessions' own
--- todo lists for a location list (`user_data` keeps what `toggle_session` needs).
---@param result table
---@return table[] files, table[] sessions
function M._list_entries(result)
  local files, sessions = {}, {}
  for _, item in ipairs(result.items or {}) do
    if value(item.sessionID) then
      local priority = value(item.priority)
      table.insert(sessions, {
        text = ('%s %s%s  (%s #%d)'):format(
          STATUS_MARKS[item.status] or '[ ]',
          item.content,
          priority and (' · ' .. priority) or '',
          item.sessionID,
          item.index + 1
        ),
        valid = 0,
        user_data = { sessionID = item.sessionID, index = item.index, content = item.content },
      })
    else
      local text = item.text
      if item.state ~= 'open' then
        text = ('[%s] %s'):format(item.state, text)
      end
      table.insert(files, { filename = vim.uri_to_fname(item.uri), lnum = item.line, text = text })
    end
  end
  return files, sessions
end

M.SESSION_LIST_TITLE = 'todo-ls: agent todo lists'

--- Fills the quickfix list with the open items of every workspace folder (`path:line  text`)
--- and the current window's location list with the items of the agent sessions' own todo
--- lists (`:TodoLs toggle` there flips one), and opens them.
---@param bufnr? integer
---@param on_done? fun(items: table[], session_items: table[])
function M.list(bufnr, on_done)
  local client = need_client(bufnr, false)
  if not client then
    return
  end
  local win = vim.api.nvim_get_current_win()
  execute(client, 'todoLs.list', vim.empty_dict(), bufnr, function(result)
    local items, session_items = M._list_entries(result)
    vim.fn.setqflist({}, ' ', { title = 'todo-ls: open items', items = items })
    if vim.api.nvim_win_is_valid(win) then
      vim.fn.setloclist(win, {}, ' ', { title = M.SESSION_LIST_TITLE, items = session_items })
    end
    if #items == 0 and #session_items == 0 then
      notify('no open items')
    end
    if #items > 0 then
      vim.cmd('botright copen')
    end
    if #session_items > 0 and vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_call(win, function()
        vim.cmd('lopen')
      end)
    end
    if on_done then
      on_done(items, session_items)
    end
  end)
end

--- Flips an item of a session's own todo list between completed and pending (in todo-ls's
--- store; an item of OpenCode's own list is refused with the reason), then lists again.
---@param session_id string
---@param index integer 0-based place in the session's list
---@param content? string the item's text as listed: refused if the list changed meanwhile
---@param on_done? fun(result: table)
function M.toggle_session(session_id, index, content, on_done)
  local client = need_client(nil, false)
  if not client then
    return
  end
  local argument = { sessionID = session_id, index = index, content = content }
  execute(client, 'todoLs.toggle', argument, nil, function(result)
    if result.applied then
      notify(('%q is now %s (%s)'):format(content or ('#' .. (index + 1)), value(result.state), session_id))
    else
      notify(('not changed: %s'):format(value(result.reason) or 'refused'), vim.log.levels.WARN)
    end
    if on_done then
      on_done(result)
    end
  end)
end

--- Re-reads every subscribed file.
---@param bufnr? integer
function M.refresh(bufnr)
  local client = need_client(bufnr, false)
  if not client then
    return
  end
  execute(client, 'todoLs.refresh', vim.empty_dict(), bufnr, function(result)
    notify(('re-read %d subscribed file(s)'):format(value(result.files) or 0))
  end)
end

local function describe_sessions(verb, result)
  local parts = {}
  for _, session in ipairs(result.sessions or {}) do
    table.insert(parts, ('%s (%s)'):format(session.id, session.state))
  end
  if #parts == 0 then
    local reason = value(result.reason)
    return ('no session %s'):format(verb) .. (reason and (': ' .. reason) or '')
  end
  return ('%s %s'):format(verb, table.concat(parts, ', '))
end

local function describe_nudge(result)
  local parts = {}
  if #(result.sent or {}) > 0 then
    table.insert(parts, 'nudged ' .. table.concat(result.sent, ', '))
  end
  for _, skipped in ipairs(result.skipped or {}) do
    local id = value(skipped.sessionID)
    table.insert(parts, (id and ('not nudged %s: '):format(id) or 'not nudged: ') .. tostring(value(skipped.reason)))
  end
  return #parts > 0 and table.concat(parts, '; ') or 'nothing to nudge'
end

--- Asks the supervisor to nudge, pause or resume one session (`session_id`) or every supervised
--- session of the buffer's workspace folder, and reports the answer.
---@param action 'nudge'|'pause'|'resume'
---@param session_id? string
---@param bufnr? integer
---@param on_done? fun(message: string)
function M.supervisor(action, session_id, bufnr, on_done)
  local client = need_client(bufnr, false)
  if not client then
    return
  end
  local status = status_of(bufnr)
  local workspace = status and value(status.workspace)
  local argument = session_id and { sessionID = session_id }
    or (workspace and { workspace = workspace } or vim.empty_dict())
  execute(client, 'todoLs.' .. action, argument, bufnr, function(result)
    local message = action == 'nudge' and describe_nudge(result)
      or describe_sessions(action == 'pause' and 'paused' or 'resumed', result)
    notify(message)
    if on_done then
      on_done(message)
    end
  end)
end

--- The server command in effect (for :checkhealth).
---@return string[]|fun(...)|nil
function M.server_cmd()
  if M.options.cmd then
    return M.options.cmd
  end
  local config = has_011 and vim.lsp.config[NAME] or lsp_file_config()
  return config and config.cmd
end

--- Neovim 0.10: no vim.lsp.config/enable; start the client from a FileType autocmd instead.
local function enable_010(group, overrides)
  local config = vim.tbl_deep_extend('force', lsp_file_config(), overrides, { name = NAME })
  local choose_root = config.root_dir
  local function start(bufnr)
    if vim.bo[bufnr].buftype ~= '' then
      return
    end
    choose_root(bufnr, function(root)
      local client_config = vim.deepcopy(config)
      client_config.root_dir = root
      vim.lsp.start(client_config, { bufnr = bufnr })
    end)
  end
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = config.filetypes,
    callback = function(ev)
      start(ev.buf)
    end,
  })
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(config.filetypes, vim.bo[bufnr].filetype) then
      start(bufnr)
    end
  end
end

--- Configures and enables the client; safe to call again (the last options win).
---@param opts? todo_ls.Options
function M.setup(opts)
  M.options = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  local settings = M.options.settings
  if next(settings.todoLs or {}) == nil then
    settings.todoLs = vim.empty_dict() -- an empty Lua table would go out as a JSON array
  end
  local overrides = { settings = settings, cmd = M.options.cmd }

  local group = vim.api.nvim_create_augroup('todo_ls', { clear = true })
  vim.api.nvim_create_autocmd('LspAttach', {
    group = group,
    callback = function(ev)
      local client = vim.lsp.get_client_by_id(ev.data.client_id)
      if not client or client.name ~= NAME then
        return
      end
      if M.options.inlay_hints and vim.lsp.inlay_hint then
        -- Hints asked for before the server has read its settings come back empty, and Neovim
        -- 0.11 may then keep showing that empty answer after the server's refresh (a redraw
        -- between the refresh and its response marks the lines done). The first status means
        -- the server is ready.
        if statuses[client.id] then
          vim.lsp.inlay_hint.enable(true, { bufnr = ev.buf })
        else
          hints_pending[ev.buf] = client.id
        end
      end
      for lhs, subcommand in pairs(M.options.keymaps) do
        vim.keymap.set('n', lhs, '<Cmd>TodoLs ' .. subcommand .. '<CR>', { buffer = ev.buf, desc = 'todo-ls: ' .. subcommand })
      end
    end,
  })

  if has_011 then
    vim.lsp.config(NAME, overrides)
    vim.lsp.enable(NAME)
  else
    enable_010(group, overrides)
  end
  -- Plugin managers that add this folder to 'runtimepath' late never source plugin/.
  if vim.fn.exists(':TodoLs') ~= 2 then
    vim.cmd.runtime('plugin/todo_ls.lua')
  end
end

return M
