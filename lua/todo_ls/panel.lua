--- The todo panel (`:TodoLs panel`): a floating window with a section per agent session (its own
--- todo list under it), then one per subscribed file (`n open of m`, `(missing)`) holding its
--- items indented as in the file. Fed by `todoLs.list` and each file's `textDocument/documentSymbol`,
--- redrawn whenever a `todoLs/status` arrives. Keys: `:help todo_ls-panel`.
local command = require('todo_ls.protocol').command

local M = {}

local function todo()
  return require('todo_ls')
end

local ITEM_MARKS = { open = '[ ]', inProgress = '[/]', blocked = '[?]', done = '[x]', canceled = '[~]' }
local TODO_MARKS = { pending = '[ ]', in_progress = '[/]', completed = '[x]', cancelled = '[~]', canceled = '[~]' }
local CLOSED = { done = true, canceled = true, completed = true, cancelled = true }
local HELP = {
  'x <Space> toggle   <CR> jump   n nudge   s pause/resume   a subscribe a file   d unsubscribe',
  'r refresh   / filter   H hide done   q <Esc> close   ? this help',
}
local NS = vim.api.nvim_create_namespace('todo_ls_panel')
-- The name the server's outline gives an item without text (todo_ls/checklist/symbols.py).
local NO_TEXT = '(no text)'

---@class todo_ls.PanelEntry
---@field kind 'session'|'todo'|'file'|'item'
---@field session? table the status entry of the session
---@field todo? table a session's own item (`sessionID`, `index`, `content`, `status`)
---@field uri? string the file (file and item lines)
---@field line? integer 0-based line of the item
---@field text? string the item's text as the server listed it (sent with a toggle)

local state = {
  buf = nil, ---@type integer?
  win = nil, ---@type integer?
  client_id = nil, ---@type integer?
  entries = {}, ---@type table<integer, todo_ls.PanelEntry> panel line (1-based) -> what it shows
  filter = nil, ---@type string?
  hide_done = false,
  help = false,
  generation = 0, -- answers of an older fetch are dropped
  pending = false, -- a status arrived while a fetch was under way
  fetching = false,
  listed = nil, ---@type table? the last `todoLs.list` answer
  symbols = {}, ---@type table<string, table[]> file uri -> its document symbols
}

local function value(v)
  return todo()._value(v)
end

local function is_open()
  return state.win ~= nil and vim.api.nvim_win_is_valid(state.win)
end

--- The item symbols of an outline, depth first, with their nesting depth (headings skipped).
local function items_of(symbols, depth, out)
  for _, symbol in ipairs(symbols or {}) do
    if symbol.kind == vim.lsp.protocol.SymbolKind.Boolean then
      local item_state = (value(symbol.detail) or 'open'):match('^(%a+)')
      table.insert(out, { depth = depth, symbol = symbol, state = item_state })
      items_of(symbol.children, depth + 1, out)
    else
      items_of(symbol.children, depth, out)
    end
  end
  return out
end

local function shown(text, closed)
  if closed and state.hide_done then
    return false
  end
  return not state.filter or text:lower():find(state.filter:lower(), 1, true) ~= nil
end

local function file_name(uri)
  return vim.fn.fnamemodify(vim.uri_to_fname(uri), ':~:.')
end

--- The panel's lines and what each one shows.
---@return string[] lines, table<integer, todo_ls.PanelEntry> entries, table[] highlights
function M.render(listed, symbols)
  local lines, entries, marks = {}, {}, {}
  local function add(text, entry, group)
    table.insert(lines, text)
    entries[#lines] = entry
    if group then
      table.insert(marks, { #lines - 1, #text, group })
    end
  end
  if state.help then
    for _, line in ipairs(HELP) do
      add(line, nil, 'Comment')
    end
  end
  local header = value(listed.text) or ''
  if state.filter then
    header = header .. ('   filter: %s'):format(state.filter)
  end
  if state.hide_done then
    header = header .. '   (done hidden)'
  end
  add(header .. '   ? help', nil, 'Title')
  local problem = require('todo_ls.status').host_problem(listed.supervisor)
  if problem then
    add(problem, nil, 'WarningMsg')
  end
  local todos = {}
  for _, item in ipairs(listed.items or {}) do
    local session = value(item.sessionID)
    if session then
      todos[session] = todos[session] or {}
      table.insert(todos[session], item)
    end
  end
  local supervisor = value(listed.supervisor) or {}
  for _, session in ipairs(value(supervisor.sessions) or {}) do
    add('', nil)
    add('SESSION ' .. todo().session_line(session), { kind = 'session', session = session }, 'Statement')
    for _, item in ipairs(todos[session.id] or {}) do
      local closed = CLOSED[item.status]
      if shown(item.content, closed) then
        local text = ('  %s %s'):format(TODO_MARKS[item.status] or '[ ]', item.content)
        add(text, { kind = 'todo', session = session, todo = item }, closed and 'Comment' or nil)
      end
    end
  end
  local files = listed.files or {}
  if #files == 0 then
    add('', nil)
    add('No subscribed files: press a to subscribe one', nil, 'WarningMsg')
  end
  for _, file in ipairs(files) do
    add('', nil)
    local name = file_name(file.uri)
    local summary = file.missing and (name .. ' (missing)') or ('%s  %d open of %d'):format(name, file.open, file.total)
    add(summary, { kind = 'file', uri = file.uri }, 'Directory')
    for _, found in ipairs(items_of(symbols[file.uri], 0, {})) do
      local symbol, closed = found.symbol, CLOSED[found.state]
      if shown(symbol.name, closed) then
        local text = ('%s%s %s'):format(string.rep('  ', found.depth + 1), ITEM_MARKS[found.state] or '[ ]', symbol.name)
        local item_text = symbol.name ~= NO_TEXT and symbol.name or ''
        local entry = { kind = 'item', uri = file.uri, line = symbol.selectionRange.start.line, text = item_text }
        add(text, entry, closed and 'Comment' or nil)
      end
    end
  end
  return lines, entries, marks
end

local function draw()
  if not is_open() or not state.listed then
    return
  end
  local lines, entries, marks = M.render(state.listed, state.symbols)
  local buf = state.buf
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.api.nvim_buf_clear_namespace(buf, NS, 0, -1)
  for _, mark in ipairs(marks) do
    vim.api.nvim_buf_set_extmark(buf, NS, mark[1], 0, { end_col = mark[2], hl_group = mark[3] })
  end
  state.entries = entries
  local height = math.max(3, math.min(#lines, vim.o.lines - 6))
  vim.api.nvim_win_set_height(state.win, height)
  local cursor = vim.api.nvim_win_get_cursor(state.win)
  if cursor[1] > #lines then
    vim.api.nvim_win_set_cursor(state.win, { #lines, 0 })
  end
end

--- Asks the server for the list and each file's outline, then draws (a status arriving
--- meanwhile means one more round once this one is done).
function M.refresh()
  local client = state.client_id and vim.lsp.get_client_by_id(state.client_id) or todo().client()
  if not client or not is_open() then
    return
  end
  if state.fetching then
    state.pending = true
    return
  end
  state.fetching, state.client_id = true, client.id
  state.generation = state.generation + 1
  local generation = state.generation
  local function done(listed, symbols)
    state.fetching = false
    if generation == state.generation then
      state.listed, state.symbols = listed, symbols
      draw()
    end
    if state.pending then
      state.pending = false
      M.refresh()
    end
  end
  local function failed()
    state.fetching, state.pending = false, false
  end
  todo()._execute(client, command.list, vim.empty_dict(), nil, function(listed)
    local symbols, waiting = {}, 0
    local files = vim.tbl_filter(function(file)
      return not file.missing
    end, listed.files or {})
    if #files == 0 then
      done(listed, symbols)
      return
    end
    waiting = #files
    local function answered(uri, result)
      symbols[uri] = result or {}
      waiting = waiting - 1
      if waiting == 0 then
        vim.schedule(function()
          done(listed, symbols)
        end)
      end
    end
    for _, file in ipairs(files) do
      local params = { textDocument = { uri = file.uri } }
      local sent = todo()._request(client, 'textDocument/documentSymbol', params, function(_, result)
        answered(file.uri, result)
      end)
      if not sent then -- the client stopped: no answer will come
        answered(file.uri, nil)
      end
    end
  end, failed)
end

--- What the cursor line of the panel shows.
---@return todo_ls.PanelEntry?
function M.entry()
  if not is_open() then
    return nil
  end
  return state.entries[vim.api.nvim_win_get_cursor(state.win)[1]]
end

--- The session of the cursor line (a session line or one of its todos).
local function session_here()
  local entry = M.entry()
  return entry and entry.session
end

--- The file of the cursor line (a file line or one of its items).
local function file_here()
  local entry = M.entry()
  return entry and entry.uri
end

local function client()
  return state.client_id and vim.lsp.get_client_by_id(state.client_id)
end

local actions = {}

function actions.toggle()
  local entry, lsp_client = M.entry(), client()
  if not entry or not lsp_client then
    return
  end
  if entry.kind == 'todo' then
    local item = entry.todo
    todo().toggle_session(item.sessionID, item.index, item.content, M.refresh)
    return
  end
  if entry.kind ~= 'item' then
    return
  end
  -- The text names the item: moved since the panel was drawn (an agent's write), the server
  -- finds it where it went or refuses (docs/status-and-commands.md).
  local argument = { uri = entry.uri, line = entry.line, text = entry.text }
  todo()._execute(lsp_client, command.toggle, argument, nil, function(result)
    if not result.applied then
      vim.notify('todo-ls: ' .. (value(result.reason) or 'not changed'), vim.log.levels.WARN, { title = 'todo-ls' })
    end
    -- The edit landed in another buffer (or on disk): Neovim will not pull its diagnostics.
    local bufnr = vim.fn.bufnr(vim.uri_to_fname(entry.uri))
    if bufnr > 0 then
      todo().pull_diagnostics(lsp_client, bufnr)
    end
    M.refresh()
  end)
end

function actions.jump()
  local entry = M.entry()
  if not entry or not entry.uri then
    return
  end
  M.close()
  -- A window showing the file already, else its buffer (even modified) in the current window.
  local fname = vim.uri_to_fname(entry.uri)
  local bufnr = vim.fn.bufnr(fname)
  if bufnr > 0 and vim.fn.bufwinid(bufnr) ~= -1 then
    vim.api.nvim_set_current_win(vim.fn.bufwinid(bufnr))
  elseif bufnr > 0 then
    vim.api.nvim_set_current_buf(bufnr)
  else
    vim.cmd.edit(vim.fn.fnameescape(fname))
  end
  if entry.line then
    vim.api.nvim_win_set_cursor(0, { entry.line + 1, 0 })
  end
end

function actions.nudge()
  local session = session_here()
  todo().supervisor('nudge', session and session.id, nil, M.refresh)
end

function actions.pause_resume()
  local session = session_here()
  if not session then
    vim.notify('todo-ls: put the cursor on a session', vim.log.levels.WARN, { title = 'todo-ls' })
    return
  end
  local action = session.state == 'paused' and 'resume' or 'pause'
  todo().supervisor(action, session.id, nil, M.refresh)
end

function actions.subscribe()
  vim.ui.input({ prompt = 'Subscribe file: ', completion = 'file' }, function(path)
    if path and path ~= '' then
      -- Redrawn on the answer: the status the change causes may never come (the server sends
      -- none when the totals end where the last status left them).
      todo().subscribe(true, path, nil, M.refresh)
    end
  end)
end

function actions.unsubscribe()
  local uri = file_here()
  if uri then
    todo().subscribe(false, vim.uri_to_fname(uri), nil, M.refresh)
  end
end

function actions.refresh()
  todo().refresh()
  M.refresh()
end

function actions.filter()
  vim.ui.input({ prompt = 'Filter: ', default = state.filter or '' }, function(text)
    if text == nil then
      return
    end
    state.filter = text ~= '' and text or nil
    draw()
  end)
end

function actions.hide_done()
  state.hide_done = not state.hide_done
  draw()
end

function actions.help()
  state.help = not state.help
  draw()
end

local KEYS = {
  { 'x', actions.toggle, 'toggle the item' },
  { '<Space>', actions.toggle, 'toggle the item' },
  { '<CR>', actions.jump, 'jump to the item' },
  { 'n', actions.nudge, 'nudge the session (all without one)' },
  { 's', actions.pause_resume, 'pause or resume the session' },
  { 'a', actions.subscribe, 'subscribe a file' },
  { 'd', actions.unsubscribe, 'unsubscribe the file' },
  { 'r', actions.refresh, 're-read the files' },
  { '/', actions.filter, 'filter the items' },
  { 'H', actions.hide_done, 'hide or show the done items' },
  { '?', actions.help, 'show or hide the keys' },
}

function M.close()
  if is_open() then
    vim.api.nvim_win_close(state.win, true)
  end
  state.win = nil
end

local group = vim.api.nvim_create_augroup('todo_ls_panel', { clear = true })
vim.api.nvim_create_autocmd('User', {
  group = group,
  pattern = 'TodoLsStatus',
  callback = function()
    if is_open() then
      M.refresh()
    end
  end,
})

--- Opens the panel (or moves to it when it is open).
function M.open()
  if is_open() then
    vim.api.nvim_set_current_win(state.win)
    return
  end
  local lsp_client = todo()._need_client(nil, false)
  if not lsp_client then
    return
  end
  state.client_id = lsp_client.id
  if not (state.buf and vim.api.nvim_buf_is_valid(state.buf)) then
    state.buf = vim.api.nvim_create_buf(false, true)
    vim.bo[state.buf].filetype = 'todo_ls_panel'
    vim.bo[state.buf].bufhidden = 'hide'
    for _, key in ipairs(KEYS) do
      vim.keymap.set('n', key[1], key[2], { buffer = state.buf, nowait = true, desc = 'todo-ls: ' .. key[3] })
    end
    for _, lhs in ipairs({ 'q', '<Esc>' }) do
      vim.keymap.set('n', lhs, M.close, { buffer = state.buf, nowait = true, desc = 'todo-ls: close the panel' })
    end
  end
  local width = math.min(100, vim.o.columns - 4)
  state.win = vim.api.nvim_open_win(state.buf, true, {
    relative = 'editor',
    width = width,
    height = 3,
    row = 1,
    col = math.floor((vim.o.columns - width) / 2),
    style = 'minimal',
    border = 'rounded',
    title = ' todo-ls ',
    title_pos = 'center',
  })
  vim.wo[state.win].cursorline = true
  vim.wo[state.win].wrap = false
  vim.api.nvim_create_autocmd('WinClosed', {
    group = group,
    pattern = tostring(state.win),
    once = true,
    callback = function()
      state.win = nil
    end,
  })
  vim.bo[state.buf].modifiable = true
  vim.api.nvim_buf_set_lines(state.buf, 0, -1, false, { 'todo-ls: loading…' })
  vim.bo[state.buf].modifiable = false
  M.refresh()
end

--- Whether the panel is open (for tests and statuslines).
function M.is_open()
  return is_open()
end

return M
