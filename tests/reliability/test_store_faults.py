"""The store's faults where the user meets them: a `state.db` held by another process (a
`sqlite3` shell, a backup, a todo-ls process stopped mid-write), damaged, truncated, removed or
made read-only while todo-ls runs (docs/reliability.md#the-state-store).

The store is optional for the editor features, so none of these may freeze an answer: the hook
fails open within a fraction of a second, the language server keeps answering, and the user is
told once what happened instead of seeing internal errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from support import lsp_harness as lsp
from support.hook_project import project_folder

from todo_ls.store import DB_NAME, Store

pytestmark = pytest.mark.timeout(120)

TODO_LS = [sys.executable, "-m", "todo_ls"]
PLAN = "# Plan\n\n- [ ] write the parser\n- [ ] ship it\n"
# Generous: the machine may be busy. Before the lock budget, a held lock cost ~41 s.
PROMPT_S = 2.5

# Another process's write transaction, held until its stdin closes.
HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("held", flush=True)
sys.stdin.read()
"""


@contextlib.contextmanager
def held_lock(db: Path) -> Iterator[None]:
    """A real process holding a write transaction on `db` for the block's duration."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert holder.stdout is not None and holder.stdin is not None
    try:
        assert holder.stdout.readline() == b"held\n", "the lock holder did not start"
        yield
    finally:
        holder.stdin.close()
        holder.wait(10)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return project_folder(tmp_path, PLAN, transcript=True)


def run_hook(project: Path, state: Path, event: str, **extra: Any) -> tuple[float, bytes]:
    """One real `todo-ls hook` process (Claude Code's input): its wall time and stdout."""
    data: dict[str, Any] = {
        "session_id": "s1",
        "cwd": str(project),
        "hook_event_name": event,
        "transcript_path": str(project / "transcript.jsonl"),
        **extra,
    }
    env = {**os.environ, "TODO_LS_STATE_DIR": str(state), "HOME": str(state.parent / "home")}
    started = time.monotonic()
    done = subprocess.run(
        [*TODO_LS, "hook"],
        input=json.dumps(data).encode(),
        capture_output=True,
        env=env,
        timeout=90,
    )
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    return elapsed, done.stdout


def stop(project: Path, state: Path) -> tuple[float, bytes]:
    return run_hook(
        project,
        state,
        "Stop",
        prompt_id="p1",
        stop_hook_active=False,
        last_assistant_message="done",
    )


def log_lines(state: Path) -> list[str]:
    log = state / "hook.log"
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


# --- the hook -------------------------------------------------------------------------------


def test_a_held_store_lock_makes_the_hook_fail_open_within_a_fraction_of_a_second(
    tmp_path: Path, project: Path
) -> None:
    state = tmp_path / "state"
    run_hook(project, state, "UserPromptSubmit", prompt="build it")
    with held_lock(state / DB_NAME):
        elapsed, out = stop(project, state)
    assert out == b"", "a hook that could not record its block must let the agent stop"
    assert elapsed < PROMPT_S, f"the hook took {elapsed:.1f} s with the store locked"
    lines = log_lines(state)
    assert len(lines) == 1 and "locked by another process" in lines[0], lines
    # The lock gone, the same Stop is blocked as usual: the failure was the lock's alone.
    _, out = stop(project, state)
    assert json.loads(out)["decision"] == "block"


# --- the language server --------------------------------------------------------------------


@pytest_asyncio.fixture
async def editor(tmp_path: Path, project: Path) -> AsyncIterator[lsp.Editor]:
    """A language server on `project` whose store already lists the hook session `s1` (a
    real hook run), with PLAN.md open; NOTES.md exists but is not subscribed."""
    state = tmp_path / "state"
    run_hook(project, state, "UserPromptSubmit", prompt="build it")
    (project / "NOTES.md").write_text("# Notes\n\n- [ ] a note\n", encoding="utf-8")
    editor = await lsp.start_editor(project, "neovim", {"markdownFiles": ["PLAN.md"]}, state)
    try:
        await editor.wait_status(lambda s: any(x.id == "s1" for x in s.supervisor.sessions))
        editor.open("PLAN.md")
        yield editor
    finally:
        await asyncio.wait_for(editor.client.shutdown_session(), lsp.TIMEOUT)
        await editor.client.stop()


async def symbols(editor: lsp.Editor, name: str) -> list[str]:
    found = await asyncio.wait_for(
        editor.client.text_document_document_symbol_async(
            types.DocumentSymbolParams(
                text_document=types.TextDocumentIdentifier(uri=editor.uri(name))
            )
        ),
        60,
    )
    return [s.name for s in found or [] if isinstance(s, types.DocumentSymbol)]


async def until(check: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    """Wait (bounded) for a condition on what the server did."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


def warnings(editor: lsp.Editor) -> list[str]:
    return [m.message for m in editor.client.messages if m.type == types.MessageType.Warning]


def stored_subscriptions(state: Path, project: Path) -> frozenset[str]:
    store = Store.open(state)
    try:
        return store.subscription_overrides(str(project)).added
    finally:
        store.close()


async def test_with_the_store_locked_the_server_answers_at_once_and_loses_nothing(
    tmp_path: Path, project: Path, editor: lsp.Editor
) -> None:
    state = tmp_path / "state"
    notes = project / "NOTES.md"
    with held_lock(state / DB_NAME):
        started = time.monotonic()
        subscribing = asyncio.ensure_future(
            editor.command("todoLs.subscribe", {"uri": notes.as_uri()})
        )
        outline = await symbols(editor, "PLAN.md")
        answered = time.monotonic() - started
        assert answered < PROMPT_S, f"documentSymbol took {answered:.1f} s behind the lock"
        assert outline == ["Plan"]
        assert notes.as_uri() in (await subscribing)["files"]
        # A pause cannot be written now: the answer says so instead of an internal error.
        paused = await editor.command("todoLs.pause", {"sessionID": "s1"})
        assert paused["sessions"] == []
        assert "locked by another process" in paused["reason"], paused
        # The waiting subscription is said once, while the lock lasts.
        await until(lambda: bool(warnings(editor)), "the warning about the waiting change")
        told = editor.take_messages(types.MessageType.Warning)
        assert len(told) == 1 and "subscription changes are kept" in told[0], told
        assert str(notes) not in stored_subscriptions(state, project)
    # The lock gone, the subscription reaches the store by itself, and pausing works.
    await until(lambda: str(notes) in stored_subscriptions(state, project), "the stored change")
    paused = await editor.command("todoLs.pause", {"sessionID": "s1"})
    assert paused == {"sessions": [{"id": "s1", "state": "paused"}]}
    assert editor.take_messages() == []


GARBAGE = b"this is not a database, it was overwritten " * 200
SQLITE_HEADER = b"SQLite format 3\x00"


def is_database(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(16) == SQLITE_HEADER


@pytest.mark.parametrize("damage", ["overwritten", "truncated"])
async def test_a_damaged_store_is_told_once_and_rebuilt(
    tmp_path: Path, project: Path, editor: lsp.Editor, damage: str
) -> None:
    state = tmp_path / "state"
    db = state / DB_NAME
    editor.take_messages()
    if damage == "truncated":
        os.truncate(db, 0)  # a full disk's half-written copy, a `> state.db` by mistake
    else:
        with db.open("r+b") as f:  # in place, as a stray tool would
            f.write(GARBAGE)
    paused = await editor.command("todoLs.pause", {"sessionID": "s1"})
    # Never an internal error: either a reason, or done in the rebuilt store.
    assert "reason" in paused or paused["sessions"] == [{"id": "s1", "state": "paused"}], paused
    await until(lambda: bool(warnings(editor)), "the message about the damaged store")
    assert await symbols(editor, "PLAN.md") == ["Plan"]
    await until(lambda: is_database(db), "the rebuilt store")
    # Rebuilt: the session the damage took is back with its next hook run, and pausing it
    # works again and lands in the file other processes read.
    run_hook(project, state, "UserPromptSubmit", prompt="again")
    paused = await editor.command("todoLs.pause", {"sessionID": "s1"})
    assert paused == {"sessions": [{"id": "s1", "state": "paused"}]}, paused
    told = editor.take_messages(types.MessageType.Warning)
    assert len(told) == 1 and "damaged" in told[0], told
    assert list(state.glob(f"{DB_NAME}.corrupt-*")), "the damaged file is kept aside"


async def test_a_removed_state_folder_is_told_once_and_reopened(
    tmp_path: Path, project: Path, editor: lsp.Editor
) -> None:
    state = tmp_path / "state"
    editor.take_messages()
    import shutil

    shutil.rmtree(state)
    await until(lambda: (state / DB_NAME).exists(), "the reopened store")
    # A hook session written after the removal reaches the editor again.
    run_hook(project, state, "UserPromptSubmit", prompt="again", session_id="s2")
    await editor.wait_status(lambda s: any(x.id == "s2" for x in s.supervisor.sessions))
    assert await symbols(editor, "PLAN.md") == ["Plan"]
    told = editor.take_messages(types.MessageType.Warning)
    assert len(told) == 1 and "removed" in told[0], told


def chattr(flag: str, *paths: Path) -> bool:
    """`chattr FLAG` on `paths` (immutable: a read-only store even for root); False where the
    file system or the user cannot."""
    done = subprocess.run(["chattr", flag, *map(str, paths)], capture_output=True)
    return done.returncode == 0


async def test_a_read_only_store_is_told_once_and_the_editor_keeps_working(
    tmp_path: Path, project: Path, editor: lsp.Editor
) -> None:
    state = tmp_path / "state"
    # Never -shm: SQLite maps it, and a mapping of an immutable file faults (SIGBUS).
    files = [p for p in (state / DB_NAME, state / f"{DB_NAME}-wal") if p.exists()]
    editor.take_messages()
    if os.geteuid() != 0 or not chattr("+i", *files):
        pytest.fail("this test needs root and a file system with chattr +i (the CI container)")
    try:
        await until(lambda: bool(warnings(editor)), "the message about the read-only store")
        assert await symbols(editor, "PLAN.md") == ["Plan"]
        await asyncio.sleep(3 * 2.0)  # more checks: still one message
        told = editor.take_messages(types.MessageType.Warning)
        assert len(told) == 1 and "read-only" in told[0], told
    finally:
        chattr("-i", *files)
