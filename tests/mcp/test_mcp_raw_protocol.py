"""`todo-ls mcp` spoken to line by line, for what the SDK's client never sends: bad JSON, unknown
methods, requests before `initialize`, a line over the size limit, batches. Each gets a JSON-RPC
error on stdout naming the problem, the answers come in the order of the requests, nothing but
answers is ever written to stdout, and the server keeps serving."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.mcp_client import TODO_LS

from todo_ls import __version__
from todo_ls.mcp.server import MAX_LINE
from todo_ls.todos.tools import SESSION_ARG

pytestmark = pytest.mark.timeout(60)


def request(request_id: int | str, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


def initialize(request_id: int = 1, version: str = "2025-06-18") -> bytes:
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t"}}
    return request(request_id, "initialize", params)


INITIALIZED = b'{"jsonrpc": "2.0", "method": "notifications/initialized"}'


def exchange(project: Path, state: Path, *lines: bytes) -> list[dict[str, Any]]:
    """Every answer `todo-ls mcp` writes for `lines` (stdin closed after them)."""
    done = subprocess.run(
        [str(TODO_LS), "mcp", "--directory", str(project)],
        input=b"".join(line + b"\n" for line in lines),
        env={**os.environ, "TODO_LS_STATE_DIR": str(state)},
        capture_output=True,
        timeout=50,
    )
    assert done.returncode == 0, done.stderr.decode()
    # Every stdout line is a JSON-RPC answer: nothing else may ever be written there.
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert all(a["jsonrpc"] == "2.0" and ("result" in a) != ("error" in a) for a in answers)
    return answers


def error_of(answer: dict[str, Any]) -> tuple[int, str]:
    return answer["error"]["code"], answer["error"]["message"]


@pytest.mark.parametrize(
    ("asked", "answered"),
    [
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("2030-01-01", "2025-11-25"),
    ],
)
def test_initialize_answers_the_clients_version_when_supported_else_the_latest(
    project: Path, state: Path, asked: str, answered: str
) -> None:
    (answer,) = exchange(project, state, initialize(version=asked))
    assert answer["id"] == 1
    assert answer["result"] == {
        "protocolVersion": answered,
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": "todo", "version": __version__},
    }


def test_requests_are_answered_in_order_and_notifications_not_at_all(
    project: Path, state: Path
) -> None:
    write = {
        "name": "todo_write",
        "arguments": {SESSION_ARG: "ses_a", "todos": [{"content": "A", "status": "pending"}]},
    }
    read = {"name": "todo_read", "arguments": {SESSION_ARG: "ses_a"}}
    answers = exchange(
        project,
        state,
        initialize(),
        INITIALIZED,
        request(2, "ping"),
        b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}',
        request(3, "tools/list"),
        request(4, "tools/call", write),
        request("five", "tools/call", read),
    )
    assert [a["id"] for a in answers] == [1, 2, 3, 4, "five"]
    assert answers[1]["result"] == {}
    schema = answers[2]["result"]["tools"][0]["inputSchema"]
    assert schema["required"] == ["todos"] and schema["type"] == "object"
    assert answers[3]["result"]["isError"] is False
    assert answers[4]["result"] == {
        "content": [{"type": "text", "text": answers[4]["result"]["content"][0]["text"]}],
        "isError": False,
    }
    assert "1. [pending] A" in answers[4]["result"]["content"][0]["text"]


def test_bad_lines_get_json_rpc_errors_and_the_server_keeps_serving(
    project: Path, state: Path
) -> None:
    answers = exchange(
        project,
        state,
        initialize(),
        b'{"jsonrpc": "2.0", "id": 2, "method": "tools/li',
        b"\xff\xfe not utf-8",
        request(3, "resources/list"),
        b"[" + request(4, "ping") + b"]",
        b'{"id": 5, "method": "ping"}',
        request(6, "tools/call", {"arguments": {}}),
        b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": [1]}',
        request(8, "initialize", {"capabilities": {}}),
        b"",
        request(9, "ping"),
    )
    assert [a["id"] for a in answers] == [1, None, None, 3, None, 5, 6, 7, 8, 9]
    assert error_of(answers[1])[0] == -32700 and "not a JSON message" in error_of(answers[1])[1]
    assert error_of(answers[2])[0] == -32700
    assert error_of(answers[3]) == (-32601, "unknown method 'resources/list'")
    assert error_of(answers[4]) == (-32600, "batches are not supported; send one JSON object")
    assert error_of(answers[5]) == (-32600, 'jsonrpc must be "2.0"')
    assert error_of(answers[6]) == (-32602, "tools/call: name must be a string")
    assert error_of(answers[7]) == (-32602, "tools/call: params must be an object")
    assert error_of(answers[8]) == (-32602, "initialize: protocolVersion must be a string")
    assert answers[9]["result"] == {}


def test_tool_requests_before_initialize_are_refused_but_ping_is_answered(
    project: Path, state: Path
) -> None:
    call = {"name": "todo_read", "arguments": {SESSION_ARG: "ses_a"}}
    answers = exchange(
        project,
        state,
        request(1, "tools/list"),
        request(2, "tools/call", call),
        request(3, "ping"),
        initialize(4),
        request(5, "tools/call", call),
    )
    assert error_of(answers[0]) == (-32002, "tools/list before initialize; initialize first")
    assert error_of(answers[1])[0] == -32002
    assert answers[2]["result"] == {}
    assert answers[4]["result"]["content"][0]["text"] == "No todos."


def test_a_line_over_the_limit_is_refused_without_ending_the_server(
    project: Path, state: Path
) -> None:
    huge = b'{"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"x": "' + b"x" * MAX_LINE
    answers = exchange(project, state, initialize(), huge + b'"}}', request(3, "ping"))
    assert [a["id"] for a in answers] == [1, None, 3]
    code, message = error_of(answers[1])
    assert code == -32600 and f"over the {MAX_LINE} byte limit" in message
    assert answers[2]["result"] == {}


def test_a_full_size_todo_write_fits_in_one_line(project: Path, state: Path) -> None:
    # 200 items of 2000 characters that JSON escapes six-fold: the largest valid call.
    todos = [{"content": f"{n:04}" + "\u0001" * 1996, "status": "pending"} for n in range(200)]
    call = {"name": "todo_write", "arguments": {SESSION_ARG: "ses_a", "todos": todos}}
    answers = exchange(project, state, initialize(), request(2, "tools/call", call))
    result = answers[1]["result"]
    assert result["isError"] is False, result
    assert result["content"][0]["text"].startswith("200 todos")
