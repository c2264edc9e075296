--- `:TodoLs {subcommand} [arg]`: parsing and completion.
local M = {}

local function todo()
  return require('todo_ls')
end

local function lines(opts)
  return { line1 = opts.line1, line2 = opts.line2 }
end

---@type table<string, {run: fun(opts: table, arg?: string), complete?: fun(arglead: string): string[]}>
local subcommands = {
  toggle = {
    run = function(opts)
      todo().toggle(lines(opts))
    end,
  },
  done = {
    run = function(opts)
      todo().set_state('done', lines(opts))
    end,
  },
  cancel = {
    run = function(opts)
      todo().set_state('canceled', lines(opts))
    end,
  },
  state = {
    run = function(opts, arg)
      if not arg then
        vim.notify('todo-ls: :TodoLs state {' .. table.concat(todo().states, '|') .. '}', vim.log.levels.ERROR)
        return
      end
      todo().set_state(arg, lines(opts))
    end,
    complete = function()
      return todo().states
    end,
  },
  subscribe = {
    run = function(_, arg)
      todo().subscribe(true, arg)
    end,
    complete = function(arglead)
      return vim.fn.getcompletion(arglead, 'file')
    end,
  },
  unsubscribe = {
    run = function(_, arg)
      todo().subscribe(false, arg)
    end,
    complete = function(arglead)
      return vim.fn.getcompletion(arglead, 'file')
    end,
  },
  list = {
    run = function()
      todo().list()
    end,
  },
  refresh = {
    run = function()
      todo().refresh()
    end,
  },
  panel = {
    run = function()
      todo().panel()
    end,
  },
  fold = {
    run = function()
      require('todo_ls.fold').fold_done()
    end,
  },
  install = {
    run = function(opts, arg)
      if not arg then
        vim.notify('todo-ls: :TodoLs install {' .. table.concat(require('todo_ls.install').hosts, '|') .. '} [user]', vim.log.levels.ERROR)
        return
      end
      require('todo_ls.install').install(arg, opts.fargs[3])
    end,
    complete = function()
      return require('todo_ls.install').hosts
    end,
  },
  status = {
    run = function()
      vim.notify(table.concat(todo().describe(), '\n'), vim.log.levels.INFO, { title = 'todo-ls' })
    end,
  },
}

--- Session ids from the last status, for nudge/pause/resume.
local function session_ids()
  local ids = {}
  local status = todo().status()
  local supervisor = status and status.supervisor
  if type(supervisor) == 'table' then
    for _, session in ipairs(supervisor.sessions or {}) do
      table.insert(ids, session.id)
    end
  end
  return ids
end

for _, action in ipairs({ 'nudge', 'pause', 'resume' }) do
  subcommands[action] = {
    run = function(_, arg)
      todo().supervisor(action, arg)
    end,
    complete = session_ids,
  }
end

--- Names of the subcommands, sorted.
---@return string[]
function M.names()
  local names = vim.tbl_keys(subcommands)
  table.sort(names)
  return names
end

--- Runs `:TodoLs` with the user-command `opts` (fargs, line1, line2).
---@param opts table
function M.run(opts)
  local name, arg = opts.fargs[1], opts.fargs[2]
  local subcommand = subcommands[name]
  if not subcommand then
    vim.notify(
      ('todo-ls: unknown subcommand %q (one of %s)'):format(tostring(name), table.concat(M.names(), ', ')),
      vim.log.levels.ERROR
    )
    return
  end
  subcommand.run(opts, arg)
end

--- Completion for `:TodoLs`.
---@param arglead string
---@param cmdline string
---@return string[]
function M.complete(arglead, cmdline)
  local words = vim.split(cmdline:gsub('^%A*%a+!?%s*', '', 1), '%s+', { trimempty = true })
  local typing_first = #words == 0 or (#words == 1 and arglead ~= '')
  local candidates
  if typing_first then
    candidates = M.names()
  else
    local subcommand = subcommands[words[1]]
    candidates = subcommand and subcommand.complete and subcommand.complete(arglead) or {}
  end
  return vim.tbl_filter(function(c)
    return vim.startswith(c, arglead)
  end, candidates)
end

return M
