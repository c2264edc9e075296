"""The supervisor counts the list an agent keeps with `todo-ls mcp` (shared store) as an open
item source: alone (OpenCode 2.x) or merged with the host's own list (OpenCode 1.x `todowrite`);
a `todo_write` is progress even when the list did not change."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from test_supervisor_runtime import TODOS, Harness

from todo_ls.settings.model import SupervisorSettings

S = "ses_a"


def mcp_list(*items: tuple[str, str]) -> list[dict[str, Any]]:
    return [{"content": c, "status": s, "priority": None} for c, s in items]


async def test_the_mcp_list_alone_is_nudged_about(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    await h.start()
    try:
        h.store.set_session_todos(S, mcp_list(("Port the lexer", "in_progress")), 0.0)
        await h.turn(todos=())  # a host without a list of its own
        await h.advance(5)
        [nudge] = h.host.sent
        assert "1 of 1 todos left" in nudge.text
        assert "- Port the lexer (in progress)" in nudge.text
    finally:
        await h.close()


async def test_with_a_host_list_the_union_counts_and_the_mcp_copy_wins(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    await h.start()
    try:
        # OpenCode's todowrite list says "Write the parser" is in progress; the todo-ls list
        # (what the agent's system prompt shows) says it is completed, and adds one item.
        h.store.set_session_todos(
            S, mcp_list(("Write the parser", "completed"), ("Write the docs", "pending")), 0.0
        )
        await h.turn(todos=TODOS)
        await h.advance(5)
        [nudge] = h.host.sent
        assert "2 of 3 todos left" in nudge.text
        assert "Write the docs" in nudge.text and "Add unit tests" in nudge.text
        assert "Write the parser" not in nudge.text
    finally:
        await h.close()


async def test_a_todo_write_lifts_the_no_progress_pause_even_unchanged(tmp_path: Path) -> None:
    settings = SupervisorSettings(max_no_progress_nudges=2, min_nudge_interval_ms=0)
    h = Harness(tmp_path, settings)
    await h.start()
    try:
        items = mcp_list(("Port the lexer", "in_progress"))
        h.store.set_session_todos(S, items, 0.0, progress=True)
        await h.turn(todos=())
        for _ in range(4):
            await h.advance(5)
            await h.turn(todos=(), prompt=None)  # works, never touches its list
        assert len(h.host.sent) == 2
        assert h.session()["pausedReason"] == "no-progress"
        # The agent calls todo_write again with the same list: that is progress.
        h.store.set_session_todos(S, items, h.clock.now(), progress=True)
        await h.turn(todos=(), prompt=None)
        await h.advance(5)
        assert len(h.host.sent) == 3
        assert h.host.sent[-1].text.startswith("Idle nudge #3")
    finally:
        await h.close()


async def test_a_store_broken_in_use_leaves_the_host_list_and_says_why(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    h = Harness(tmp_path)
    await h.start()
    try:
        h.store.set_session_todos(S, mcp_list(("Write the docs", "pending")), 0.0)
        await h.turn(todos=TODOS)
        assert len(h.rt.listed_todos(S)) == 3
        for suffix in ("", "-wal", "-shm"):  # a disk fault, or another program, under the store
            Path(f"{h.store.path}{suffix}").write_bytes(b"this is not a database " * 200)
        await asyncio.sleep(0)  # a later turn of the loop: the store's read cache checks again
        with caplog.at_level(logging.WARNING, logger="todo_ls.supervisor.runtime"):
            listed = h.rt.listed_todos(S)
        assert [t.todo.content for t in listed] == ["Write the parser", "Add unit tests"]
        assert f"cannot read the todo list of {S}: the todo-ls state store" in caplog.text
        assert str(h.store.path) in caplog.text
    finally:
        await h.close()
