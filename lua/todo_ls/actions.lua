--- The actions behind `:TodoLs` and the public Lua API: each finds the client, runs one server
--- command (`workspace/executeCommand`, one JSON-object argument) and reports the answer.
local compat = require('todo_ls.compat')
local protocol = require('todo_ls.protocol')
local status = require('todo_ls.status')
local texts = require('todo_ls.texts')

local command, value, notify = protocol.command, protocol.value, texts.notify

local M = {}

--- Runs a todo-ls command on the server: `arguments = { argument }`; `on_result(result)` on success.
--- A failure is shown to the user and reported to `on_error` (also when the request could not be
--- sent at all), so a caller waiting for the answer is never left waiting.
---@param client vim.lsp.Client
---@param name string one of protocol.command
---@param argument table
---@param bufnr? integer
---@param on_result fun(result: table)
---@param on_error? fun(err: table)
function M.execute(client, name, argument, bufnr, on_result, on_error)
  local sent = compat.request(client, 'workspace/executeCommand', {
    command = name,
    arguments = { argument },
  }, function(err, result)
    if err then
      notify(('%s failed: %s'):format(name, err.message or vim.inspect(err)), vim.log.levels.ERROR)
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

--- The client for a command, or nil after telling the user why there is none.
---@param bufnr? integer
---@param buffer_bound boolean the command edits the buffer, so only its own client will do
---@return vim.lsp.Client?
function M.need_client(bufnr, buffer_bound)
  local client = buffer_bound and status.attached(bufnr)[1] or status.client(bufnr)
  if not client then
    notify(
      buffer_bound and 'not attached to this buffer (todo-ls runs in markdown files)'
        or 'no todo-ls server is running (open a markdown file)',
      vim.log.levels.ERROR
    )
  end
  return client
end

--- Runs a workspace-wide command on the client for `bufnr`; without a client, says so instead.
local function run(bufnr, name, argument, on_result)
  local client = M.need_client(bufnr, false)
  if client then
    M.execute(client, name, argument, bufnr, on_result)
  end
end

---@class todo_ls.LineOpts
---@field bufnr? integer
---@field line1? integer first line (1-based); default: the cursor line
---@field line2? integer last line (1-based); default: line1
---@field on_done? fun(applied: integer) called after the last line

--- Sets the state of the task items on lines `line1..line2` (nil state: toggle open <-> done).
--- Lines are sent one after another so each edit sees the previous one applied.
---@param state string? one of protocol.states, or nil to toggle
---@param opts? todo_ls.LineOpts
function M.set_state(state, opts)
  opts = opts or {}
  local bufnr = status.resolve_buf(opts.bufnr)
  local client = M.need_client(bufnr, true)
  if not client then
    return
  end
  if state and not vim.tbl_contains(protocol.states, state) then
    notify(('unknown state %q (one of %s)'):format(state, table.concat(protocol.states, ', ')), vim.log.levels.ERROR)
    return
  end
  local first = opts.line1 or vim.api.nvim_win_get_cursor(0)[1]
  local last = opts.line2 or first
  local uri = vim.uri_from_bufnr(bufnr)
  local applied, refused = 0, {}
  local function step(line)
    if line > last then
      local message, level = texts.lines_refused(applied, last - first + 1, refused)
      if message then
        notify(message, level)
      end
      if opts.on_done then
        opts.on_done(applied)
      end
      return
    end
    local name, argument = command.toggle, { uri = uri, line = line - 1 }
    if state then
      name, argument.state = command.setState, state
    end
    M.execute(client, name, argument, bufnr, function(result)
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
  if list.title ~= texts.SESSION_LIST_TITLE then
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
      local client = result.applied and status.client()
      if not client or not vim.api.nvim_win_is_valid(win) then
        return
      end
      -- Show the new state in place (in a location list window this is its parent's list).
      M.execute(client, command.list, vim.empty_dict(), nil, function(listed)
        local _, session_items = texts.list_entries(listed)
        if vim.api.nvim_win_is_valid(win) then
          vim.fn.setloclist(win, {}, 'r', { title = texts.SESSION_LIST_TITLE, items = session_items })
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
  return vim.uri_from_bufnr(status.resolve_buf(bufnr))
end

--- Subscribes (or unsubscribes) a file: `path`, else the buffer's file. Stored by the server for
--- the workspace, so it lasts across restarts.
---@param subscribe boolean
---@param path? string
---@param bufnr? integer
---@param on_done? fun() called once the server has changed the subscription
function M.subscribe(subscribe, path, bufnr, on_done)
  local uri = file_uri(path, bufnr)
  run(bufnr, subscribe and command.subscribe or command.unsubscribe, { uri = uri }, function(result)
    notify(texts.subscription(subscribe, uri, result))
    if on_done then
      on_done()
    end
  end)
end

--- Fills the quickfix list with the open items of every workspace folder (`path:line  text`)
--- and the current window's location list with the items of the agent sessions' own todo
--- lists (`:TodoLs toggle` there flips one), and opens them.
---@param bufnr? integer
---@param on_done? fun(items: table[], session_items: table[])
function M.list(bufnr, on_done)
  local win = vim.api.nvim_get_current_win()
  run(bufnr, command.list, vim.empty_dict(), function(result)
    local items, session_items = texts.list_entries(result)
    vim.fn.setqflist({}, ' ', { title = 'todo-ls: open items', items = items })
    if vim.api.nvim_win_is_valid(win) then
      vim.fn.setloclist(win, {}, ' ', { title = texts.SESSION_LIST_TITLE, items = session_items })
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
  local argument = { sessionID = session_id, index = index, content = content }
  run(nil, command.toggle, argument, function(result)
    notify(texts.session_toggled(session_id, index, content, result))
    if on_done then
      on_done(result)
    end
  end)
end

--- Re-reads every subscribed file.
---@param bufnr? integer
function M.refresh(bufnr)
  run(bufnr, command.refresh, vim.empty_dict(), function(result)
    notify(texts.refreshed(result))
  end)
end

--- Asks the supervisor to nudge, pause or resume one session (`session_id`) or every supervised
--- session of the buffer's workspace folder, and reports the answer.
---@param action 'nudge'|'pause'|'resume'
---@param session_id? string
---@param bufnr? integer
---@param on_done? fun(message: string)
function M.supervisor(action, session_id, bufnr, on_done)
  local current = status.of_buffer(bufnr)
  local workspace = current and value(current.workspace)
  local argument = session_id and { sessionID = session_id }
    or (workspace and { workspace = workspace } or vim.empty_dict())
  run(bufnr, command[action], argument, function(result)
    local message = texts.supervisor(action, result)
    notify(message)
    if on_done then
      on_done(message)
    end
  end)
end

return M
