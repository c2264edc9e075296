"""The persisted file index (todo_ls/file_index.py): which rows can stand for a file, and the
workspace index counting unchanged files from them without reading them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from todo_ls import file_index
from todo_ls.checklist import StateRegistry
from todo_ls.file_index import FORMAT, Known
from todo_ls.workspace import Folder, WorkspaceIndex
from todo_ls.workspace_counts import FileSummary

REG = StateRegistry.default()
PRINT = file_index.fingerprint(REG)
SUMMARY = FileSummary("file:///w/a.md", {"open": 2, "done": 1}, 2)


def test_a_row_round_trips() -> None:
    row = file_index.encode(Path("/w/a.md"), Known((5, 10), SUMMARY), PRINT)
    assert file_index.decode(row, PRINT) == (Path("/w/a.md"), Known((5, 10), SUMMARY))
    err = FileSummary("file:///w/b.md", {}, 0, error="b.md: binary file")
    row = file_index.encode(Path("/w/b.md"), Known((1, 2), err), PRINT)
    assert file_index.load([row], REG) == {Path("/w/b.md"): Known((1, 2), err)}


def _body(**change: object) -> str:
    body = {"uri": "u", "by_state": {"open": 1}, "open": 1, "missing": False, "error": None}
    return json.dumps({**body, **change})


@pytest.mark.parametrize(
    "row",
    [
        ("/w/a.md", 10, 5, FORMAT + 1, PRINT, _body()),  # another format
        ("/w/a.md", 10, 5, FORMAT, "[]", _body()),  # other states
        ("/w/a.md", 10, 5, FORMAT, PRINT, "{not json"),
        ("/w/a.md", 10, 5, FORMAT, PRINT, "[]"),
        ("/w/a.md", "10", 5, FORMAT, PRINT, _body()),
        ("/w/a.md", 10, -5, FORMAT, PRINT, _body()),
        ("/w/a.md", 10, 5, FORMAT, PRINT, _body(open=True)),
        ("/w/a.md", 10, 5, FORMAT, PRINT, _body(open=3)),  # more open than items
        ("/w/a.md", 10, 5, FORMAT, PRINT, _body(by_state={"open": "1"})),
        ("/w/a.md", 10, 5, FORMAT, PRINT, _body(extra=1)),
        ("/w/a.md", 10, 5, FORMAT, PRINT, _body(error=3)),
        (None, 10, 5, FORMAT, PRINT, _body()),
        ("/w/a.md", 10, 5),
    ],
)
def test_a_row_that_cannot_be_trusted_is_ignored(row: tuple[object, ...]) -> None:
    assert file_index.decode(row, PRINT) is None
    assert file_index.load([row], REG) == {}


def test_a_summary_stands_only_for_the_same_size_and_mtime() -> None:
    known = {Path("/w/a.md"): Known((5, 10), SUMMARY)}
    assert file_index.usable(known, Path("/w/a.md"), (5, 10)) == SUMMARY
    assert file_index.usable(known, Path("/w/a.md"), (6, 10)) is None
    assert file_index.usable(known, Path("/w/a.md"), None) is None
    assert file_index.usable(known, Path("/w/b.md"), (5, 10)) is None


def _index(
    root: Path, known: dict[Path, Known], sink: list[tuple[Path, Known | None]]
) -> WorkspaceIndex:
    index = WorkspaceIndex()
    index.set_folders([Folder.from_path(root)])
    index.configure(["*.md"], REG)
    index.warm(known, lambda path, entry: sink.append((path, entry)))
    return index


def test_unchanged_files_are_counted_from_the_index_and_changed_ones_read(tmp_path: Path) -> None:
    same, changed, gone = tmp_path / "same.md", tmp_path / "changed.md", tmp_path / "gone.md"
    for path in (same, changed, gone):
        path.write_text("- [ ] a\n- [x] b\n")
    sink: list[tuple[Path, Known | None]] = []
    first = _index(tmp_path, {}, sink)
    assert first.counts(Folder.from_path(tmp_path)).progress().open == 3
    assert sorted(p for p, _ in sink) == sorted([same, changed, gone])
    known = dict(first.known())

    # Same size and mtime, other text: the index is trusted, so the file is not read (what
    # shows that it was not); another mtime: read again.
    st = same.stat()
    same.write_text("- [x] a\n- [x] b\n")
    os.utime(same, ns=(st.st_mtime_ns, st.st_mtime_ns))
    changed.write_text("- [ ] a\n- [ ] b\n- [ ] c\n")
    gone.unlink()
    sink.clear()
    second = _index(tmp_path, known, sink)
    counts = second.counts(Folder.from_path(tmp_path))
    assert counts.progress().open == 1 + 3
    assert [p for p, _ in sink] == [changed]  # only what was read goes to the store
    assert second.last_parsed(same) is None  # counted without a parse
    # Asked for its items, the file is read: the parse wins and the count follows.
    assert second.state(same).progress.open == 0
    assert counts.progress().open == 3
