"""What an edit and a settings change cost the workspace index: nothing proportional to the
workspace (docs/performance.md, "Scale"). Counted as calls of `os.stat` (every stat, also
`Path.stat` and `os.path.isfile`) and of `os.scandir` (every walk of a glob)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from todo_ls.checklist import StateRegistry
from todo_ls.workspace import Folder, WorkspaceIndex, expand_globs

FILES = 60
PLAN = "# Plan\n\n- [ ] one\n- [x] two\n"


class Calls:
    """`os.stat` and `os.scandir` calls while `counting` is on."""

    def __init__(self) -> None:
        self.stats: list[str] = []
        self.walks: list[str] = []
        self.counting = False


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Calls]:
    found = Calls()
    real_stat, real_scandir = os.stat, os.scandir

    def stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        if found.counting:
            found.stats.append(os.fspath(path))  # type: ignore[arg-type]
        return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    def scandir(path: object = ".") -> object:
        if found.counting:
            found.walks.append(os.fspath(path))  # type: ignore[arg-type]
        return real_scandir(path)  # type: ignore[call-overload]

    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr(os, "scandir", scandir)
    yield found


def workspace(tmp_path: Path) -> tuple[Folder, WorkspaceIndex]:
    """`FILES` plans under docs/ and `FILES` notes under notes/, counted (docs/*.md)."""
    root = tmp_path / "proj"
    for name in ("docs", "notes"):
        (root / name).mkdir(parents=True)
        for n in range(FILES):
            (root / name / f"{name}{n:03d}.md").write_text(PLAN)
    folder = Folder.from_path(root)
    index = WorkspaceIndex()
    index.set_folders([folder])
    index.configure(["docs/*.md"], StateRegistry.default())
    index.build_counts()
    return folder, index


def test_opening_and_editing_a_subscribed_file_stats_no_other_file(
    tmp_path: Path, calls: Calls
) -> None:
    folder, index = workspace(tmp_path)
    path = folder.path / "docs" / "docs000.md"
    calls.counting = True
    assert index.is_subscribed(path)
    index.open_document(path.as_uri(), 1, PLAN)
    assert index.counts(folder).get(path) is not None
    index.open_document(path.as_uri(), 2, PLAN.replace("[ ]", "[x]"))
    summary = index.counts(folder).get(path)
    assert summary is not None and summary.open == 0
    assert calls.stats == [] and calls.walks == []


def test_a_settings_change_that_keeps_the_patterns_walks_and_stats_nothing(
    tmp_path: Path, calls: Calls
) -> None:
    # Before: every `configure` dropped the expansion and the counts, so the next status
    # walked the globs and stat-ed every subscribed file again.
    folder, index = workspace(tmp_path)
    calls.counting = True
    index.configure(["docs/*.md"], StateRegistry.default(), defer_globs=True)
    index.configure(["docs/*.md"], StateRegistry.default())
    assert not index.globs_pending
    assert len(index.subscribed(folder)) == FILES
    assert index.counts(folder).progress().total == 2 * FILES
    assert calls.stats == [] and calls.walks == []


def test_changed_patterns_are_expanded_apart_and_change_only_the_files_that_differ(
    tmp_path: Path, calls: Calls
) -> None:
    folder, index = workspace(tmp_path)
    patterns = ["docs/docs00*.md", "notes/notes000.md"]
    calls.counting = True
    index.configure(patterns, StateRegistry.default(), defer_globs=True)
    # The event loop's part: no walk; the old expansion answers until the new one is in.
    assert index.globs_pending
    assert len(index.subscribed(folder)) == FILES
    assert calls.walks == [] and calls.stats == []
    expanded = expand_globs(index.glob_plans())  # the worker thread's part: the walk
    calls.stats.clear()
    index.install_globs(expanded)
    assert not index.globs_pending
    subscribed = index.subscribed(folder)
    assert [p.name for p in subscribed] == [f"docs00{n}.md" for n in range(10)] + ["notes000.md"]
    assert index.counts(folder).progress().total == 2 * len(subscribed)
    # Only the newly subscribed note is read; the ten kept files are not stat-ed again.
    assert {Path(p).name for p in calls.stats} <= {"notes000.md"}


def test_an_expansion_of_patterns_changed_again_meanwhile_is_not_installed(
    tmp_path: Path,
) -> None:
    folder, index = workspace(tmp_path)
    index.configure(["notes/*.md"], StateRegistry.default(), defer_globs=True)
    stale = expand_globs(index.glob_plans())
    index.configure(["docs/docs000.md"], StateRegistry.default(), defer_globs=True)
    index.install_globs(stale)
    assert index.globs_pending
    assert len(index.subscribed(folder)) == FILES  # still the first expansion
    index.install_globs(expand_globs(index.glob_plans()))
    assert [p.name for p in index.subscribed(folder)] == ["docs000.md"]


def test_files_subscribed_again_are_counted_from_their_summaries_unread(
    tmp_path: Path, calls: Calls
) -> None:
    folder, index = workspace(tmp_path)
    index.configure(["docs/docs000.md"], StateRegistry.default(), defer_globs=True)
    index.install_globs(expand_globs(index.glob_plans()))
    assert index.counts(folder).progress().total == 2
    index.configure(["docs/*.md"], StateRegistry.default(), defer_globs=True)
    expanded = expand_globs(index.glob_plans())  # stats every file, off the loop
    calls.counting = True
    index.install_globs(expanded)
    assert index.counts(folder).progress().total == 2 * FILES
    assert calls.stats == [] and calls.walks == []


def test_files_created_or_deleted_during_the_walk_are_not_lost(tmp_path: Path) -> None:
    folder, index = workspace(tmp_path)
    index.configure(["notes/*.md"], StateRegistry.default(), defer_globs=True)
    expanded = expand_globs(index.glob_plans())  # the walk is done ...
    notes = folder.path / "notes"
    (notes / "late.md").write_text(PLAN)  # ... when these events arrive
    index.file_created(notes / "late.md")
    (notes / "notes001.md").unlink()
    index.file_deleted(notes / "notes001.md")
    index.install_globs(expanded)
    names = {p.name for p in index.subscribed(folder)}
    assert "late.md" in names and "notes001.md" not in names
    assert len(names) == FILES
    assert index.counts(folder).progress().total == 2 * FILES
