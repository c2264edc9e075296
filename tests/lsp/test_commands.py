"""`workspace/executeCommand`: every todoLs command, its results and its refusals."""

from __future__ import annotations

import contextlib
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from support.lsp_harness import PLAN, Editor, start_editor

from todo_ls.store import Store


async def test_toggle_open_document_goes_through_apply_edit(editor: Editor, root: Path) -> None:
    uri = editor.open("PLAN.md")
    result = await editor.command("todoLs.toggle", {"uri": uri, "line": 6})
    assert result == {"applied": True, "state": "done"}
    assert len(editor.applied) == 1
    assert editor.applied[0].label is None  # Neovim would print any label after each edit
    assert editor.text(uri).splitlines()[6] == "- [x] write parser"
    assert (root / "PLAN.md").read_text(encoding="utf-8") == PLAN  # the editor owns the buffer
    # The server saw the editor's didChange: diagnostics and status follow.
    assert "Open: write parser" not in [d.message for d in await editor.pull(uri)]
    status = await editor.wait_status(lambda s: s.open == 3)
    assert (status.done, status.total) == (3, 7)
    # Toggling again reopens; setState sets any state.
    assert await editor.command("todoLs.toggle", {"uri": uri, "line": 6}) == {
        "applied": True,
        "state": "open",
    }
    result = await editor.command("todoLs.setState", {"uri": uri, "line": 9, "state": "blocked"})
    assert result == {"applied": True, "state": "blocked"}
    assert editor.text(uri).splitlines()[9] == "- [?] server"


@pytest.mark.client(apply_edit=False)
async def test_toggle_in_an_editor_without_apply_edit_changes_nothing(
    editor: Editor, root: Path
) -> None:
    uri = editor.open("PLAN.md")
    result = await editor.command("todoLs.toggle", {"uri": uri, "line": 6})
    assert result["applied"] is False and "applyEdit" in result["reason"]
    assert editor.applied == []
    assert editor.text(uri).splitlines()[6] == "- [ ] write parser"
    assert (root / "PLAN.md").read_text(encoding="utf-8") == PLAN  # the buffer is the editor's


async def test_toggle_unopened_file_rewrites_only_the_marker(editor: Editor, root: Path) -> None:
    plan = root / "PLAN.md"
    original = PLAN.replace("\n", "\r\n").encode("utf-8")
    plan.write_bytes(original)
    uri = plan.as_uri()
    result = await editor.command("todoLs.setState", {"uri": uri, "line": 8, "state": "done"})
    assert result == {"applied": True, "state": "done"}
    assert editor.applied == []
    assert plan.read_bytes() == original.replace(b"  - [ ] blocks", b"  - [x] blocks")
    status = await editor.wait_status(lambda s: s.open == 3)
    assert status.files[0].open == 3


async def test_refusals_answer_applied_false(editor: Editor, root: Path) -> None:
    plan = root / "PLAN.md"
    heading = await editor.command("todoLs.toggle", {"uri": plan.as_uri(), "line": 4})
    assert heading["applied"] is False
    assert "not a task item" in heading["reason"]
    past_end = await editor.command("todoLs.toggle", {"uri": plan.as_uri(), "line": 999})
    assert past_end["applied"] is False
    (root / "NOTES.md").write_text("- [ ] x\n", encoding="utf-8")
    other = await editor.command("todoLs.toggle", {"uri": (root / "NOTES.md").as_uri(), "line": 0})
    assert other["applied"] is False
    assert "not subscribed" in other["reason"]
    assert (root / "NOTES.md").read_text(encoding="utf-8") == "- [ ] x\n"
    unknown = await editor.command("todoLs.toggle", {"uri": "untitled:Untitled-1", "line": 0})
    assert unknown["applied"] is False
    assert plan.read_text(encoding="utf-8") == PLAN


MALFORMED: list[tuple[str, list[Any]]] = [
    ("todoLs.toggle", []),
    ("todoLs.toggle", ["PLAN.md"]),
    ("todoLs.toggle", [{"uri": 1, "line": 0}]),
    ("todoLs.toggle", [{"uri": "file:///x.md"}]),
    ("todoLs.toggle", [{"uri": "file:///x.md", "line": -1}]),
    ("todoLs.toggle", [{"uri": "file:///x.md", "line": True}]),
    ("todoLs.toggle", [{"uri": "file:///x.md", "line": 0}, {}]),
    ("todoLs.setState", [{"uri": "file:///x.md", "line": 0, "state": "finished"}]),
    ("todoLs.subscribe", [{}]),
    ("todoLs.unsubscribe", [{"uri": None}]),
    ("todoLs.nudge", [{"sessionID": 5}]),
    ("todoLs.list", [[]]),
    ("todoLs.unknown", [{}]),
]


async def test_malformed_params_are_invalid_params(editor: Editor) -> None:
    for command, arguments in MALFORMED:
        with pytest.raises(JsonRpcInvalidParams):
            await editor.command(command, *arguments)
    # The server is still fine afterwards, and showed no popup.
    assert (await editor.command("todoLs.list", {}))["total"] == 7
    assert editor.client.messages == []


async def test_subscribe_and_unsubscribe(editor: Editor, root: Path, tmp_path: Path) -> None:
    plan = (root / "PLAN.md").as_uri()
    (root / "docs").mkdir()
    (root / "docs" / "TODO.md").write_text("- [ ] one\n- [x] two\n", encoding="utf-8")
    result = await editor.command("todoLs.subscribe", {"uri": "docs/TODO.md"})
    assert result == {"files": [plan, (root / "docs" / "TODO.md").as_uri()]}
    status = await editor.wait_status(lambda s: s.total == 9)
    assert [f.uri for f in status.files] == result["files"]
    with pytest.raises(JsonRpcInvalidParams, match="outside the workspace folder"):
        await editor.command("todoLs.subscribe", {"uri": "../elsewhere.md"})
    outside = tmp_path / "elsewhere.md"  # given as an absolute path by the user: accepted
    result = await editor.command("todoLs.subscribe", {"uri": str(outside)})
    assert outside.as_uri() in result["files"]
    missing = next(
        f
        for f in (await editor.wait_status(lambda s: len(s.files) == 3)).files
        if f.uri == outside.as_uri()
    )
    assert missing.missing is True and missing.total == 0
    result = await editor.command("todoLs.unsubscribe", {"uri": plan})
    assert plan not in result["files"]
    uri = editor.open("PLAN.md")
    assert await editor.pull(uri) == []


async def test_subscriptions_persist_across_restarts(
    root: Path, caps: str, state_dir: Path
) -> None:
    (root / "NOTES.md").write_text("- [ ] remember\n", encoding="utf-8")
    first = await start_editor(root, caps, {"markdownFiles": ["PLAN.md"]}, state_dir)
    try:
        await first.command("todoLs.subscribe", {"uri": (root / "NOTES.md").as_uri()})
        await first.command("todoLs.unsubscribe", {"uri": (root / "PLAN.md").as_uri()})
    finally:
        await first.client.shutdown_session()
        await first.client.stop()
    second = await start_editor(root, caps, {"markdownFiles": ["PLAN.md"]}, state_dir)
    try:
        status = await second.wait_status(lambda s: True)
        assert [f.uri for f in status.files] == [(root / "NOTES.md").as_uri()]
        assert (status.open, status.total) == (1, 1)
    finally:
        await second.client.shutdown_session()
        await second.client.stop()


async def test_a_nul_or_overlong_path_is_refused_at_the_edge(
    editor: Editor, root: Path, state_dir: Path
) -> None:
    plan = (root / "PLAN.md").as_uri()
    refused = [
        ("todoLs.subscribe", {"uri": "bad\x00name.md"}, "`uri` holds a NUL byte"),
        ("todoLs.subscribe", {"uri": f"{plan[:-3]}%00.md"}, "`uri` holds a NUL byte (%00)"),
        ("todoLs.unsubscribe", {"uri": "x" * 5000}, "`uri` is 5000 characters long"),
        ("todoLs.toggle", {"uri": f"{plan}%00", "line": 6}, "holds a NUL byte (%00)"),
        ("todoLs.setState", {"uri": f"{plan}\x00", "line": 6, "state": "done"}, "NUL byte"),
        ("todoLs.foldDone", {"uri": f"{plan}%00"}, "holds a NUL byte (%00)"),
        ("todoLs.list", {"workspace": f"{root.as_uri()}%00"}, "`workspace` holds a NUL"),
    ]
    for command, argument, message in refused:
        with pytest.raises(JsonRpcInvalidParams, match=re.escape(message)):
            await editor.command(command, argument)
    # Nothing was stored (read raw: the store's reader would skip a bad row), nothing
    # changed, and the server keeps serving.
    with contextlib.closing(sqlite3.connect(state_dir / "state.db")) as db:
        assert db.execute("SELECT path FROM subscriptions").fetchall() == []
    assert (root / "PLAN.md").read_text(encoding="utf-8") == PLAN
    assert (await editor.command("todoLs.list", {}))["total"] == 7


async def test_a_bad_stored_subscription_is_skipped_with_one_warning(
    root: Path, caps: str, state_dir: Path
) -> None:
    """A NUL row stored before todo-ls checked paths survives restarts: it must never break
    `todoLs.list` (it answered -32603), the status or a subscribe."""
    (root / "NOTES.md").write_text("- [ ] remember\n", encoding="utf-8")
    with contextlib.closing(Store.open(state_dir)) as store:
        for name in ("bad\x00name.md", "NOTES.md"):
            store.subscribe(str(root), str(root / name))
    editor = await start_editor(root, caps, {"markdownFiles": ["PLAN.md"]}, state_dir)
    try:
        status = await editor.wait_status(lambda s: True)
        assert (status.open, status.total) == (5, 8)
        listed = await editor.command("todoLs.list", {})
        assert "NOTES.md:1" in [i["ref"] for i in listed["items"]]
        subscribed = await editor.command("todoLs.subscribe", {"uri": "PLAN.md"})
        assert subscribed["files"] == [(root / n).as_uri() for n in ("NOTES.md", "PLAN.md")]
        await editor.command("todoLs.refresh", {})
        (warning,) = editor.take_messages(types.MessageType.Warning)
        assert "ignoring a stored subscription" in warning and "holds a NUL byte" in warning
    finally:
        await editor.client.shutdown_session()
        await editor.client.stop()


async def test_list_and_refresh(editor: Editor) -> None:
    listed = await editor.command("todoLs.list", {})
    assert (listed["open"], listed["done"], listed["canceled"], listed["total"]) == (4, 2, 1, 7)
    assert listed["text"].startswith("📋 ██░░░░░░ 4/7 open")
    assert [(i["ref"], i["state"], i["text"]) for i in listed["items"]] == [
        ("PLAN.md:7", "open", "write parser"),
        ("PLAN.md:9", "open", "blocks"),
        ("PLAN.md:10", "inProgress", "server"),
        ("PLAN.md:16", "blocked", "ask legal"),
    ]
    assert await editor.command("todoLs.refresh", {}) == {"files": 1}
    assert await editor.command("todoLs.refresh") == {"files": 1}


async def test_supervisor_commands_answer_without_a_supervisor(editor: Editor) -> None:
    nudged = await editor.command("todoLs.nudge", {})
    assert nudged["sent"] == []
    assert isinstance(nudged["skipped"], list)
    assert "sessions" in await editor.command("todoLs.pause", {"sessionID": "ses_x"})
    assert "sessions" in await editor.command("todoLs.resume", {})
