--- The todo panel (`:TodoLs panel`): a floating window with a section per agent session (its own
--- todo list under it), then one per subscribed file (`n open of m`, `(missing)`) holding its
--- items indented as in the file. Fed by `todoLs.list` and each file's `textDocument/documentSymbol`,
--- redrawn whenever a `todoLs/status` arrives. Keys: `:help todo_ls-panel`.
---
--- It stays as fast with 20,000 files as with one: each refresh asks for the counts and the first
--- files by path only (`todoLs.list {limit = 0, filesOffset, filesLimit}`: no file is read for
--- them), and reads the outline of the files shown expanded (the first few, and those the user
--- expands with `o`); `m` lists more files.
local command = require('todo_ls.protocol').command

local M = {}

local function todo()
  return require('todo_ls')
end

local ITEM_MARKS = { open = '[ ]', inProgress = '[/]', blocked = '[?]', done = '[x]', canceled = '[~]' }
local TODO_MARKS = { pending = '[ ]', in_progress = '[/]', completed = '[x]', cancelled = '[~]', canceled = '[~]' }
local CLOSED = { done = true, canceled = true, completed = true, cancelled = true }
local HELP = {
  'x <Space> toggle   <CR> jump   o <Tab> expand/collapse a file   m more files   n nudge',
  's pause/resume   a subscribe a file   d unsubscribe   r refresh   / filter   H hide done',
  'q <Esc> close   ? this help',
}
local FILES_PAGE = 50 -- files listed at first, and how many more each `m` lists
local FILES_PER_REQUEST = 1000 -- the server's `filesLimit` maximum
local AUTO_EXPAND = 20 -- the first files shown expanded (their outline read at once)
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
  listed = nil, ---@type table? the last `todoLs.list` answer (files by path, session items)
  symbols = {}, ---@type table<string, table[]> file uri -> its document symbols (files expanded)
  expanded = {}, ---@type table<string, boolean> file uri -> the user's choice (`o`)
  files_shown = FILES_PAGE,
}

--- Whether the file at place `index` (1-based) of the listing shows its items.
local function is_expanded(uri, index)
  local chosen = state.expanded[uri]
  if chosen == nil then
    return index <= AUTO_EXPAND
  end
  return chosen
end

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
      -- Its name as a reader sees it (an older server sends none); a toggle sends `content`.
      local label = value(item.name) or item.content
      if shown(label, closed) then
        local text = ('  %s %s'):format(TODO_MARKS[item.status] or '[ ]', label)
        add(text, { kind = 'todo', session = session, todo = item }, closed and 'Comment' or nil)
      end
    end
  end
  local files = listed.files or {}
  if #files == 0 then
    add('', nil)
    add('No subscribed files: press a to subscribe one', nil, 'WarningMsg')
  end
  for index, file in ipairs(files) do
    add('', nil)
    local name = file_name(file.uri)
    local summary = file.missing and (name .. ' (missing)') or ('%s  %d open of %d'):format(name, file.open, file.total)
    local expanded = not file.missing and is_expanded(file.uri, index)
    if not file.missing and file.total > 0 and not expanded then
      summary = summary .. '  (o: show)'
    end
    add(summary, { kind = 'file', uri = file.uri }, 'Directory')
    for _, found in ipairs(expanded and items_of(symbols[file.uri], 0, {}) or {}) do
      local symbol, closed = found.symbol, CLOSED[found.state]
      if shown(symbol.name, closed) then
        local text = ('%s%s %s'):format(string.rep('  ', found.depth + 1), ITEM_MARKS[found.state] or '[ ]', symbol.name)
        -- The outline's name, not the markdown: the server finds the item by either.
        local item_text = symbol.name ~= NO_TEXT and symbol.name or ''
        local entry = { kind = 'item', uri = file.uri, line = symbol.selectionRange.start.line, text = item_text }
        add(text, entry, closed and 'Comment' or nil)
      end
    end
  end
  local more = (value(listed.filesTotal) or #files) - #files
  if more > 0 then
    add('', nil)
    add(('… %d more file%s: press m to list more'):format(more, more == 1 and '' or 's'), { kind = 'more' }, 'Comment')
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

--- The outlines of `uris` (document symbols; none for a file the server gave none), then
--- `done(symbols)` on the main loop.
local function read_outlines(client, uris, done)
  local symbols, waiting = {}, #uris
  if waiting == 0 then
    done(symbols)
    return
  end
  local function answered(uri, result)
    symbols[uri] = result or {}
    waiting = waiting - 1
    if waiting == 0 then
      vim.schedule(function()
        done(symbols)
      end)
    end
  end
  for _, uri in ipairs(uris) do
    local params = { textDocument = { uri = uri } }
    local sent = todo()._request(client, 'textDocument/documentSymbol', params, function(_, result)
      answered(uri, result)
    end)
    if not sent then -- the client stopped: no answer will come
      answered(uri, nil)
    end
  end
end

--- The counts, the first `shown` files by path (pages of at most FILES_PER_REQUEST) and each
--- session's own items, as one list; `done(listed)` or `failed()`.
local function read_listing(client, shown, done, failed)
  local files = {}
  local function page(offset)
    local argument = { limit = 0, filesOffset = offset, filesLimit = math.min(shown - offset, FILES_PER_REQUEST) }
    todo()._execute(client, command.list, argument, nil, function(listed)
      vim.list_extend(files, listed.files or {})
      local total = value(listed.filesTotal) or #files
      if #files < math.min(shown, total) and #(listed.files or {}) > 0 then
        page(#files)
        return
      end
      listed.files, listed.items = files, {}
      local sessions = value((value(listed.supervisor) or {}).sessions) or {}
      local waiting = #sessions
      if waiting == 0 then
        done(listed)
        return
      end
      local own = {}
      for n, session in ipairs(sessions) do
        todo()._execute(client, command.list, { sessionID = session.id }, nil, function(answer)
          own[n] = answer.items or {}
          waiting = waiting - 1
          if waiting == 0 then
            for m = 1, #sessions do
              vim.list_extend(listed.items, own[m] or {})
            end
            done(listed)
          end
        end, failed)
      end
    end, failed)
  end
  page(0)
end

--- Asks the server for the listing and the outline of each file shown expanded, then draws (a
--- status arriving meanwhile means one more round once this one is done).
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
  read_listing(client, state.files_shown, function(listed)
    local uris = {}
    for index, file in ipairs(listed.files) do
      if not file.missing and is_expanded(file.uri, index) then
        table.insert(uris, file.uri)
      end
    end
    read_outlines(client, uris, function(symbols)
      done(listed, symbols)
    end)
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

--- `o` / `<Tab>`: the file of the cursor line shows its items (read now) or hides them.
function actions.expand()
  local uri, lsp_client = file_here(), client()
  if not uri or not lsp_client or not state.listed then
    return
  end
  local index
  for n, file in ipairs(state.listed.files or {}) do
    if file.uri == uri then
      index = n
    end
  end
  local expand = not is_expanded(uri, index or math.huge)
  state.expanded[uri] = expand
  if not expand then
    draw()
    return
  end
  local generation = state.generation
  read_outlines(lsp_client, { uri }, function(symbols)
    if generation == state.generation then
      state.symbols[uri] = symbols[uri]
    end
    draw()
    -- The cursor stays on the file's line, now followed by its items.
    for lnum, entry in pairs(state.entries) do
      if entry.kind == 'file' and entry.uri == uri and is_open() then
        vim.api.nvim_win_set_cursor(state.win, { lnum, 0 })
      end
    end
  end)
end

--- `m`: FILES_PAGE more files.
function actions.more()
  state.files_shown = state.files_shown + FILES_PAGE
  M.refresh()
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
  { 'o', actions.expand, 'show or hide the file\'s items' },
  { '<Tab>', actions.expand, 'show or hide the file\'s items' },
  { 'm', actions.more, 'list more files' },
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
