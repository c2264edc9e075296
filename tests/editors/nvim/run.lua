-- Runs one end-to-end scenario of the todo-ls Neovim plugin against the real server:
--   nvim --headless --clean -l run.lua <scenario>
-- Inputs (environment): TODO_LS_TEST_PLUGIN (plugin folder), TODO_LS_TEST_CMD (server command as
-- a JSON list), TODO_LS_TEST_RESULT (where to write the result JSON). The current directory is the
-- workspace. The result holds what the scenario observed (`data`), every vim.notify message and
-- the first error; the exit code is 1 on any error. tests/editors/test_nvim.py asserts on it.
local scenario_name = assert(arg[1], 'usage: run.lua <scenario>')
local plugin = assert(vim.env.TODO_LS_TEST_PLUGIN, 'TODO_LS_TEST_PLUGIN is not set')
local result_path = assert(vim.env.TODO_LS_TEST_RESULT, 'TODO_LS_TEST_RESULT is not set')

vim.opt.runtimepath:prepend(plugin)
vim.opt.swapfile = false
if vim.env.TODO_LS_TEST_DEBUG then
  vim.lsp.set_log_level('debug') -- every message in $XDG_STATE_HOME/nvim/lsp.log
end
-- What a user's startup would do: source the plugin/ script of every 'runtimepath' entry.
vim.cmd.runtime('plugin/todo_ls.lua')

local started = vim.uv.hrtime()
local result = { scenario = scenario_name, data = {}, notifications = {}, steps = {} }

local function elapsed_ms()
  return math.floor((vim.uv.hrtime() - started) / 1e6)
end

-- Messages the plugin (and Neovim's LSP client) show the user.
vim.notify = function(msg, level)
  table.insert(result.notifications, { msg = msg, level = level or vim.log.levels.INFO })
end

---@class Test
local t = { data = result.data, plugin = plugin }

--- Records that a step passed, with its time.
function t.step(name)
  table.insert(result.steps, { name = name, ms = elapsed_ms() })
end

--- Waits until `fn()` returns a truthy value (returned), or fails with `what`.
function t.wait(what, fn, timeout_ms)
  local value
  local ok = vim.wait(timeout_ms or 10000, function()
    value = fn()
    return value
  end, 10)
  if not ok then
    error('timed out waiting for ' .. what, 0)
  end
  t.step(what)
  return value
end

function t.server_cmd()
  local cmd = assert(vim.env.TODO_LS_TEST_CMD, 'TODO_LS_TEST_CMD is not set')
  return vim.json.decode(cmd)
end

--- setup() with the test's server command and `opts`.
function t.setup(opts)
  require('todo_ls').setup(vim.tbl_deep_extend('force', { cmd = t.server_cmd() }, opts or {}))
end

--- Opens `path` and waits for the todo-ls client to attach and initialize.
function t.open(path)
  vim.cmd.edit(path)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = t.wait('client attached to ' .. path, function()
    -- Neovim reports a server that dies (for example on start-up) with this message.
    for _, msg in ipairs(t.messages()) do
      if msg:find('quit with exit code', 1, true) then
        error('server exited: ' .. msg, 0)
      end
    end
    local client = vim.lsp.get_clients({ bufnr = bufnr, name = 'todo_ls' })[1]
    return client and client.initialized and client
  end)
  return bufnr, client
end

--- Moves the cursor to the first line containing `text` (plain) and returns its number (1-based).
function t.goto_line(text)
  for lnum, line in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    if line:find(text, 1, true) then
      vim.api.nvim_win_set_cursor(0, { lnum, 0 })
      return lnum
    end
  end
  error('no line contains ' .. text, 0)
end

function t.line(lnum)
  return vim.api.nvim_buf_get_lines(0, lnum - 1, lnum, false)[1]
end

--- Waits until line `lnum` of the current buffer is `expected`.
function t.wait_line(lnum, expected)
  t.wait(('line %d to be %q'):format(lnum, expected), function()
    return t.line(lnum) == expected
  end)
end

function t.diagnostics(bufnr)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(out, {
      lnum = d.lnum,
      col = d.col,
      end_lnum = d.end_lnum,
      end_col = d.end_col,
      message = d.message,
      source = d.source,
      code = d.code,
      severity = d.severity,
    })
  end
  table.sort(out, function(a, b)
    return a.lnum < b.lnum
  end)
  return out
end

--- Waits until the status line contains `text` (plain) and returns it.
function t.wait_status(text)
  return t.wait(('status line with %q'):format(text), function()
    local line = require('todo_ls').statusline()
    return line:find(text, 1, true) and line
  end)
end

function t.messages()
  local out = {}
  for _, n in ipairs(result.notifications) do
    table.insert(out, n.msg)
  end
  return out
end

--- Waits for a vim.notify message containing `text` (plain) and returns it.
function t.wait_message(text)
  return t.wait(('message with %q'):format(text), function()
    for _, msg in ipairs(t.messages()) do
      if msg:find(text, 1, true) then
        return msg
      end
    end
  end)
end

local function finish(err)
  result.error = err
  result.elapsed_ms = elapsed_ms()
  local clients = vim.lsp.get_clients()
  for _, client in ipairs(clients) do
    client:stop()
  end
  vim.wait(3000, function()
    return vim.iter(clients):all(function(c)
      return c:is_stopped()
    end)
  end, 10)
  local file = assert(io.open(result_path, 'w'))
  file:write(vim.json.encode(result))
  file:close()
  vim.cmd(err and 'cquit! 1' or 'qall!')
end

local scenarios = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'scenarios.lua'))
local scenario = scenarios[scenario_name]
if not scenario then
  finish('unknown scenario ' .. scenario_name)
end
local ok, err = xpcall(scenario, function(e)
  return type(e) == 'string' and e or vim.inspect(e)
end, t)
finish(not ok and err or nil)
