--- The names todo-ls's Neovim client shares with the server (docs/status-and-commands.md), kept in
--- one place as editors/vscode/src/constants.ts keeps them for VS Code.
local M = {}

--- The client's name: `lsp/todo_ls.lua`, `vim.lsp.enable('todo_ls')`, `get_clients({ name = … })`.
M.CLIENT_NAME = 'todo_ls'

--- The notification the server sends once per workspace folder whenever its status changes.
M.STATUS_NOTIFICATION = 'todoLs/status'

--- `workspace/executeCommand` ids implemented by the server; each takes one JSON-object argument.
M.command = {
  toggle = 'todoLs.toggle',
  setState = 'todoLs.setState',
  subscribe = 'todoLs.subscribe',
  unsubscribe = 'todoLs.unsubscribe',
  nudge = 'todoLs.nudge',
  pause = 'todoLs.pause',
  resume = 'todoLs.resume',
  list = 'todoLs.list',
  refresh = 'todoLs.refresh',
  foldDone = 'todoLs.foldDone',
}

--- Task states the server knows, in the order a user picks them (docs/checklists.md).
M.states = { 'open', 'inProgress', 'blocked', 'done', 'canceled' }

--- JSON null arrives as vim.NIL; treat it like a missing field.
function M.value(v)
  if v == vim.NIL then
    return nil
  end
  return v
end

return M
