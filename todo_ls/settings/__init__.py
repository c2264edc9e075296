"""The `todoLs` settings: one table of keys, defaults and bounds, and the readers that use it.

`table` lists every key with its default and bounds; `model` is the full pydantic model the
language server and `todo-ls supervise` validate with; `quick` is the fast reader of the few
keys the Stop hook and `todo-ls check` need, without pydantic (they start at every turn end);
`project_file` reads `todo-ls.toml` and drops what a repository may not set. The per-folder
flow of the language server is its edge, `todo_ls.server.configuration`.

This file imports nothing, so importing `quick` loads neither pydantic nor tomllib.
"""
