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

--- The help file: tags generated by :helptags resolve.
function S.help(t)
  vim.cmd.helptags(vim.fs.joinpath(t.plugin, 'doc'))
  t.data.tags = {}
  for _, tag in ipairs({ 'todo_ls', ':TodoLs', 'todo_ls.setup()', 'todo_ls.statusline()', 'todo_ls.status()' }) do
    vim.cmd.help(tag)
    local line = vim.api.nvim_get_current_line()
    t.data.tags[tag] = { buftype = vim.bo.buftype, line = line }
    vim.cmd.helpclose()
  end
end

return S
