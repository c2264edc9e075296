"""The initial index: every subscribed file is parsed on `initialized`, and an editor that can
show work-done progress sees it begin and end before the first status."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from support.lsp_harness import Editor

FILES = 5


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    (folder / "docs").mkdir(parents=True)
    for n in range(FILES):
        (folder / "docs" / f"plan{n}.md").write_text(
            "# Plan\n\n- [ ] one\n- [x] two\n- [/] three\n"
        )
    return folder


@pytest.fixture
def settings() -> dict[str, Any] | None:
    return {"markdownFiles": ["docs/*.md"]}


async def test_initial_index_reports_progress_and_counts_every_file(editor: Editor) -> None:
    first = editor.statuses[0]
    assert (first.total, first.open) == (3 * FILES, 2 * FILES)
    reports = editor.client.progress_reports
    indexing = [
        values
        for values in reports.values()
        if values
        and isinstance(values[0], types.WorkDoneProgressBegin)
        and values[0].title == "todo-ls: indexing"
    ]
    assert len(indexing) == 1
    values = indexing[0]
    assert values[0].message == f"0/{FILES} files"
    assert isinstance(values[-1], types.WorkDoneProgressEnd)
    assert values[-1].message == f"{FILES} files"
    percentages = [v.percentage for v in values[1:-1]]
    assert percentages == sorted(percentages)


@pytest.mark.client(work_done_progress=False)
async def test_an_editor_without_progress_gets_the_index_without_it(editor: Editor) -> None:
    first = editor.statuses[0]
    assert (first.total, first.open) == (3 * FILES, 2 * FILES)
    assert editor.client.progress_reports == {}
