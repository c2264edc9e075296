"""`todo-ls hook`: the command that agents with Stop hooks (Claude Code, Codex CLI, Gemini CLI)
run at their turn ends and other events (docs/hosts-hooks.md).

`hosts` holds one module per agent (its settings, events, input, answer, interrupts,
transcript records, own list and trust step), `protocol` reads a hook's input with it,
`transcript` reads the tail of the agent's transcript, `sources` puts own lists in the store's
shape, `core` decides (pure) and `run` is the edge: stdin, the project file, the store, stdout,
the log; the few settings the hook needs come from `todo_ls.settings.quick`. Nothing here loads
pygls, httpx or pydantic: the hook runs at every turn end and must start fast.
"""
