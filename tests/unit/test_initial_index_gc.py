"""The initial index runs no cyclic collection (todo_ls/server/indexing.py): what it makes is
freed by reference counts, and the young collections over the parses it keeps grew faster
than the files (docs/performance.md, "What `bench_workspace.py` measures now")."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from todo_ls.checklist import StateRegistry
from todo_ls.server import indexing
from todo_ls.workspace import Folder, WorkspaceIndex

FILES = 300  # parses enough to start dozens of young collections with the default thresholds


def plan(n: int) -> str:
    items = "\n".join(f"- [{'x' if k % 3 == 2 else ' '}] task {k} of {n}" for k in range(50))
    return f"# Plan {n}\n\n## Part\n\n{items}\n"


@pytest.fixture
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()  # the index freezes the heap: the rest of the test run collects as usual


def test_counting_every_file_starts_no_collection(tmp_path: Path, unfrozen: None) -> None:
    for n in range(FILES):
        (tmp_path / f"plan{n:03d}.md").write_text(plan(n))
    index = WorkspaceIndex()
    index.set_folders([Folder.from_path(tmp_path)])
    index.configure(["*.md"], StateRegistry.default())
    collections: list[int] = []
    counting = False

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if counting and phase == "start":
            collections.append(info["generation"])

    build = index.build_counts

    def watched(*args: Any) -> int:
        nonlocal counting
        counting = True
        try:
            return build(*args)
        finally:
            counting = False

    index.build_counts = watched  # type: ignore[method-assign]
    ls = SimpleNamespace(workspace_index=index, forget_unsubscribed=lambda: None)
    gc.callbacks.append(on_gc)
    try:
        total = indexing.index_subscribed(ls, None)  # type: ignore[arg-type]
    finally:
        gc.callbacks.remove(on_gc)
    assert total == FILES
    assert sum(index.counts(index.folders[0]).progress().by_state.values()) == FILES * 50
    assert collections == []
    assert gc.isenabled()  # collected as usual again afterwards
