--- The options of setup() and setup() itself: the client's configuration, its workspace folder
--- and the buffer-local extras (inlay hints, keymaps) of each attached buffer.
local compat = require('todo_ls.compat')
local protocol = require('todo_ls.protocol')

local M = {}

---@class todo_ls.Options
---@field cmd? string[] server command; nil = `todo-ls` on PATH, else `python3 -m todo_ls`
---@field settings? table `{ todoLs = { … } }`, the server settings (docs/settings.md)
---@field root_markers? string[] files or folders that mark the workspace root
---@field inlay_hints? boolean enable inlay hints (`3/7 done`) in attached buffers
---@field keymaps? table<string, string> normal-mode `lhs` -> `:TodoLs` subcommand, buffer-local
local defaults = {
  cmd = nil,
  settings = { todoLs = {} },
  root_markers = { '.git' },
  inlay_hints = false,
  keymaps = {},
}

--- The options in effect: the defaults until setup() runs, then the last setup()'s.
---@type todo_ls.Options
M.options = vim.deepcopy(defaults)

--- Decides the workspace folder of a markdown buffer: the nearest root marker, else the current
--- directory when the file is below it, else the file's own directory. Buffers that are not files
--- on disk (no name, `scheme://` names) get no client.
---@param bufnr integer
---@param on_dir fun(root_dir?: string)
function M.root_dir(bufnr, on_dir)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return
  end
  local root = vim.fs.root(bufnr, M.options.root_markers)
  if not root then
    local file = vim.fs.normalize(vim.fn.fnamemodify(name, ':p'))
    local cwd = vim.fs.normalize(vim.fn.getcwd())
    -- `/` or the home directory as a workspace would make every glob a walk over the disk.
    local usable = cwd ~= '/' and cwd ~= vim.fs.normalize(vim.env.HOME or '')
    root = (usable and file:sub(1, #cwd + 1) == cwd .. '/') and cwd or vim.fs.dirname(file)
  end
  on_dir(root)
end

--- The server command in effect (for :checkhealth and `:TodoLs install`).
---@return string[]|fun(...)|nil
function M.server_cmd()
  if M.options.cmd then
    return M.options.cmd
  end
  local config = compat.lsp_config()
  return config and config.cmd
end

--- Buffer-local extras of a newly attached buffer: inlay hints (once the server is ready) and
--- the keymaps of the options.
local function on_attach(bufnr, client)
  if M.options.inlay_hints and vim.lsp.inlay_hint then
    require('todo_ls.status').enable_hints_when_ready(bufnr, client.id)
  end
  for lhs, subcommand in pairs(M.options.keymaps) do
    vim.keymap.set('n', lhs, '<Cmd>TodoLs ' .. subcommand .. '<CR>', { buffer = bufnr, desc = 'todo-ls: ' .. subcommand })
  end
end

--- Configures and enables the client; safe to call again (the last options win).
---@param opts? todo_ls.Options
function M.setup(opts)
  M.options = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  local settings = M.options.settings
  if next(settings.todoLs or {}) == nil then
    settings.todoLs = vim.empty_dict() -- an empty Lua table would go out as a JSON array
  end

  local group = vim.api.nvim_create_augroup('todo_ls', { clear = true })
  vim.api.nvim_create_autocmd('LspAttach', {
    group = group,
    callback = function(ev)
      local client = vim.lsp.get_client_by_id(ev.data.client_id)
      if client and client.name == protocol.CLIENT_NAME then
        on_attach(ev.buf, client)
      end
    end,
  })
  compat.enable(group, { settings = settings, cmd = M.options.cmd })
  -- Plugin managers that add this folder to 'runtimepath' late never source plugin/.
  if vim.fn.exists(':TodoLs') ~= 2 then
    vim.cmd.runtime('plugin/todo_ls.lua')
  end
end

return M
