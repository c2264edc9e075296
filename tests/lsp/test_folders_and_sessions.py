"""Two workspace folders and agent sessions with their own todo lists, over the protocol.

One server watches a fake OpenCode 2.x server (2.x keeps no todo list: a session's list lives in
the shared store, as the MCP tools write it). Each folder has its PLAN.md and one busy session;
the store holds a list for the first folder's session. The tests check what an editor shows:
one `todoLs/status` per folder, session entries naming their host with `todos: {open, total}`,
`todoLs.list` with file and session items, `todoLs.toggle {sessionID, index}` and the code lens.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from support.fake_v2 import FakeV2Server
from support.lsp_harness import TIMEOUT, Editor, start_editor

from todo_ls.store import Store

FIRST = "ses_first"
SECOND = "ses_second"
SECOND_PLAN = "# Second\n\n- [ ] only item here\n- [x] done one\n"
TODOS = [
    {"content": "Write the parser", "status": "completed", "priority": "high"},
    {"content": "Add unit tests", "status": "in_progress"},
    {"content": "Update the docs", "status": "pending", "priority": "low"},
]


@pytest.fixture
def second(tmp_path: Path) -> Path:
    folder = tmp_path / "second"
    folder.mkdir()
    (folder / "PLAN.md").write_text(SECOND_PLAN, encoding="utf-8")
    return folder


@pytest_asyncio.fixture
async def fake(root: Path, second: Path, state_dir: Path) -> AsyncIterator[FakeV2Server]:
    server = FakeV2Server()
    await server.start()
    server.add_session(FIRST, str(root), title="first agent")
    server.add_session(SECOND, str(second), title="second agent")
    server.set_active(FIRST, SECOND)
    # Where start_editor points XDG_STATE_HOME: the registration carries the password.
    server.write_registration(state_dir / "xdg-state")
    store = Store.open(state_dir)
    store.set_session_todos(FIRST, TODOS, time.time())  # recent: kept by the dormancy sweep
    store.close()
    yield server
    await server.stop()


@pytest_asyncio.fixture
async def two(
    root: Path, second: Path, caps: str, state_dir: Path, fake: FakeV2Server
) -> AsyncIterator[Editor]:
    settings = {"markdownFiles": ["PLAN.md"], "supervisor": {"url": fake.url}}
    editor = await start_editor(root, caps, settings, state_dir, more_folders=(second,))
    yield editor
    await asyncio.wait_for(editor.client.shutdown_session(), TIMEOUT)
    await editor.client.stop()


def _with_session(session_id: str) -> Any:
    def predicate(status: Any) -> bool:
        return any(s.id == session_id for s in status.supervisor.sessions)

    return predicate


async def _folder_status(editor: Editor, folder: Path, session_id: str) -> Any:
    return await editor.wait_status(
        lambda s: s.workspace == folder.as_uri() and _with_session(session_id)(s)
    )


async def test_one_status_per_folder_with_its_files_and_sessions(
    two: Editor, root: Path, second: Path
) -> None:
    first = await _folder_status(two, root, FIRST)
    other = await _folder_status(two, second, SECOND)

    assert [f.uri for f in first.files] == [(root / "PLAN.md").as_uri()]
    assert (first.open, first.total) == (4, 7)
    assert [f.uri for f in other.files] == [(second / "PLAN.md").as_uri()]
    assert (other.open, other.total) == (1, 2)
    assert other.text.startswith("📋 ████░░░░ 1/2 open · working")

    [session] = first.supervisor.sessions
    assert (session.id, session.host, session.state) == (FIRST, "opencode-v2", "working")
    # Two of the three stored items are open (in progress and pending).
    assert (session.todos.open, session.todos.total) == (2, 3)
    [session] = other.supervisor.sessions
    assert (session.id, session.host) == (SECOND, "opencode-v2")
    assert not hasattr(session, "todos")  # no list of its own


async def test_list_has_file_items_by_uri_and_session_items(
    two: Editor, root: Path, second: Path
) -> None:
    await _folder_status(two, second, SECOND)
    everything = await two.command("todoLs.list", {})
    files = [(i["uri"], i["line"]) for i in everything["items"] if "uri" in i]
    assert ((second / "PLAN.md").as_uri(), 3) in files
    assert ((root / "PLAN.md").as_uri(), 7) in files
    sessions = [i for i in everything["items"] if "sessionID" in i]
    assert sessions == [
        {"sessionID": FIRST, "index": 0, "content": "Write the parser", "name": "Write the parser",
         "status": "completed",
         "priority": "high"},
        {"sessionID": FIRST, "index": 1, "content": "Add unit tests", "name": "Add unit tests",
         "status": "in_progress",
         "priority": None},
        {"sessionID": FIRST, "index": 2, "content": "Update the docs", "name": "Update the docs",
         "status": "pending",
         "priority": "low"},
    ]  # fmt: skip
    # One session's list alone: what a panel asks for the session it shows.
    own = await two.command("todoLs.list", {"sessionID": FIRST})
    assert (own["items"], own["itemsTotal"]) == (sessions, 3)
    page = await two.command("todoLs.list", {"sessionID": FIRST, "offset": 1, "limit": 1})
    assert (page["items"], page["itemsTotal"]) == (sessions[1:2], 3)

    only_second = await two.command("todoLs.list", {"workspace": second.as_uri()})
    assert only_second["workspace"] == second.as_uri()
    assert [(i["path"], i["line"]) for i in only_second["items"]] == [("PLAN.md", 3)]
    assert [s["id"] for s in only_second["supervisor"]["sessions"]] == [SECOND]

    with pytest.raises(JsonRpcInvalidParams, match="not a workspace folder"):
        await two.command("todoLs.list", {"workspace": (root.parent / "elsewhere").as_uri()})


async def test_toggle_flips_a_session_item_in_the_store(
    two: Editor, root: Path, state_dir: Path
) -> None:
    await _folder_status(two, root, FIRST)
    result = await two.command("todoLs.toggle", {"sessionID": FIRST, "index": 2})
    assert result == {"applied": True, "state": "completed"}
    status = await two.wait_status(
        lambda s: any(x.id == FIRST and x.todos.open == 1 for x in s.supervisor.sessions)
    )
    assert status.workspace == root.as_uri()

    store = Store.open(state_dir)
    try:
        stored = store.session_todos(FIRST)
    finally:
        store.close()
    assert stored is not None
    # Only the status changed; the item keeps its text and priority.
    assert stored[2] == {"content": "Update the docs", "status": "completed", "priority": "low"}

    back = await two.command(
        "todoLs.toggle", {"sessionID": FIRST, "index": 0, "content": "Write the parser"}
    )
    assert back == {"applied": True, "state": "pending"}
    await two.wait_status(
        lambda s: any(x.id == FIRST and x.todos.open == 2 for x in s.supervisor.sessions)
    )

    # The list changed since the editor read it: refused, nothing written.
    stale = await two.command("todoLs.toggle", {"sessionID": FIRST, "index": 1, "content": "old"})
    assert stale["applied"] is False and "changed" in stale["reason"]
    missing = await two.command("todoLs.toggle", {"sessionID": FIRST, "index": 9})
    assert missing["applied"] is False and "no todo item 9" in missing["reason"]
    none = await two.command("todoLs.toggle", {"sessionID": SECOND, "index": 0})
    assert none["applied"] is False
    with pytest.raises(JsonRpcInvalidParams, match="`index` must be a int"):
        await two.command("todoLs.toggle", {"sessionID": FIRST, "index": "1"})


async def _lenses(editor: Editor, uri: str) -> list[tuple[str, str, Any]]:
    lenses = await asyncio.wait_for(
        editor.client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
        ),
        TIMEOUT,
    )
    return [
        (lens.command.title, lens.command.command, (lens.command.arguments or [None])[0])
        for lens in lenses or []
        if lens.command
    ]


async def test_code_lens_offers_pause_or_resume_for_its_folder(
    two: Editor, root: Path, second: Path
) -> None:
    await _folder_status(two, root, FIRST)
    await _folder_status(two, second, SECOND)
    uri = two.open("PLAN.md")
    scoped = {"workspace": root.as_uri()}
    lenses = await _lenses(two, uri)
    assert [(title, command) for title, command, _ in lenses[1:]] == [
        ("Nudge now", "todoLs.nudge"),
        ("Pause", "todoLs.pause"),
    ]
    assert lenses[2][2] == scoped

    paused = await two.command("todoLs.pause", scoped)
    assert paused == {"sessions": [{"id": FIRST, "state": "paused"}]}
    await two.wait_status(lambda s: s.workspace == root.as_uri() and s.text.endswith("paused"))
    lenses = await _lenses(two, uri)
    assert [(title, command) for title, command, _ in lenses[1:]] == [
        ("Nudge now", "todoLs.nudge"),
        ("Resume", "todoLs.resume"),
    ]
    # The other folder's session is still supervised.
    other = await _folder_status(two, second, SECOND)
    assert [s.state for s in other.supervisor.sessions] == ["working"]

    resumed = await two.command("todoLs.resume", scoped)
    assert resumed == {"sessions": [{"id": FIRST, "state": "working"}]}
