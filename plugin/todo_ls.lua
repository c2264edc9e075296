-- :TodoLs, the user command of todo-ls. Everything else loads on first use.
if vim.g.loaded_todo_ls then
  return
end
vim.g.loaded_todo_ls = true

vim.api.nvim_create_user_command('TodoLs', function(opts)
  require('todo_ls.command').run(opts)
end, {
  nargs = '+',
  range = true,
  desc = 'todo-ls: panel|toggle|done|cancel|state|subscribe|unsubscribe|list|fold|refresh|status|nudge|pause|resume|install',
  complete = function(arglead, cmdline)
    return require('todo_ls.command').complete(arglead, cmdline)
  end,
})
