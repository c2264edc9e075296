--- todo-ls for Neovim: setup(), the status line, and the helpers behind `:TodoLs`.
---
--- The language server does the work; this module is the public face of the client's parts:
---   todo_ls.config    options, setup(), the workspace folder of a buffer
---   todo_ls.status    the last `todoLs/status` of each client and folder, and its texts
---   todo_ls.actions   the server commands behind `:TodoLs` and this API
---   todo_ls.texts     what the user reads about the server's answers
---   todo_ls.protocol  the names shared with the server (command ids, states)
---   todo_ls.compat    what differs on Neovim 0.10
---   todo_ls.command   the `:TodoLs` user command (parsing, completion)
local actions = require('todo_ls.actions')
local compat = require('todo_ls.compat')
local config = require('todo_ls.config')
local protocol = require('todo_ls.protocol')
local status = require('todo_ls.status')

local M = {}

--- Task states the server knows (docs/checklists.md).
M.states = protocol.states

--- The options in effect (those of the last setup()).
---@type todo_ls.Options
M.options = config.options

--- Configures and enables the client; safe to call again (the last options win).
---@param opts? todo_ls.Options
function M.setup(opts)
  config.setup(opts)
  M.options = config.options
end

M.root_dir = config.root_dir
M.server_cmd = config.server_cmd

M.status = status.status
M.statusline = status.statusline
M.describe = status.describe
M.session_line = status.session_line
M.client = status.client
M.pull_diagnostics = status.pull_diagnostics

M.toggle = actions.toggle
M.set_state = actions.set_state
M.subscribe = actions.subscribe
M.list = actions.list
M.toggle_session = actions.toggle_session
M.refresh = actions.refresh
M.supervisor = actions.supervisor

--- Opens the todo panel: the agent sessions and every subscribed file with its items, kept live
--- by the server's status (`:help todo_ls-panel`).
function M.panel()
  require('todo_ls.panel').open()
end

-- For lsp/todo_ls.lua, the panel, fold, install and health modules, and configurations that
-- copied them.
M._on_status = status.on_status
M._request = compat.request
M._execute = actions.execute
M._need_client = actions.need_client
M._value = protocol.value

return M
