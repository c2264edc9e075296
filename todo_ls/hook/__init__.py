"""`todo-ls hook`: the command that agents with Stop hooks (Claude Code, Codex CLI, Gemini CLI)
run at their turn ends and other events (docs/hosts-hooks.md).

`hosts` holds one module per agent (its settings, events, input, answer, interrupts,
transcript records, own list and trust step), `protocol` reads a hook's input with it,
`transcript` reads the tail of the agent's transcript, `core` decides (pure) and `run` is the
edge: stdin, the project file, the store, stdout, the log. The own lists come out in the store's
shape through `todo_ls.todos.host_lists`; the few settings the hook needs come from
`todo_ls.settings.quick`. Nothing here loads pygls, httpx or pydantic: the hook runs at every
turn end and must start fast.
"""
