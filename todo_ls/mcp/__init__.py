"""`todo-ls mcp`: the agent's todo tools over MCP on stdio (docs/mcp-todo-tools.md).

`protocol` is the transport-free MCP session (a request line in, answer lines out) and `server`
moves lines between stdin/stdout and it; the tools themselves are `todo_ls.todos.tools`.
"""
