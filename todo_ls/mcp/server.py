"""`todo-ls mcp`: the agent todo tools over MCP on stdio (server name `todo`).

The tools are in `todo_ls.todos.tools` and the protocol in `todo_ls.mcp.protocol`; this module
declares the tools' input schemas, turns `ToolError` into a tool error answer (`isError`), so a
bad call never ends the server, and moves lines between stdin, the session and stdout.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import IO, Any

from todo_ls import __version__
from todo_ls.mcp.protocol import INVALID_REQUEST, McpSession, error_line
from todo_ls.store import Store
from todo_ls.todos.model import MAX_CONTENT, MAX_TODOS, PRIORITIES, STATUSES
from todo_ls.todos.tools import MAX_FILES, TodoTools, ToolError, read_settings
from todo_ls.workspace import normalize

log = logging.getLogger(__name__)

SERVER_NAME = "todo"
# The longest line read: a full `todo_write` (200 items of 2000 characters) is under 3 MB even
# with every character escaped; a longer line is refused without being held in memory.
MAX_LINE = 8 * 1024 * 1024
_CHUNK = 64 * 1024

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

TOOLS: list[dict[str, Any]] = [
    {
        "name": "todo_write",
        "description": (
            "Replace this session's todo list. Send the complete list every time (items left "
            "out are removed). Use it to plan multi-step work and update it as items move: "
            "at most one item in_progress, mark items completed as soon as they are done, "
            "canceled when they no longer apply. Answers with the canonical list."
        ),
        "inputSchema": {
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
    },
    {
        "name": "todo_read",
        "description": (
            "Read this session's todo list together with the open items (path:line) of the "
            "project's subscribed markdown checklists. The list is also in your system prompt; "
            "use this to double-check the exact state."
        ),
        "inputSchema": {"type": "object", "properties": {}},
    },
    {
        "name": "todo_subscribe",
        "description": (
            "Subscribe markdown files of this project: their GFM checklist items (- [ ]) "
            "count as todos until ticked (- [x]). Answers with the subscribed files."
        ),
        "inputSchema": _FILES_SCHEMA,
    },
    {
        "name": "todo_unsubscribe",
        "description": "Stop counting markdown files' checklists as todos of this project.",
        "inputSchema": _FILES_SCHEMA,
    },
]


def build_session(tools: TodoTools) -> McpSession:
    """The MCP session over `tools`. Input is checked by the tools themselves: their messages
    name the bad value and say what to send instead."""

    def call_tool(name: str, arguments: object) -> tuple[bool, str]:
        try:
            return False, tools.call(name, arguments)
        except ToolError as err:
            log.info("todo-ls mcp: %s refused: %s", name, err)
            return True, str(err)

    return McpSession(SERVER_NAME, __version__, TOOLS, call_tool)


def serve(session: McpSession, stdin: IO[bytes], stdout: IO[bytes]) -> None:
    """Answer each line of `stdin` on `stdout`, in order, until `stdin` ends."""
    while True:
        line = stdin.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            skipped = len(line) + _skip_line(stdin)
            answer: bytes | None = error_line(
                INVALID_REQUEST,
                f"a message of {skipped} bytes is over the {MAX_LINE} byte limit; it was skipped",
            )
        else:
            answer = session.handle_line(line.rstrip(b"\r\n"))
        if answer is not None:
            try:
                stdout.write(answer + b"\n")
                stdout.flush()
            except BrokenPipeError:
                return  # the client is gone


def _skip_line(stdin: IO[bytes]) -> int:
    """Reads and drops the rest of the current line; the number of bytes dropped."""
    dropped = 0
    while True:
        chunk = stdin.readline(_CHUNK)
        dropped += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            return dropped


def _protocol_stdout() -> IO[bytes]:
    """The real stdout, for the protocol only: from here on anything else printed (by this
    process or a library it loads) goes to stderr instead of breaking the stream."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    return out


def run_mcp(directory: str | None) -> int:
    """Entry point of `todo-ls mcp`: serve until stdin closes."""
    stdout = _protocol_stdout()
    folder = normalize(directory or os.getcwd())
    loaded = read_settings(folder)
    for warning in loaded.warnings:
        log.warning("todo-ls mcp: %s", warning)
    store = Store.open()  # the environment's state folder: never the project file's
    try:
        serve(build_session(TodoTools(folder, store)), sys.stdin.buffer, stdout)
    except KeyboardInterrupt:
        pass
    finally:
        store.close()
    return 0
