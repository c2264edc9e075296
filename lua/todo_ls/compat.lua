--- What differs between Neovim 0.10 and 0.11+: the shape of `Client:request` and how the client
--- is configured and enabled (0.10 has no `vim.lsp.config` / `vim.lsp.enable`).
local protocol = require('todo_ls.protocol')

local M = {}

M.has_011 = vim.fn.has('nvim-0.11') == 1

--- Client:request is a method from 0.11 on and a plain function field before.
function M.request(client, method, params, handler, bufnr)
  if M.has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

--- The `lsp/todo_ls.lua` config table (Neovim 0.10 has no vim.lsp.config to read it for us).
local function lsp_file_config()
  local file = vim.api.nvim_get_runtime_file('lsp/' .. protocol.CLIENT_NAME .. '.lua', false)[1]
  return file and dofile(file) or {}
end

--- The client's configuration as Neovim resolves it, before setup()'s options.
---@return table?
function M.lsp_config()
  return M.has_011 and vim.lsp.config[protocol.CLIENT_NAME] or lsp_file_config()
end

--- Neovim 0.10: start the client from a FileType autocmd instead.
local function enable_010(group, overrides)
  local config = vim.tbl_deep_extend('force', lsp_file_config(), overrides, { name = protocol.CLIENT_NAME })
  local choose_root = config.root_dir
  local function start(bufnr)
    if vim.bo[bufnr].buftype ~= '' then
      return
    end
    choose_root(bufnr, function(root)
      local client_config = vim.deepcopy(config)
      client_config.root_dir = root
      vim.lsp.start(client_config, { bufnr = bufnr })
    end)
  end
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = config.filetypes,
    callback = function(ev)
      start(ev.buf)
    end,
  })
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(config.filetypes, vim.bo[bufnr].filetype) then
      start(bufnr)
    end
  end
end

--- Configures the client with `overrides` on top of `lsp/todo_ls.lua` and enables it for
--- markdown buffers (also those already open).
---@param group integer the augroup setup() owns (cleared when it runs again)
---@param overrides table
function M.enable(group, overrides)
  if M.has_011 then
    vim.lsp.config(protocol.CLIENT_NAME, overrides)
    vim.lsp.enable(protocol.CLIENT_NAME)
  else
    enable_010(group, overrides)
  end
end

return M
