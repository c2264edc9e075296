"""The real server's statuses and answers are as todo_ls/payloads.py declares them.

The harness checks every status and answer of every LSP test (wire_check.py); this module makes
sure each command is asked at least once, with answers of each shape (applied and refused, with
and without a `reason`, file items, a missing file), and that the check itself fails on a value
that differs from its declaration.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from jsonrpc_frames import encode, read_message
from support.lsp_harness import SERVER, Editor
from support.wire_check import plain, problems

from todo_ls import payloads


async def test_every_command_answers_as_declared(editor: Editor, root: Path) -> None:
    plan = editor.uri("PLAN.md")
    asked: dict[str, list[Any]] = {
        payloads.TOGGLE: [{"uri": plan, "line": 6}, {"uri": plan, "line": 0}],
        payloads.SET_STATE: [{"uri": plan, "line": 6, "state": "open"}],
        payloads.SUBSCRIBE: [{"uri": (root / "MISSING.md").as_uri()}],
        payloads.UNSUBSCRIBE: [{"uri": (root / "MISSING.md").as_uri()}],
        payloads.NUDGE: [{}, {"sessionID": "ses_nobody"}],
        payloads.PAUSE: [{}],
        payloads.RESUME: [{"sessionID": "ses_nobody"}],
        payloads.LIST: [{}, {"uri": plan, "limit": 1}, {"workspace": root.as_uri()}],
        payloads.REFRESH: [{}],
        payloads.FOLD_DONE: [{"uri": plan}],
    }
    assert set(asked) == set(payloads.ANSWERS)
    answers = []
    for command, arguments in asked.items():
        for argument in arguments:
            answers.append(await editor.command(command, argument))  # checked by the harness
    refused = answers[1]
    assert refused["applied"] is False and "reason" in refused  # line 0 holds no item
    listed = next(a for a in answers if "items" in a)
    assert listed["workspace"] == root.as_uri()
    assert listed["items"] and listed["itemsTotal"] >= len(listed["items"])
    status = await editor.wait_status(lambda s: True)
    assert not problems(plain(status), payloads.StatusPayload)


def test_a_list_before_initialize_is_refused_not_answered_without_a_workspace(
    tmp_path: Path,
) -> None:
    """The status part of the answer names a workspace folder, and there is none before
    `initialize`: LSP's ServerNotInitialized rather than a payload with `workspace: null`."""
    server = subprocess.Popen(
        SERVER,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        request = {"command": payloads.LIST, "arguments": [{}]}
        server.stdin.write(
            encode(
                {"jsonrpc": "2.0", "id": 1, "method": "workspace/executeCommand", "params": request}
            )
        )
        server.stdin.flush()
        answer = read_message(server.stdout)
        while answer is not None and answer.get("id") != 1:
            answer = read_message(server.stdout)
    finally:
        server.kill()
        server.wait()
    assert answer is not None and "result" not in answer, answer
    assert answer["error"]["code"] == -32002  # ServerNotInitialized


PAYLOAD = {
    "workspace": "file:///p",
    "open": 1,
    "done": 0,
    "canceled": 0,
    "total": 1,
    "text": "📋 ░░░░░░░░ 1/1 open",
    "files": [{"uri": "file:///p/PLAN.md", "open": 1, "total": 1, "missing": False}],
    "filesTotal": 1,
    "supervisor": {"enabled": False, "host": None, "sessions": []},
}


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"workspace": None}, "workspace: None is not a str"),
        ({"filesTotal": True}, "filesTotal: True is not a int"),
        ({"extra": 1}, "`extra` is not declared"),
        ({"files": [{"uri": "file:///p/PLAN.md", "open": 1, "total": 1}]}, "`missing` is missing"),
        ({"supervisor": {"enabled": True, "host": {}, "sessions": []}}, "supervisor.host"),
    ],
)
def test_the_check_sees_a_value_not_as_declared(change: dict[str, Any], problem: str) -> None:
    assert problems(PAYLOAD, payloads.StatusPayload) == []
    found = problems({**PAYLOAD, **change}, payloads.StatusPayload)
    assert found and all(problem in line for line in found[:1]), found
