"""Counts kept by delta (todo_ls/workspace_counts.py) equal a fresh parse of every file, over
seeded random sequences of edits on disk and in the editor, new and deleted files and
subscription changes: told by invalidating the globs, by file events applied in place, or not
told at all and found by the disk re-check (todo_ls/disk_scan.py)."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from todo_ls import checklist
from todo_ls.checklist import Progress, StateRegistry
from todo_ls.disk_scan import DiskScanner, plan_of
from todo_ls.workspace import CLOSED_PARSE_BYTES, Folder, WorkspaceIndex
from todo_ls.workspace_counts import FileSummary, FolderCounts, page_by_path

LINES = [
    "# Heading",
    "## Sub",
    "- [ ] open one",
    "- [x] done one",
    "- [/] in progress",
    "- [-] canceled",
    "  - [ ] nested open",
    "  - [x] nested done",
    "* [?] blocked",
    "plain text",
    "- plain item",
    "```",
    "",
]


def _text(rng: random.Random) -> str:
    return "\n".join(rng.choice(LINES) for _ in range(rng.randrange(0, 14))) + "\n"


def _fresh(index: WorkspaceIndex, folder: Folder, texts: dict[Path, str]) -> Progress:
    """The folder's totals parsed afresh from what each subscribed file holds now."""
    counts: dict[str, int] = {}
    for path in index.subscribed(folder):
        text = texts.get(path)
        if text is None:
            text = path.read_text() if path.exists() else ""
        for item in checklist.parse(text, StateRegistry.default()).items:
            counts[item.state] = counts.get(item.state, 0) + 1
    return Progress(counts)


def _scanner(index: WorkspaceIndex, root: Path) -> DiskScanner:
    plan = plan_of([(root, ["docs/*.md"], False)], index.command_subscribed())
    return DiskScanner(plan, index.stamps(), lambda _: None, floor=1.0)


def _rescan(index: WorkspaceIndex, root: Path, scanner: DiskScanner) -> DiskScanner:
    """One re-check round applied as the server applies it (a new plan: a new scanner)."""
    if scanner.plan.files != frozenset(index.command_subscribed()):
        scanner = _scanner(index, root)
    delta = scanner.round()
    for path in delta.deleted:
        index.file_deleted(path)
    for path in delta.created:
        index.file_created(path)
    for path in delta.changed:
        index.file_changed(path)
    return scanner


_MTIME = iter(range(1_700_000_000_000_000_000, 1_800_000_000_000_000_000, 1_000_000_007))


# 0: no closed file's parse kept but the last, each re-read (docs/performance.md, "Memory").
@pytest.mark.parametrize("parse_bytes", [CLOSED_PARSE_BYTES, 0])
@pytest.mark.parametrize("told", ["invalidate", "events", "rescan"])
@pytest.mark.parametrize("seed", range(8))
def test_counts_by_delta_equal_a_fresh_parse(
    tmp_path: Path, seed: int, told: str, parse_bytes: int
) -> None:
    rng = random.Random(seed)
    root = tmp_path / "proj"
    (root / "docs").mkdir(parents=True)
    folder = Folder.from_path(root)
    names = [root / "docs" / f"f{n}.md" for n in range(8)] + [root / "extra.md"]
    for path in names[:4]:
        path.write_text(_text(rng))
    index = WorkspaceIndex(parse_bytes=parse_bytes)
    index.set_folders([folder])
    index.configure(["docs/*.md"], StateRegistry.default())
    editor: dict[Path, str] = {}  # the editor's text of its open documents
    version = 0
    index.counts(folder)
    scanner = _scanner(index, root)
    for _ in range(120):
        path = rng.choice(names)
        action = rng.choice(["disk", "disk", "delete", "open", "edit", "edit", "close", "subs"])
        if action == "disk":
            created = not path.exists()
            path.write_text(_text(rng))
            # A distinct mtime: two writes within the file system's clock tick would look
            # the same to a re-check, which cannot tell them apart (nor could any stat).
            at = next(_MTIME)
            os.utime(path, ns=(at, at))
            if told == "invalidate":
                index.forget(path)  # what a file watcher reports
                if created:
                    index.invalidate_globs()
            elif told == "events":
                (index.file_created if created else index.file_changed)(path)
        elif action == "delete" and path.exists():
            path.unlink()
            if told == "invalidate":
                index.forget(path)
                index.invalidate_globs()
            elif told == "events":
                index.file_deleted(path)
        elif action in ("open", "edit") and (action == "open" or path in editor):
            version += 1
            editor[path] = _text(rng)
            index.open_document(path.as_uri(), version, editor[path])
        elif action == "close" and path in editor:
            del editor[path]
            index.close_document(path.as_uri())
        elif action == "subs":
            if index.is_subscribed(path):
                index.unsubscribe(path)
            else:
                index.subscribe(path)
        if told == "rescan":
            scanner = _rescan(index, root, scanner)
        counts = index.counts(folder)
        assert counts.progress() == _fresh(index, folder, editor), (seed, action, path)
        assert sorted(counts.paths()) == index.subscribed(folder)
        by_path = [p for p, _ in counts.page_by_path(0, 100)]
        assert by_path == sorted(index.subscribed(folder), key=str)
        assert [s for _, s in counts.page_by_path(1, 2)] == [counts.get(p) for p in by_path[1:3]]
        opened = [p for p in index.subscribed(folder) if p in editor]
        top = [p for p, _ in counts.top(3, index.open_paths())]
        assert (
            top[: len(opened[:3])] == sorted(opened, key=lambda p: (-_open(counts, p), str(p)))[:3]
        )


def _open(counts: FolderCounts, path: Path) -> int:
    summary = counts.get(path)
    assert summary is not None
    return summary.open


def test_ranking_follows_each_change() -> None:
    counts = FolderCounts()
    a, b, c = Path("/w/a.md"), Path("/w/b.md"), Path("/w/c.md")
    for path, n in ((a, 1), (b, 5), (c, 3)):
        counts.set(path, FileSummary(path.as_uri(), {"open": n, "done": 1}, n))
    assert [p for p, _ in counts.top(2)] == [b, c]
    counts.set(b, FileSummary(b.as_uri(), {"done": 6}, 0))
    assert [p for p, _ in counts.top(3)] == [c, a, b]
    assert [p for p, _ in counts.top(2, first=[b])] == [b, c]
    counts.remove(c)
    assert counts.progress() == Progress({"open": 1, "done": 7})
    assert len(counts) == 2


def _summary(path: Path, n: int) -> FileSummary:
    return FileSummary(path.as_uri(), {"open": n}, n)


def test_pages_by_path_follow_files_that_come_and_go() -> None:
    counts = FolderCounts()
    paths = [Path(f"/w/{name}.md") for name in ("d", "b", "a", "c")]
    for n, path in enumerate(paths):
        counts.set(path, _summary(path, n))
    assert [p.name for p, _ in counts.page_by_path(0, 3)] == ["a.md", "b.md", "c.md"]
    assert [p.name for p, _ in counts.page_by_path(3, 3)] == ["d.md"]
    assert counts.page_by_path(4, 3) == []
    counts.set(Path("/w/b.md"), _summary(Path("/w/b.md"), 9))  # a change of counts
    assert counts.page_by_path(1, 1) == [(Path("/w/b.md"), _summary(Path("/w/b.md"), 9))]
    counts.remove(Path("/w/a.md"))
    counts.set(Path("/w/aa.md"), _summary(Path("/w/aa.md"), 0))
    assert [p.name for p, _ in counts.page_by_path(0, 9)] == ["aa.md", "b.md", "c.md", "d.md"]
    assert [p.name for p, _ in counts.page_by_path(0, 0)] == []


def test_pages_by_path_run_through_the_folders_in_their_order() -> None:
    first, second = FolderCounts(), FolderCounts()
    for folder, names in ((first, ("y", "x")), (second, ("b", "a", "c"))):
        for name in names:
            path = Path(f"/{id(folder)}/{name}.md")
            folder.set(path, _summary(path, 1))
    names = [[p.name for p, _ in page_by_path([first, second], o, 2)] for o in range(0, 6, 2)]
    assert names == [["x.md", "y.md"], ["a.md", "b.md"], ["c.md"]]
    assert [p.name for p, _ in page_by_path([first, second], 1, 3)] == ["y.md", "a.md", "b.md"]
    assert page_by_path([], 0, 5) == []
