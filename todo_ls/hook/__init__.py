"""`todo-ls hook`: the command that agents with Stop hooks (Claude Code, Codex CLI, Gemini CLI)
run at their turn ends and other events (docs/hosts-hooks.md).

`protocol` reads a hook's input and writes its answer (pure), `sources` finds the session's own
todo list, `settings` validates the few settings the hook needs, `core` decides (pure) and `run`
is the edge: stdin, the project file, the store, stdout, the log. Nothing here loads pygls,
httpx or pydantic: the hook runs at every turn end and must start fast.
"""
