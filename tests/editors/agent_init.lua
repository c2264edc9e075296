-- Neovim's init for tests/editors/test_editor_agent.py: the todo-ls plugin with the status in the
-- status line, diagnostics as virtual text and inlay hints on, as a user would configure it.
-- Inputs (environment): TODO_LS_TEST_PLUGIN (plugin folder), TODO_LS_TEST_CMD (server command,
-- JSON list), TODO_LS_TEST_SETTINGS (the `settings` table, JSON).
vim.opt.runtimepath:prepend(vim.env.TODO_LS_TEST_PLUGIN)
vim.cmd.runtime('plugin/todo_ls.lua')
vim.o.swapfile = false
vim.o.termguicolors = true
vim.o.laststatus = 2
vim.o.statusline = "%f %m%=%{v:lua.require'todo_ls'.statusline()} "
vim.diagnostic.config({ virtual_text = true })

-- Every status the plugin received, in order, so the test sees short-lived states too
-- (polling the status line from outside could miss a state that lasts 300 ms).
_G.todo_ls_seen = {}
vim.api.nvim_create_autocmd('User', {
  pattern = 'TodoLsStatus',
  callback = function(ev)
    local status = ev.data.status
    if type(status) ~= 'table' then
      return
    end
    local sessions = {}
    local supervisor = status.supervisor
    if type(supervisor) == 'table' and type(supervisor.sessions) == 'table' then
      for _, session in ipairs(supervisor.sessions) do
        table.insert(sessions, { id = session.id, state = session.state, detail = session.detail })
      end
    end
    table.insert(_G.todo_ls_seen, { text = status.text, sessions = sessions })
  end,
})

require('todo_ls').setup({
  cmd = vim.json.decode(vim.env.TODO_LS_TEST_CMD),
  settings = vim.json.decode(vim.env.TODO_LS_TEST_SETTINGS),
  inlay_hints = true,
})
