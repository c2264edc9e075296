"""`todo-ls mcp` over stdio through the MCP SDK's client, as OpenCode drives it."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from todo_ls.todos.tools import SESSION_ARG

TODO_LS = Path(sys.executable).with_name("todo-ls")


class Client:
    """Tool calls as (is_error, text)."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session

    async def call(self, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        result = await self.session.call_tool(name, arguments)
        text = "\n".join(getattr(c, "text", "") for c in result.content)
        return bool(result.isError), text

    async def write(self, sid: str | None, todos: object) -> tuple[bool, str]:
        """`todo_write` with the session id the companion plugin would add (None: without)."""
        args: dict[str, Any] = {"todos": todos}
        if sid is not None:
            args[SESSION_ARG] = sid
        return await self.call("todo_write", args)


@contextlib.asynccontextmanager
async def connect(project: Path, state: Path, *args: str) -> AsyncIterator[Client]:
    """`todo-ls mcp` in `project` (or with `args`), over stdio. A context manager, not a
    fixture: the SDK's task group must be left in the task that entered it."""
    env = {**os.environ, "TODO_LS_STATE_DIR": str(state)}
    params = StdioServerParameters(
        command=str(TODO_LS),
        args=["mcp", *(args or ("--directory", str(project)))],
        env=env,
        cwd=str(project),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield Client(session)
