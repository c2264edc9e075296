"""A session of an agent reached through hooks, seen and commanded from the language server.

`todo-ls hook` runs as its own process (as Claude Code runs it) against the same state folder
as the server: its events show in `todoLs/status` within a second, and `todoLs.pause` from the
editor makes the next Stop let the agent stop.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from support.lsp_harness import Editor

SESSION = "claude-session-1"


async def run_hook(root: Path, state_dir: Path, event: str, **extra: Any) -> dict[str, Any] | None:
    data = {"session_id": SESSION, "cwd": str(root), "hook_event_name": event, **extra}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "todo_ls",
        "hook",
        "--host",
        "claude-code",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "TODO_LS_STATE_DIR": str(state_dir), "HOME": str(root.parent)},
    )
    out, err = await proc.communicate(json.dumps(data).encode())
    assert (proc.returncode, err) == (0, b"")
    return json.loads(out) if out else None


def session(status: Any) -> Any:
    return next((s for s in status.supervisor.sessions if s.id == SESSION), None)


async def wait_session(editor: Editor, since: float, **fields: Any) -> Any:
    """The first status after `since` whose session has `fields`; asserts it came in time."""

    def matches(status: Any) -> bool:
        found = session(status)
        return found is not None and all(getattr(found, k) == v for k, v in fields.items())

    status = await editor.wait_status(matches)
    assert time.monotonic() - since < 1.0, "the hook's event reached the status too late"
    return status


async def test_hook_session_shows_and_pause_makes_the_next_stop_free(
    editor: Editor, root: Path, state_dir: Path
) -> None:
    (root / "todo-ls.toml").write_text('markdownFiles = ["PLAN.md"]\n', encoding="utf-8")
    transcript = root / "transcript.jsonl"
    transcript.write_text("{}\n", encoding="utf-8")
    await run_hook(root, state_dir, "UserPromptSubmit", prompt="build it", prompt_id="p1")
    status = await wait_session(editor, time.monotonic(), state="working")
    entry = session(status)
    assert (entry.host, entry.nudges, entry.pausedReason) == ("claude-code", 0, None)
    assert entry.title == "build it"  # the user's prompt names the session
    assert entry.open == 4  # PLAN.md's open items (the blocked one included)
    # No OpenCode server here, yet a session is listed: the word is its state.
    assert status.text.endswith("· working")

    stop = {"prompt_id": "p1", "transcript_path": str(transcript), "last_assistant_message": "ok"}
    answer = await run_hook(root, state_dir, "Stop", **stop)
    assert answer is not None and answer["decision"] == "block"
    since = time.monotonic()
    await wait_session(editor, since, nudges=1)

    result = await editor.command("todoLs.pause", {"sessionID": SESSION})
    assert result == {"sessions": [{"id": SESSION, "state": "paused"}]}
    status = await editor.wait_status(lambda s: getattr(session(s), "state", None) == "paused")
    assert session(status).pausedReason == "user"
    transcript.write_text('{}\n{"more": 1}\n', encoding="utf-8")  # the agent worked on
    assert await run_hook(root, state_dir, "Stop", stop_hook_active=True, **stop) is None

    nudge = await editor.command("todoLs.nudge", {"sessionID": SESSION})
    assert nudge["sent"] == []
    (skipped,) = nudge["skipped"]
    assert skipped["sessionID"] == SESSION and "cannot be prompted" in skipped["reason"]

    resumed = await editor.command("todoLs.resume", {"sessionID": SESSION})
    assert resumed["sessions"][0]["id"] == SESSION
    transcript.write_text('{}\n{"more": 2}\n{}\n', encoding="utf-8")
    answer = await run_hook(root, state_dir, "Stop", stop_hook_active=True, **stop)
    assert answer is not None and answer["reason"].startswith("todo-ls: Stop nudge #1")

    await run_hook(root, state_dir, "SessionEnd", reason="exit")
    await editor.wait_status(lambda s: session(s) is None)


async def test_a_permission_prompt_shows_waiting_with_the_question(
    editor: Editor, root: Path, state_dir: Path
) -> None:
    await run_hook(
        root,
        state_dir,
        "Notification",
        notification_type="permission_prompt",
        message="Claude needs your permission to use Bash",
    )
    status = await wait_session(editor, time.monotonic(), state="waiting")
    assert session(status).detail == "Claude needs your permission to use Bash"
    assert getattr(session(status), "todos", None) is None  # it keeps no list of its own
    # A TodoWrite call gives it one: the status counts it.
    todos = [
        {"content": "Refactor", "status": "in_progress", "activeForm": "Refactoring"},
        {"content": "Test", "status": "completed", "activeForm": "Testing"},
    ]
    await run_hook(
        root, state_dir, "PostToolUse", tool_name="TodoWrite", tool_input={"todos": todos}
    )
    status = await wait_session(editor, time.monotonic(), state="working")
    counts = session(status).todos
    assert (counts.open, counts.total) == (1, 2)
    # todoLs.list shows its items; the editor cannot change them: the store only mirrors the
    # list Claude Code keeps, and the next hook event would write it back.
    listed = await editor.command("todoLs.list", {})
    items = [
        (i["sessionID"], i["index"], i["content"], i["status"])
        for i in listed["items"]
        if "sessionID" in i
    ]
    assert (SESSION, 0, "Refactor", "in_progress") in items
    assert (SESSION, 1, "Test", "completed") in items
    # …which the list says, so the VS Code view shows them without a checkbox.
    own = [i for i in listed["items"] if i.get("sessionID") == SESSION]
    assert own and all(i["readOnly"] is True for i in own), own
    refused = await editor.command("todoLs.toggle", {"sessionID": SESSION, "index": 0})
    assert refused["applied"] is False and "claude-code's own todo list" in refused["reason"]
