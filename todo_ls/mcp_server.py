"""`todo-ls mcp`: the agent todo tools over MCP on stdio (server name `todo`).

Only this subcommand imports the MCP SDK (about 0.3-0.5 s of imports): the language server and
the hook never load it. The tools themselves are in `todo_ls.todo_tools`; this module declares
their input schemas and turns `ToolError` into a tool error answer (`isError`), so a bad call
never ends the server.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from todo_ls import __version__
from todo_ls.agent_todos import MAX_CONTENT, MAX_TODOS, PRIORITIES, STATUSES
from todo_ls.store import Store
from todo_ls.todo_tools import MAX_FILES, TodoTools, ToolError, read_settings
from todo_ls.workspace import normalize

log = logging.getLogger(__name__)

SERVER_NAME = "todo"

_FILES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "files": {
            "type": "array",
            "maxItems": MAX_FILES,
            "items": {
                "type": "object",
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "A .md file, relative to the project folder or absolute",
                    }
                },
                "required": ["path"],
            },
        }
    },
    "required": ["files"],
}

TOOLS = [
    types.Tool(
        name="todo_write",
        description=(
            "Replace this session's todo list. Send the complete list every time (items left "
            "out are removed). Use it to plan multi-step work and update it as items move: "
            "at most one item in_progress, mark items completed as soon as they are done, "
            "canceled when they no longer apply. Answers with the canonical list."
        ),
        inputSchema={
            "type": "object",
            "properties": {
                "todos": {
                    "type": "array",
                    "maxItems": MAX_TODOS,
                    "items": {
                        "type": "object",
                        "properties": {
                            "content": {"type": "string", "maxLength": MAX_CONTENT},
                            "status": {"type": "string", "enum": list(STATUSES)},
                            "priority": {"type": "string", "enum": list(PRIORITIES)},
                        },
                        "required": ["content", "status"],
                    },
                }
            },
            "required": ["todos"],
        },
    ),
    types.Tool(
        name="todo_read",
        description=(
            "Read this session's todo list together with the open items (path:line) of the "
            "project's subscribed markdown checklists. The list is also in your system prompt; "
            "use this to double-check the exact state."
        ),
        inputSchema={"type": "object", "properties": {}},
    ),
    types.Tool(
        name="todo_subscribe",
        description=(
            "Subscribe markdown files of this project: their GFM checklist items (- [ ]) "
            "count as todos until ticked (- [x]). Answers with the subscribed files."
        ),
        inputSchema=_FILES_SCHEMA,
    ),
    types.Tool(
        name="todo_unsubscribe",
        description="Stop counting markdown files' checklists as todos of this project.",
        inputSchema=_FILES_SCHEMA,
    ),
]


def build_server(tools: TodoTools) -> Server[Any, Any]:
    """The MCP server over `tools` (also used by tests with in-memory streams)."""
    server: Server[Any, Any] = Server(SERVER_NAME, version=__version__)

    @server.list_tools()  # type: ignore[no-untyped-call, untyped-decorator]
    async def list_tools() -> list[types.Tool]:
        return TOOLS

    # Input is checked by the tools themselves: their messages name the bad value and say
    # what to send instead, which the SDK's schema check does not.
    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def call_tool(name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        try:
            text = tools.call(name, arguments)
        except ToolError as err:
            log.info("todo-ls mcp: %s refused: %s", name, err)
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=str(err))], isError=True
            )
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    return server


async def _serve(tools: TodoTools) -> None:
    server = build_server(tools)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def run_mcp(directory: str | None) -> int:
    """Entry point of `todo-ls mcp`: serve until stdin closes."""
    folder = normalize(directory or os.getcwd())
    loaded = read_settings(folder)
    for warning in loaded.warnings:
        log.warning("todo-ls mcp: %s", warning)
    state_dir = loaded.settings.state_dir
    store = Store.open(Path(state_dir).expanduser() if state_dir else None)
    try:
        anyio.run(_serve, TodoTools(folder, store))
    finally:
        store.close()
    return 0
