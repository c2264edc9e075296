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

--- The objects the server sends (todo_ls/payloads.py declares them, under the same names):
--- the `todoLs/status` payload and each command's answer. `name?` is a field the server may
--- leave out, `vim.NIL` in a type a JSON null (see `M.value`).
--- tests/unit/test_status_payload_contract.py fails when a field differs from the server's.

---@class todo_ls.FileStatus
---@field uri string
---@field open integer
---@field total integer
---@field missing boolean subscribed but not on disk
---@field error? string why the file could not be read

---@class todo_ls.HostStatus
---@field kind string
---@field url string|vim.NIL
---@field connected boolean
---@field version string|vim.NIL
---@field error? string why the last connection attempt failed, while that stands

---@class todo_ls.SessionTodos
---@field open integer
---@field total integer

---@class todo_ls.SessionStatus
---@field id string
---@field host string
---@field title string|vim.NIL
---@field state string
---@field detail string|vim.NIL
---@field open integer
---@field nudges integer
---@field pausedReason string|vim.NIL
---@field todos? todo_ls.SessionTodos only when the session keeps a list of its own

---@class todo_ls.SupervisorStatus
---@field enabled boolean
---@field host todo_ls.HostStatus|vim.NIL null while the supervisor does not run
---@field sessions todo_ls.SessionStatus[]

---@class todo_ls.StatusPayload
---@field workspace string
---@field open integer
---@field done integer
---@field canceled integer
---@field total integer
---@field text string
---@field files todo_ls.FileStatus[] at most 50; `filesTotal` counts them all
---@field filesTotal integer
---@field supervisor todo_ls.SupervisorStatus

---@class todo_ls.OpenItem
---@field uri string
---@field path string
---@field line integer 1-based
---@field state string
---@field text string the item's markdown: what a toggle names it by
---@field name string the text a reader sees (the outline's name); absent from an older server
---@field ref string

---@class todo_ls.SessionItem
---@field sessionID string
---@field index integer
---@field content string as the agent wrote it: what a toggle compares
---@field name string `content` as a reader sees it; absent from an older server
---@field status string
---@field priority string|vim.NIL
---@field readOnly? true only the agent may change the item

---@class todo_ls.ListResult : todo_ls.StatusPayload
---@field items (todo_ls.OpenItem|todo_ls.SessionItem)[]
---@field itemsTotal integer

---@class todo_ls.EditResult
---@field applied boolean
---@field state string|vim.NIL
---@field line? integer
---@field reason? string

---@class todo_ls.FilesResult
---@field files string[]

---@class todo_ls.NudgeSkip
---@field sessionID string|vim.NIL
---@field reason string

---@class todo_ls.NudgeResult
---@field sent string[]
---@field skipped todo_ls.NudgeSkip[]

---@class todo_ls.SessionChange
---@field id string
---@field state string|vim.NIL

---@class todo_ls.SessionsResult
---@field sessions todo_ls.SessionChange[]
---@field reason? string

---@class todo_ls.RefreshResult
---@field files integer

---@class todo_ls.LineRange
---@field startLine integer
---@field endLine integer

---@class todo_ls.FoldDoneResult
---@field ranges todo_ls.LineRange[]

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
