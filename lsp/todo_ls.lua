---@brief
--- todo-ls: GFM task lists in subscribed markdown files as a todo list (diagnostics, code actions,
--- inlay hints, code lens, a status line) plus a supervisor that keeps OpenCode agents working
--- until the checklist is done.
---
--- Install the server with `pipx install todo-ls` (or `uv tool install todo-ls`, `pip install todo-ls`).
--- `vim.lsp.enable('todo_ls')` is enough to use this file; `require('todo_ls').setup()` adds the
--- options (inlay hints, keymaps) and `:TodoLs`. Subscribe files with
--- `settings.todoLs.markdownFiles` (paths or globs relative to the workspace folder) or `:TodoLs subscribe`.

-- `todo-ls` on PATH is the installed entry point; without it, the Python module of the current
-- `python3` is the next best guess (a `pip install --user` without the scripts dir on PATH).
local cmd = vim.fn.executable('todo-ls') == 1 and { 'todo-ls' } or { 'python3', '-m', 'todo_ls' }

---@type vim.lsp.Config
return {
  cmd = cmd,
  filetypes = { 'markdown' },
  -- Documented for readers; `root_dir` below decides (markers from `setup{root_markers=…}`,
  -- falling back to the current directory or the file's own directory).
  root_markers = { '.git' },
  root_dir = function(bufnr, on_dir)
    require('todo_ls').root_dir(bufnr, on_dir)
  end,
  -- An empty Lua table would be sent as a JSON array; the server expects an object.
  settings = { todoLs = vim.empty_dict() },
  before_init = function(params, config)
    -- initializationOptions have the same shape as the settings section: sending them saves the
    -- server a round trip before its first status.
    local section = (config.settings or {}).todoLs
    params.initializationOptions = (section and next(section)) and section or vim.empty_dict()
  end,
  handlers = {
    [require('todo_ls.protocol').STATUS_NOTIFICATION] = function(_, result, ctx)
      require('todo_ls')._on_status(ctx.client_id, result)
    end,
  },
  on_exit = function(_, _, client_id)
    -- on_exit runs in a fast event context: no API calls there.
    vim.schedule(function()
      require('todo_ls')._on_status(client_id, nil)
    end)
  end,
}
