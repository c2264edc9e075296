--- :checkhealth todo_ls
local M = {}

local INSTALL = 'Install the server with `pipx install todo-ls` or `uv tool install todo-ls`, '
  .. 'make sure `todo-ls` is on PATH (`pipx ensurepath`, `uv tool update-shell`) and restart Neovim; see |todo_ls-install|'

local function value(v)
  return require('todo_ls')._value(v)
end

local function first_line(text)
  return vim.trim(text or ''):match('[^\n]*$') or ''
end

--- `cmd --version` (a trailing `serve` subcommand would reject the flag).
local function version_cmd(cmd)
  local out = vim.deepcopy(cmd)
  if out[#out] == 'serve' then
    table.remove(out)
  end
  table.insert(out, '--version')
  return out
end

--- Starts the server outside the editor's LSP client (through `vim.lsp.rpc`, which frames the
--- messages) and sends `initialize`, then `shutdown` and `exit`.
---@return table? result the initialize result
---@return string? error
local function probe(cmd, timeout_ms)
  local exit_code
  local ok, rpc = pcall(vim.lsp.rpc.start, cmd, {
    on_exit = function(code)
      exit_code = code
    end,
  })
  if not ok then
    return nil, tostring(rpc)
  end
  local response
  rpc.request('initialize', {
    processId = vim.fn.getpid(),
    rootUri = vim.NIL,
    capabilities = vim.empty_dict(),
    clientInfo = { name = 'Neovim :checkhealth' },
  }, function(err, result)
    response = { err = err, result = result }
  end)
  vim.wait(timeout_ms, function()
    return response ~= nil or exit_code ~= nil
  end, 20)
  if response and response.result then
    local stopped = false
    rpc.request('shutdown', nil, function()
      stopped = true
    end)
    vim.wait(2000, function()
      return stopped or exit_code ~= nil
    end, 20)
    rpc.notify('exit')
    vim.wait(2000, function()
      return exit_code ~= nil
    end, 20)
  end
  if exit_code == nil then
    rpc.terminate()
  end
  if response and response.result then
    return response.result
  end
  if response and response.err then
    return nil, 'initialize failed: ' .. tostring(response.err.message)
  end
  if exit_code ~= nil then
    return nil, ('exited with code %d'):format(exit_code)
  end
  return nil, ('no answer to initialize within %d ms'):format(timeout_ms)
end

local function check_server(cmd)
  local clients = vim.lsp.get_clients({ name = require('todo_ls.protocol').CLIENT_NAME })
  for _, client in ipairs(clients) do
    local info = client.server_info or {}
    vim.health.ok(
      ('server running: %s %s (client %d, root %s)'):format(
        info.name or '?',
        info.version or '?',
        client.id,
        client.root_dir or '-'
      )
    )
  end
  if #clients > 0 then
    return
  end
  local started = vim.uv.hrtime()
  local result, err = probe(cmd, 10000)
  if result then
    local info = result.serverInfo or {}
    vim.health.ok(
      ('server starts: %s %s answered initialize in %d ms'):format(
        info.name or '?',
        info.version or '?',
        (vim.uv.hrtime() - started) / 1e6
      )
    )
  else
    vim.health.error('server does not start: ' .. err, { INSTALL, 'Run `' .. table.concat(cmd, ' ') .. '` to see why' })
  end
end

local function check_supervisor()
  local status = require('todo_ls').status()
  if not status then
    vim.health.warn('no status from the server yet', { 'Open a markdown file of your project to start todo-ls' })
    return
  end
  vim.health.info('status: ' .. (value(status.text) or ''))
  local supervisor = value(status.supervisor) or {}
  local host = value(supervisor.host)
  if supervisor.enabled ~= true then
    vim.health.warn('supervisor is off', { 'Enable it with the setting todoLs.supervisor.enabled = true' })
  elseif not host or host.connected ~= true then
    local where = host and value(host.url) and (' at ' .. host.url) or ''
    local why = host and value(host.error) and (': ' .. host.error) or ''
    vim.health.warn('supervisor not connected to an OpenCode server' .. where .. why, {
      'The OpenCode TUI opens no port unless started with one: run `opencode --port 4096` in this project',
      'or run `opencode serve`, then `opencode attach http://127.0.0.1:4096` in this project',
      'todo-ls finds either on its own; set todoLs.supervisor.url only for a server it cannot see',
    })
  else
    vim.health.ok(
      ('supervisor connected: %s %s at %s, %d session(s)'):format(
        host.kind or '?',
        value(host.version) or '',
        value(host.url) or '?',
        #(supervisor.sessions or {})
      )
    )
  end
  for _, session in ipairs(supervisor.sessions or {}) do
    vim.health.info('session ' .. require('todo_ls').session_line(session))
  end
end

function M.check()
  vim.health.start('todo-ls')
  if vim.fn.has('nvim-0.10') == 1 then
    vim.health.ok('Neovim ' .. tostring(vim.version()))
  else
    vim.health.error('Neovim 0.10 or newer is required')
  end

  local cmd = require('todo_ls').server_cmd()
  if type(cmd) ~= 'table' or type(cmd[1]) ~= 'string' then
    vim.health.warn('the server command is not a list of strings; cannot check it')
    check_supervisor()
    return
  end
  if vim.fn.executable(cmd[1]) ~= 1 then
    vim.health.error(('`%s` is not executable'):format(cmd[1]), { INSTALL, 'or set `cmd` in setup()' })
    return
  end
  vim.health.ok(('executable: %s (command: %s)'):format(vim.fn.exepath(cmd[1]), table.concat(cmd, ' ')))

  local version = version_cmd(cmd)
  local ok, res = pcall(function()
    return vim.system(version, { text = true }):wait(10000)
  end)
  local out = ok and vim.trim(res.stdout or '') or ''
  if ok and res.code == 0 and out:match('^todo%-ls ') then
    vim.health.ok('version: ' .. out)
  else
    local why = ok and first_line(res.stderr ~= '' and res.stderr or res.stdout) or tostring(res)
    vim.health.error(('`%s` failed: %s'):format(table.concat(version, ' '), why), { INSTALL })
  end

  check_server(cmd)
  check_supervisor()
end

return M
