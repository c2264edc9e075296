--- `:TodoLs fold`: folds the runs of finished items (`todoLs.foldDone`) in the current window.
local command = require('todo_ls.protocol').command

local M = {}

--- Folds each run of two or more consecutive done or canceled items of the buffer in the current
--- window, as closed manual folds: a window on another 'foldmethod' is switched to manual, which
--- keeps the folds it had. A run that is already folded closed is left as it is.
---@param bufnr? integer
---@param on_done? fun(folded: integer)
function M.fold_done(bufnr, on_done)
  local todo = require('todo_ls')
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = todo._need_client(bufnr, true)
  if not client then
    return
  end
  local win = vim.api.nvim_get_current_win()
  todo._execute(client, command.foldDone, { uri = vim.uri_from_bufnr(bufnr) }, bufnr, function(result)
    if not vim.api.nvim_win_is_valid(win) or vim.api.nvim_win_get_buf(win) ~= bufnr then
      return
    end
    local folded = 0
    vim.api.nvim_win_call(win, function()
      if vim.wo.foldmethod ~= 'manual' then
        vim.wo.foldmethod = 'manual'
      end
      for _, range in ipairs(result.ranges or {}) do
        local first, last = range.startLine + 1, range.endLine + 1
        if not (vim.fn.foldclosed(first) == first and vim.fn.foldclosedend(first) == last) then
          vim.cmd(('%d,%dfold'):format(first, last))
        end
        folded = folded + 1
      end
    end)
    vim.notify(
      folded == 0 and 'todo-ls: no run of done items to fold' or ('todo-ls: folded %d run(s) of done items'):format(folded),
      vim.log.levels.INFO,
      { title = 'todo-ls' }
    )
    if on_done then
      on_done(folded)
    end
  end)
end

return M
