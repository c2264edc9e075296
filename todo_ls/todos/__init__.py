"""A session's own todo list: the one the agent keeps with `todo_write` (or its host's own
tool), as opposed to the checklist items of subscribed markdown files (`todo_ls.checklist`).

- `model`: pure; the list's items, `todo_write`'s rules, its renderings (docs/mcp-todo-tools.md).
- `tools`: the `todo_*` tools behind `todo-ls mcp`, over the shared store.
- `host_lists`: pure; a hook host's own list (from its transcript or tool input) in the store's
  shape (docs/hosts-hooks.md).
- `editor_list`: pure; the list the editor shows (store and host items combined), the status
  entry's `todos` and `todoLs.list`'s session items (docs/status-and-commands.md).

This package imports nothing at its top: the Stop hook imports `host_lists` on its fast path.
"""
