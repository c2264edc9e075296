"""Command-line entry points that run without an editor, one module per command:
`supervise` (`todo-ls supervise`, the supervisor alone) and `check` (`todo-ls check`, the CI
gate). `todo-ls serve` is `todo_ls.server`, `todo-ls mcp` is `todo_ls.mcp`, `todo-ls hook` is
`todo_ls.hook` and `todo-ls install` is `todo_ls.install`; `todo_ls.cli` dispatches to them.
"""
