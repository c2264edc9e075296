--- `:TodoLs install <host> [user]`: connects an agent by running the server's own
--- `install <host>` with the executable Neovim runs for the server, for the workspace folder.
local M = {}

--- The hosts `todo-ls install` knows (the server says so when it does not know one).
M.hosts = { 'claude-code', 'codex', 'gemini-cli', 'qwen-code', 'copilot-cli', 'droid', 'opencode' }

--- The workspace folder of the buffer: the one its status names, else the client's root, else
--- the current directory.
local function folder(bufnr)
  local todo = require('todo_ls')
  local status = todo.status(bufnr)
  local workspace = status and todo._value(status.workspace)
  if workspace then
    return vim.uri_to_fname(workspace)
  end
  local client = todo.client(bufnr)
  return client and client.root_dir or vim.fn.getcwd()
end

--- The command line: the server command (`setup{cmd}` or the lsp config's `cmd`) without a
--- trailing `serve`, then `install <host> --directory <folder> --scope project|user`.
---@return string[]? argv, string? error
function M.command(host, scope, directory)
  local cmd = require('todo_ls').server_cmd()
  if type(cmd) ~= 'table' or #cmd == 0 then
    return nil, 'the server command is not a list of arguments (set `cmd` in setup())'
  end
  local argv = vim.deepcopy(cmd)
  if argv[#argv] == 'serve' then
    table.remove(argv)
  end
  vim.list_extend(argv, { 'install', host, '--directory', directory, '--scope', scope })
  return argv
end

--- Runs the install and shows its report: what it changed and the host's next step.
---@param host string
---@param scope? 'project'|'user' default 'project'
---@param bufnr? integer
---@param on_done? fun(code: integer, output: string)
function M.install(host, scope, bufnr, on_done)
  scope = scope or 'project'
  if scope ~= 'project' and scope ~= 'user' then
    vim.notify(('todo-ls: :TodoLs install <host> [user], not %q'):format(scope), vim.log.levels.ERROR)
    return
  end
  local directory = folder(bufnr)
  local argv, err = M.command(host, scope, directory)
  if not argv then
    vim.notify('todo-ls: ' .. err, vim.log.levels.ERROR, { title = 'todo-ls' })
    return
  end
  vim.system(argv, { text = true, cwd = directory }, function(out)
    vim.schedule(function()
      local output = vim.trim((out.stdout or '') .. '\n' .. (out.stderr or ''))
      local failed = out.code ~= 0
      local message = failed and ('install %s failed (exit %d): %s'):format(host, out.code, output) or output
      vim.notify('todo-ls: ' .. message, failed and vim.log.levels.ERROR or vim.log.levels.INFO, { title = 'todo-ls' })
      if on_done then
        on_done(out.code, output)
      end
    end)
  end)
end

return M
