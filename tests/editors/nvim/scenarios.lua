-- The end-to-end scenarios run by run.lua; each gets the helper table `t` and fills `t.data`.
-- The workspace (current directory) holds .git/, PLAN.md and NOTES.md (see test_nvim.py).
local S = {}

local SUBSCRIBED = { settings = { todoLs = { markdownFiles = { 'PLAN.md' } } } }

--- Attach, diagnostics, status line, inlay hints (option on), positions on non-ASCII lines.
function S.attach(t)
  t.setup(vim.tbl_deep_extend('force', SUBSCRIBED, { inlay_hints = true }))
  local bufnr, client = t.open('PLAN.md')
  t.data.offset_encoding = client.offset_encoding
  t.data.server_info = client.server_info
  t.data.root_dir = client.root_dir
  t.wait('diagnostics', function()
    return #vim.diagnostic.get(bufnr) >= 2
  end)
  t.data.diagnostics = t.diagnostics(bufnr)
  t.data.statusline = t.wait_status('open')
  t.data.status = require('todo_ls').status()
  t.data.inlay_hints_enabled = vim.lsp.inlay_hint.is_enabled({ bufnr = bufnr })
  local hints = t.wait('inlay hints', function()
    local hints = vim.lsp.inlay_hint.get({ bufnr = bufnr })
    return #hints > 0 and hints
  end)
  t.data.inlay_hints = {}
  for _, h in ipairs(hints) do
    local label = h.inlay_hint.label
    if type(label) == 'table' then
      label = table.concat(vim.tbl_map(function(part)
        return part.value
      end, label))
    end
    table.insert(t.data.inlay_hints, {
      line = h.inlay_hint.position.line,
      character = h.inlay_hint.position.character,
      label = label,
    })
  end
  t.data.lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
end

--- The README's plain Neovim 0.11 configuration: no setup(), only `lsp/todo_ls.lua` on the
--- runtimepath plus vim.lsp.config/enable.
function S.plain(t)
  vim.lsp.config('todo_ls', { cmd = t.server_cmd(), settings = SUBSCRIBED.settings })
  vim.lsp.enable('todo_ls')
  local bufnr = t.open('PLAN.md')
  t.wait('diagnostics', function()
    return #vim.diagnostic.get(bufnr) == 2
  end)
  t.data.statusline = t.wait_status('2/5 open')
  t.data.command = vim.fn.exists(':TodoLs') == 2
end

--- The user path for a quick fix: `vim.lsp.buf.code_action{apply=true}` on an item line.
function S.code_action(t)
  t.setup(SUBSCRIBED)
  local bufnr, client = t.open('PLAN.md')
  t.wait('diagnostics', function()
    return #vim.diagnostic.get(bufnr) >= 2
  end)
  t.data.status_before = t.wait_status('2/5 open')
  local lnum = t.goto_line('write the parser')
  local params = vim.lsp.util.make_range_params(0, client.offset_encoding)
  params.context = { diagnostics = vim.lsp.diagnostic.from(vim.diagnostic.get(bufnr, { lnum = lnum - 1 })) }
  local response = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', params, 5000) or {}
  t.data.titles = vim.tbl_map(function(action)
    return action.title
  end, (response[client.id] or {}).result or {})
  vim.lsp.buf.code_action({
    apply = true,
    filter = function(action)
      return action.title == 'Mark done'
    end,
  })
  t.wait_line(lnum, '- [x] write the parser')
  t.data.status_after = t.wait_status('1/5 open')
  t.data.diagnostics_after = t.wait('one diagnostic left', function()
    local diagnostics = t.diagnostics(bufnr)
    return #diagnostics == 1 and diagnostics
  end)
end

--- :TodoLs toggle/done/cancel/state/list/nudge/pause and the command's completion.
function S.commands(t)
  t.setup(SUBSCRIBED)
  local bufnr = t.open('PLAN.md')
  t.wait_status('2/5 open')
  t.data.inlay_hints_enabled = vim.lsp.inlay_hint.is_enabled({ bufnr = bufnr })
  t.data.completion = vim.fn.getcompletion('TodoLs ', 'cmdline')
  t.data.completion_state = vim.fn.getcompletion('TodoLs state b', 'cmdline')

  local parser = t.goto_line('write the parser')
  vim.cmd('TodoLs done')
  t.wait_line(parser, '- [x] write the parser')
  t.wait_status('1/5 open')
  vim.cmd('TodoLs toggle')
  t.wait_line(parser, '- [ ] write the parser')
  t.wait_status('2/5 open')
  vim.cmd('TodoLs state blocked')
  t.wait_line(parser, '- [?] write the parser')

  local ship = t.goto_line('ship it')
  vim.cmd('TodoLs cancel')
  t.wait_line(ship, '- [~] ünïcødé ship it ✓')
  t.data.status_after = t.wait_status('1/5 open')

  -- A range: the blocked and the done item are reopened, the blank line before them is refused.
  local added = t.goto_line('add tests')
  vim.cmd(('%d,%dTodoLs toggle'):format(parser - 1, added))
  t.wait_line(parser, '- [ ] write the parser')
  t.wait_line(added, '- [ ] add tests')
  t.data.range_message = t.wait_message('changed 2 of 3 lines')
  t.data.status_range = t.wait_status('2/5 open')

  t.goto_line('# Plan')
  vim.cmd('TodoLs done')
  t.data.not_an_item = t.wait_message('line 1 ')

  vim.cmd('TodoLs list')
  t.data.quickfix = t.wait('quickfix list', function()
    local qf = vim.fn.getqflist({ title = 1, items = 1 })
    return #qf.items > 0 and qf
  end)
  t.data.quickfix_open = vim.bo.buftype == 'quickfix'
  t.data.quickfix_entries = vim.tbl_map(function(item)
    return { file = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(item.bufnr), ':.'), lnum = item.lnum, text = item.text }
  end, t.data.quickfix.items)
  t.data.quickfix.items = nil
  vim.cmd.cclose()

  vim.cmd('TodoLs nudge')
  t.data.nudge = t.wait_message('nudge')
  vim.cmd('TodoLs pause')
  t.data.pause = t.wait_message('paused')
  vim.cmd('TodoLs resume')
  t.data.resume = t.wait_message('resumed')
  vim.cmd('TodoLs refresh')
  t.data.refresh = t.wait_message('re-read')
  t.data.lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
end

--- :TodoLs subscribe / unsubscribe on a file that settings do not subscribe.
function S.subscribe(t)
  t.setup(SUBSCRIBED)
  local bufnr, client = t.open('NOTES.md')
  t.data.status_before = t.wait_status('2/5 open')
  local pulled = client:request_sync('textDocument/diagnostic', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
  }, 5000, bufnr)
  t.data.pulled_before = pulled and pulled.result
  t.data.diagnostics_before = t.diagnostics(bufnr)
  vim.cmd('TodoLs subscribe')
  t.data.diagnostics_subscribed = t.wait('diagnostics after subscribe', function()
    local diagnostics = t.diagnostics(bufnr)
    return #diagnostics > 0 and diagnostics
  end)
  t.data.subscribe_message = t.wait_message('subscribed NOTES.md')
  t.data.status_subscribed = t.wait_status('3/6 open')
  vim.cmd('TodoLs unsubscribe')
  t.wait('diagnostics cleared after unsubscribe', function()
    return #vim.diagnostic.get(bufnr) == 0
  end)
  t.data.status_unsubscribed = t.wait_status('2/5 open')
end

--- :checkhealth todo_ls, first with no client running (the health check starts the server
--- itself), then with a client attached and a status received.
function S.health(t)
  t.setup(SUBSCRIBED)
  local function health_lines()
    vim.cmd('checkhealth todo_ls')
    local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
    vim.cmd('bwipeout!')
    return lines
  end
  t.data.before_attach = health_lines()
  t.step('checkhealth without a client')
  t.open('PLAN.md')
  t.wait_status('open')
  t.data.attached = health_lines()
  t.step('checkhealth with a client')
end

--- Two workspace folders in one client (`vim.lsp.buf.add_workspace_folder`), each with its own
--- status; a fake 2.x agent session works in the second folder with a todo list of its own.
--- Inputs: TODO_LS_TEST_SECOND (the second folder), TODO_LS_TEST_URL (the agent host).
function S.folders(t)
  local second = assert(vim.env.TODO_LS_TEST_SECOND, 'TODO_LS_TEST_SECOND is not set')
  local todo = require('todo_ls')
  t.setup({ settings = { todoLs = { markdownFiles = { 'PLAN.md' }, supervisor = { url = vim.env.TODO_LS_TEST_URL } } } })
  local first_buf, client = t.open('PLAN.md')
  t.wait_status('2/5 open')
  vim.lsp.buf.add_workspace_folder(second)
  local second_buf, second_client = t.open(vim.fs.joinpath(second, 'PLAN.md'))
  t.data.same_client = second_client.id == client.id
  t.data.second_statusline = t.wait_status('1/2 open · working')
  t.data.second_status = todo.status(second_buf)
  t.data.first_statusline = todo.statusline(first_buf)
  t.data.described = todo.describe(second_buf)

  -- From the first folder's buffer: every folder's items, each opened by its own URI.
  vim.cmd.buffer(first_buf)
  local win = vim.api.nvim_get_current_win()
  vim.cmd('TodoLs list')
  local qf = t.wait('quickfix list', function()
    local list = vim.fn.getqflist({ items = 1 })
    return #list.items > 0 and list
  end)
  t.data.quickfix = vim.tbl_map(function(item)
    return { file = vim.api.nvim_buf_get_name(item.bufnr), lnum = item.lnum, text = item.text }
  end, qf.items)
  local loc = t.wait('location list of agent todos', function()
    local list = vim.fn.getloclist(win, { title = 1, items = 1 })
    return #list.items > 0 and list
  end)
  t.data.loclist_title = loc.title
  t.data.loclist = vim.tbl_map(function(item)
    return item.text
  end, loc.items)
  for n, item in ipairs(qf.items) do
    if item.text == 'only item here' then
      vim.api.nvim_set_current_win(win)
      vim.cmd('cc ' .. n)
      t.data.jumped = { file = vim.api.nvim_buf_get_name(0), lnum = vim.api.nvim_win_get_cursor(0)[1] }
    end
  end

  -- In the location list window, :TodoLs toggle flips the agent's item under the cursor.
  vim.api.nvim_set_current_win(win)
  vim.cmd('lopen')
  t.data.in_loclist = vim.fn.getwininfo(vim.api.nvim_get_current_win())[1].loclist == 1
  local row
  for n, text in ipairs(t.data.loclist) do
    if text:find('[ ] Update the docs', 1, true) then
      row = n
    end
  end
  vim.api.nvim_win_set_cursor(0, { assert(row, 'no pending session item'), 0 })
  vim.cmd('TodoLs toggle')
  t.data.toggle_message = t.wait_message('is now completed')
  t.data.loclist_after = t.wait('the toggled item in the location list', function()
    local texts = vim.tbl_map(function(item)
      return item.text
    end, vim.fn.getloclist(win, { items = 1 }).items)
    return texts[row] and texts[row]:find('[x] Update the docs', 1, true) and texts
  end)
  t.wait('the session todos in the status', function()
    return table.concat(todo.describe(second_buf), '\n'):find('0/2 todos', 1, true)
  end)
end

--- The help file: tags generated by :helptags resolve.
function S.help(t)
  vim.cmd.helptags(vim.fs.joinpath(t.plugin, 'doc'))
  t.data.tags = {}
  for _, tag in ipairs({
    'todo_ls',
    ':TodoLs',
    'todo_ls.setup()',
    'todo_ls.statusline()',
    'todo_ls.status()',
    'todo_ls-panel',
    'todo_ls-pickers',
    ':TodoLs-install',
  }) do
    vim.cmd.help(tag)
    local line = vim.api.nvim_get_current_line()
    t.data.tags[tag] = { buftype = vim.bo.buftype, line = line }
    vim.cmd.helpclose()
  end
end

--- The lines of the panel window, and the panel line (1-based) containing `text`.
local function panel_lines()
  local win = vim.api.nvim_get_current_win()
  return vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
end

local function panel_line_with(text)
  for n, line in ipairs(panel_lines()) do
    if line:find(text, 1, true) then
      return n
    end
  end
end

--- Presses `keys` as a user would (mappings apply).
local function press(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), 'mx', false)
end

--- :TodoLs panel: lists the file's items, `x` toggles one (the buffer's marker changes, the
--- panel and the diagnostics follow), `/` filters, `H` hides done, `?` shows the keys, `q` closes.
function S.panel(t)
  t.setup(SUBSCRIBED)
  local bufnr = t.open('PLAN.md')
  t.wait('diagnostics', function()
    return #vim.diagnostic.get(bufnr) == 2
  end)
  t.wait_status('2/5 open')
  vim.cmd('TodoLs panel')
  local panel = require('todo_ls.panel')
  t.data.opened = panel.is_open()
  t.data.floating = vim.api.nvim_win_get_config(0).relative ~= ''
  t.wait('the panel lists PLAN.md', function()
    return panel_line_with('PLAN.md  2 open of 5')
  end)
  t.data.lines = panel_lines()
  vim.api.nvim_win_set_cursor(0, { panel_line_with('write the parser'), 0 })
  -- What the toggle sends: the item's text names it (found where it moved, or refused).
  local todo = require('todo_ls')
  local execute = todo._execute
  todo._execute = function(lsp_client, name, argument, ...)
    if name == 'todoLs.toggle' then
      t.data.toggle_argument = argument
    end
    return execute(lsp_client, name, argument, ...)
  end
  press('x')
  todo._execute = execute
  t.wait('the marker toggled in the buffer', function()
    return vim.api.nvim_buf_get_lines(bufnr, 4, 5, false)[1] == '- [x] write the parser'
  end)
  t.data.after_toggle = t.wait('the panel redrawn', function()
    return panel_line_with('PLAN.md  1 open of 5') and panel_lines()
  end)
  -- Neovim would not pull the edited buffer's diagnostics by itself (it is not the current one).
  t.data.diagnostics_after = t.wait('one diagnostic left', function()
    local found = t.diagnostics(bufnr)
    return #found == 1 and found
  end)
  t.data.in_panel = vim.api.nvim_get_current_win() ~= vim.fn.bufwinid(bufnr)
  press('H')
  t.data.hidden = panel_lines()
  press('H')
  vim.ui.input = function(_, on_confirm) -- the user types "ship" at the prompt
    on_confirm('ship')
  end
  press('/')
  t.data.filtered = panel_lines()
  vim.ui.input = function(_, on_confirm)
    on_confirm('')
  end
  press('/')
  press('?')
  t.data.help = panel_lines()
  press('?')
  -- `a` subscribes the file the user names, `d` on its section unsubscribes it, `r` re-reads.
  -- Its item has markup: the panel shows it as the outline names it, and `x` still ticks it
  -- (written to disk: the file is not open).
  vim.fn.writefile({ '# Notes', '', '- [ ] call the `plumber` about **the sink**' }, 'NOTES.md')
  vim.ui.input = function(_, on_confirm)
    on_confirm('NOTES.md')
  end
  press('a')
  t.data.subscribed = t.wait('NOTES.md in the panel', function()
    return panel_line_with('NOTES.md  1 open of 1') and panel_line_with('call the plumber') and panel_lines()
  end)
  vim.api.nvim_win_set_cursor(0, { panel_line_with('call the plumber'), 0 })
  press('x')
  t.wait('NOTES.md ticked', function()
    return panel_line_with('NOTES.md  0 open of 1')
  end)
  t.data.notes_ticked = vim.fn.readfile('NOTES.md')
  vim.api.nvim_win_set_cursor(0, { panel_line_with('NOTES.md'), 0 })
  press('d')
  t.data.unsubscribed = t.wait('NOTES.md gone from the panel', function()
    return not panel_line_with('NOTES.md') and panel_lines()
  end)
  press('r')
  t.data.refreshed = t.wait_message('re-read')
  press('q')
  t.data.closed = not panel.is_open()
  -- <CR> jumps to the item.
  vim.cmd('TodoLs panel')
  t.wait('the panel again', function()
    return panel_line_with('ünïcødé ship it')
  end)
  vim.api.nvim_win_set_cursor(0, { panel_line_with('ünïcødé ship it'), 0 })
  press('<CR>')
  t.data.jumped = { buf = vim.api.nvim_get_current_buf() == bufnr, lnum = vim.api.nvim_win_get_cursor(0)[1] }
  t.data.closed_by_jump = not panel.is_open()
end

--- A workspace of TODO_LS_TEST_FILES notes subscribed by its todo-ls.toml
--- (tests/editors/big_workspace.py; note n holds `task n.0` to `task n.2`, two open): the panel
--- lists the first files by path and says how many more, `o` reads a collapsed file's items, `x`
--- ticks one (written to disk: the file is not open), `m` lists more. `ms` per step in `t.data`.
function S.panel_big(t)
  local total = tonumber(vim.env.TODO_LS_TEST_FILES)
  local function name(n)
    return ('notes/part%02d/n%05d.md'):format(math.floor(n / 1000), n)
  end
  local ms = {}
  local function mark(what)
    ms[what] = math.floor(vim.uv.hrtime() / 1e6)
  end
  t.setup({})
  t.open(name(0))
  mark('attached')
  vim.cmd('TodoLs panel')
  t.wait('the first files in the panel', function()
    return panel_line_with(name(0) .. '  2 open of 3') and panel_line_with(('… %d more files: press m'):format(total - 50))
  end, 180000)
  mark('listed')
  t.data.lines = panel_lines()
  local target = 30 -- beyond the files shown expanded at first
  t.data.collapsed = panel_lines()[panel_line_with(name(target))]
  t.data.unread = panel_line_with(('task %d.0'):format(target)) == nil
  vim.api.nvim_win_set_cursor(0, { panel_line_with(name(target)), 0 })
  mark('expand')
  press('o')
  t.wait('the expanded file', function()
    return panel_line_with(('[x] task %d.2'):format(target))
  end, 30000)
  mark('expanded')
  local at = panel_line_with(name(target))
  t.data.expanded = vim.list_slice(panel_lines(), at, at + 3)
  vim.api.nvim_win_set_cursor(0, { panel_line_with(('task %d.0'):format(target)), 0 })
  mark('tick')
  press('x')
  local file = vim.fs.joinpath(vim.fn.getcwd(), name(target))
  t.wait('the ticked item on disk and in the panel', function()
    local text = table.concat(vim.fn.readfile(file), '\n')
    return text:find(('- [x] task %d.0'):format(target), 1, true) and panel_line_with(name(target) .. '  1 open of 3')
  end, 30000)
  mark('ticked')
  mark('more')
  press('m')
  t.data.more = t.wait('50 more files', function()
    return panel_line_with(('… %d more files: press m'):format(total - 100)) and panel_line_with(name(99)) and panel_lines()
  end, 30000)
  mark('listed more')
  t.data.more = vim.list_slice(t.data.more, #t.data.more - 3, #t.data.more)
  t.data.ms = {
    open = ms.listed - ms.attached,
    expand = ms.expanded - ms.expand,
    tick = ms.ticked - ms.tick,
    more = ms['listed more'] - ms.more,
  }
end

--- The supervisor pointed at a closed loopback port (TODO_LS_TEST_URL): the panel, `:TodoLs
--- status` and :checkhealth say that the host is not connected, and why.
function S.host_error(t)
  t.setup({ settings = { todoLs = { markdownFiles = { 'PLAN.md' }, supervisor = { url = vim.env.TODO_LS_TEST_URL } } } })
  t.open('PLAN.md')
  t.data.error = t.wait('the host error in the status', function()
    local status = require('todo_ls').status()
    local supervisor = status and status.supervisor
    local host = type(supervisor) == 'table' and supervisor.host
    return type(host) == 'table' and type(host.error) == 'string' and host.error
  end, 30000)
  vim.cmd('TodoLs panel')
  t.data.panel = t.wait('the panel lists PLAN.md', function()
    return panel_line_with('PLAN.md  2 open of 5') and panel_lines()
  end)
  require('todo_ls.panel').close()
  t.data.describe = require('todo_ls').describe()
  vim.cmd('checkhealth todo_ls')
  t.data.health = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  vim.cmd('bwipeout!')
end

--- :TodoLs fold on a file with two runs of finished items.
function S.fold(t)
  vim.fn.writefile({
    '# Done',
    '',
    '- [x] one',
    '- [x] two',
    '  - [x] two a',
    '- [ ] three',
    '- [x] four',
    '- [~] five',
  }, 'DONE.md')
  t.setup({ settings = { todoLs = { markdownFiles = { 'PLAN.md', 'DONE.md' } } } })
  t.open('DONE.md')
  t.wait_status('open')
  vim.cmd('TodoLs fold')
  t.data.message = t.wait_message('folded')
  t.data.foldmethod = vim.wo.foldmethod
  t.data.folds = {}
  for lnum = 1, 8 do
    table.insert(t.data.folds, { vim.fn.foldclosed(lnum), vim.fn.foldclosedend(lnum) })
  end
  -- Again: the runs folded already stay as they are.
  vim.cmd('TodoLs fold')
  t.wait('a second message', function()
    local n = 0
    for _, msg in ipairs(t.messages()) do
      n = n + (msg:find('folded', 1, true) and 1 or 0)
    end
    return n == 2
  end)
  t.data.folds_again = { vim.fn.foldclosed(4), vim.fn.foldclosedend(4), vim.fn.foldlevel(4) }
end

--- vim.lsp.buf.workspace_symbol: the open items (what Telescope / fzf-lua / snacks pick from).
function S.workspace_symbol(t)
  t.setup(SUBSCRIBED)
  t.open('NOTES.md') -- not subscribed: its item must not be listed
  t.wait_status('2/5 open')
  local function query(text)
    local found
    vim.lsp.buf.workspace_symbol(text, {
      on_list = function(list)
        found = list.items
      end,
    })
    return t.wait('symbols for ' .. vim.inspect(text), function()
      return found
    end)
  end
  local function simple(items)
    return vim.tbl_map(function(item)
      return { file = vim.fn.fnamemodify(item.filename, ':t'), lnum = item.lnum, col = item.col, text = item.text }
    end, items)
  end
  t.data.all = simple(query(''))
  t.data.ship = simple(query('ünï ship'))
  -- The server's own columns: Neovim's quickfix conversion reads the current buffer's lines.
  local client = vim.lsp.get_clients({ name = 'todo_ls' })[1]
  local raw = client:request_sync('workspace/symbol', { query = 'ship' }, 5000, 0)
  t.data.raw_ship = raw and raw.result
end

--- :TodoLs install claude-code: the server's own installer, with the executable Neovim runs.
function S.install(t)
  t.setup(SUBSCRIBED)
  t.open('PLAN.md')
  t.wait_status('2/5 open')
  vim.cmd('TodoLs install claude-code')
  t.data.message = t.wait_message('Claude Code')
  vim.cmd('TodoLs install no-such-host')
  t.data.refused = t.wait_message('install no-such-host failed')
end

--- The panel's `n` and `s` on a real agent session (OpenCode, TODO_LS_TEST_URL) that went idle
--- with items open.
function S.panel_agent(t)
  local settings = {
    markdownFiles = { 'PLAN.md' },
    -- No automatic nudge: the nudge is the user's, from the panel.
    supervisor = { url = vim.env.TODO_LS_TEST_URL, settleMs = 600000, stallMinutes = 600, toasts = false },
  }
  t.setup({ settings = { todoLs = settings } })
  t.open('PLAN.md')
  local session = assert(vim.env.TODO_LS_TEST_SESSION, 'TODO_LS_TEST_SESSION is not set')
  t.wait('the supervisor connected', function()
    local status = require('todo_ls').status()
    local supervisor = status and status.supervisor
    return type(supervisor) == 'table' and type(supervisor.host) == 'table' and supervisor.host.connected
  end, 30000)
  -- The test prompts the agent now: todo-ls sees its turn from the start.
  local ready = assert(vim.env.TODO_LS_TEST_READY, 'TODO_LS_TEST_READY is not set')
  vim.fn.writefile({ 'connected' }, ready)
  local function session_state()
    local status = require('todo_ls').status()
    for _, s in ipairs((status and type(status.supervisor) == 'table' and status.supervisor.sessions) or {}) do
      if s.id == session then
        return s.state
      end
    end
  end
  -- The agent's turn: working, then idle with the plan's items open.
  t.wait('the session working', function()
    return session_state() == 'working'
  end, 30000)
  t.wait('the session idle after its turn', function()
    return session_state() == 'idle'
  end, 30000)
  vim.cmd('TodoLs panel')
  local line = t.wait('the session in the panel', function()
    return panel_line_with('SESSION ' .. session)
  end)
  t.data.session_line = panel_lines()[line]
  -- OpenCode may still report the session busy for a moment after its idle event; the user
  -- presses `n` again then, as the answer says.
  t.data.attempts = 0
  repeat
    local seen = #t.messages()
    vim.api.nvim_win_set_cursor(0, { panel_line_with('SESSION ' .. session), 0 })
    press('n')
    t.data.attempts = t.data.attempts + 1
    local answer = t.wait('the answer to n', function()
      return #t.messages() > seen and t.messages()[#t.messages()]
    end)
    if answer:find('is busy', 1, true) then
      vim.wait(500)
    end
  until not answer:find('is busy', 1, true) or t.data.attempts == 10
  t.data.nudged = t.messages()[#t.messages()]
  line = t.wait('the session line again', function()
    return panel_line_with('SESSION ' .. session)
  end)
  vim.api.nvim_win_set_cursor(0, { line, 0 })
  press('s')
  t.data.paused = t.wait_message('paused ' .. session)
  t.data.paused_line = t.wait('the panel shows it paused', function()
    local n = panel_line_with('SESSION ' .. session .. ' paused')
    return n and panel_lines()[n]
  end)
  press('q')
end

return S
