"""The MCP session without a process: a tool that fails inside todo-ls is a tool error the agent
can read (and the traceback goes to the log), never a lost answer or a dead server."""

from __future__ import annotations

import json
import logging

import pytest

from todo_ls.mcp.protocol import McpSession


def broken_tool(name: str, arguments: object) -> tuple[bool, str]:
    raise RuntimeError("disk on fire")


def call(session: McpSession, request_id: int) -> dict[str, object]:
    line = json.dumps(
        {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "t"}}
    )
    answer = session.handle_line(line.encode())
    assert answer is not None
    result: dict[str, object] = json.loads(answer)
    return result


def test_a_tool_that_raises_answers_a_tool_error_and_logs_why(
    caplog: pytest.LogCaptureFixture,
) -> None:
    session = McpSession("todo", "1", [], broken_tool)
    session.handle_line(
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}'
    )
    with caplog.at_level(logging.ERROR):
        answer = call(session, 2)
    assert answer["result"] == {
        "content": [
            {"type": "text", "text": "t failed inside todo-ls; the todo-ls mcp log says why"}
        ],
        "isError": True,
    }
    assert "disk on fire" in caplog.text
    assert call(session, 3)["id"] == 3  # still serving


def test_responses_and_blank_lines_get_no_answer() -> None:
    session = McpSession("todo", "1", [], broken_tool)
    assert session.handle_line(b"   ") is None
    assert session.handle_line(b'{"jsonrpc":"2.0","id":7,"result":{}}') is None
    assert session.handle_line(b'{"jsonrpc":"2.0","method":"notifications/initialized"}') is None
