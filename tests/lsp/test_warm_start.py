"""A second start counts unchanged files from the persisted file index (todo_ls/file_index.py,
docs/store.md `file_summaries`); a changed file is read again, a deleted one dropped, a
damaged or old-format index ignored and rebuilt."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from support.lsp_harness import TIMEOUT, Editor, start_editor

from todo_ls import file_index
from todo_ls.checklist import StateRegistry

FILES = 40


def _text(n: int) -> str:
    return f"# Note {n}\n\n" + "".join(f"- [{'x' if k < n % 3 else ' '}] t{k}\n" for k in range(4))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    (folder / "notes").mkdir(parents=True)
    for n in range(FILES):
        (folder / "notes" / f"n{n:02d}.md").write_text(_text(n))
    return folder


@pytest.fixture
def settings() -> dict[str, Any] | None:
    return {"markdownFiles": ["notes/*.md"], "supervisor": {"enabled": False}}


def _expected(root: Path) -> tuple[int, int, int]:
    """(open, total, files) as a fresh parse of what is on disk counts them."""
    files = sorted((root / "notes").glob("*.md"))
    lines = [line for f in files for line in f.read_text().splitlines()]
    return (
        sum(line.startswith("- [ ]") for line in lines),
        sum(line.startswith("- [") for line in lines),
        len(files),
    )


def _rows(state_dir: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(state_dir / "state.db") as db:
        return db.execute("SELECT * FROM file_summaries ORDER BY path").fetchall()


async def _start_and_stop(root: Path, caps: str, settings: Any, state_dir: Path) -> Any:
    """Start a server, wait for the status that counts what is on disk, shut it down."""
    editor: Editor = await start_editor(root, caps, settings, state_dir)
    try:
        want = _expected(root)
        return await editor.wait_status(lambda s: (s.open, s.total, s.filesTotal) == want)
    finally:
        await asyncio.wait_for(editor.client.shutdown_session(), TIMEOUT)
        await editor.client.stop()


async def test_second_start_reads_only_what_changed(
    root: Path, caps: str, settings: Any, state_dir: Path
) -> None:
    await _start_and_stop(root, caps, settings, state_dir)
    rows = _rows(state_dir)
    known = file_index.load(rows, StateRegistry.default())
    assert sorted(known) == sorted((root / "notes").glob("*.md"))

    changed = root / "notes" / "n00.md"
    changed.write_text("- [ ] a\n- [ ] b\n- [ ] c\n- [ ] d\n- [ ] e\n- [x] f\n")
    st = changed.stat()
    os.utime(changed, ns=(st.st_mtime_ns + 10**9, st.st_mtime_ns + 10**9))
    deleted = root / "notes" / "n01.md"
    deleted.unlink()
    status = await _start_and_stop(root, caps, settings, state_dir)
    assert (status.open, status.filesTotal) == (_expected(root)[0], FILES - 1)

    known = file_index.load(_rows(state_dir), StateRegistry.default())
    assert deleted not in known  # dropped from the index
    assert known[changed].summary.open == 5  # read again and stored
    assert known[changed].stamp == (changed.stat().st_mtime_ns, changed.stat().st_size)


async def test_a_damaged_or_old_index_is_ignored_and_rebuilt(
    root: Path, caps: str, settings: Any, state_dir: Path
) -> None:
    await _start_and_stop(root, caps, settings, state_dir)
    paths = [row[0] for row in _rows(state_dir)]
    assert len(paths) == FILES
    with sqlite3.connect(state_dir / "state.db") as db:
        # Claims every file is one of 99 open items: believed, it would show in the status.
        bad = '{"uri":"x","by_state":{"open":99},"open":99,"missing":false,"error":null}'
        db.execute("UPDATE file_summaries SET summary = '{not json' WHERE path = ?", (paths[0],))
        db.execute(
            "UPDATE file_summaries SET format = 0, summary = ? WHERE path = ?", (bad, paths[1])
        )
        db.execute(
            "UPDATE file_summaries SET states = '[]', summary = ? WHERE path = ?", (bad, paths[2])
        )
        db.execute(
            "UPDATE file_summaries SET summary = ? WHERE path = ?", ('{"open": -1}', paths[3])
        )
    status = await _start_and_stop(root, caps, settings, state_dir)
    assert (status.open, status.total) == _expected(root)[:2]

    known = file_index.load(_rows(state_dir), StateRegistry.default())
    assert sorted(str(p) for p in known) == sorted(paths)  # every row good again
