"""Files edited on disk with no file event: the disk re-check (todo_ls/disk_scan.py) finds
them off the event loop and the status follows (docs/performance.md, "Scale")."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from support.lsp_harness import Editor

FILES = 300


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    for n in range(FILES):
        path = folder / "notes" / f"d{n % 7}" / f"n{n:03d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Note {n}\n\n- [ ] open {n}\n- [x] done {n}\n")
    return folder


@pytest.fixture
def settings() -> dict[str, Any] | None:
    return {"markdownFiles": ["notes/**/*.md"]}


@pytest.mark.client(file_watcher_registration=False)
async def test_changes_on_disk_reach_the_status_without_a_watcher(
    editor: Editor, root: Path
) -> None:
    status = await editor.wait_status(lambda s: s.total == 2 * FILES)
    assert (status.open, status.filesTotal) == (FILES, FILES)

    changed = root / "notes" / "d0" / "n000.md"
    changed.write_text("# Note 0\n\n- [x] open 0\n- [x] done 0\n")
    bump = changed.stat().st_mtime_ns + 10**9  # not within the file system's clock tick
    os.utime(changed, ns=(bump, bump))
    await editor.wait_status(lambda s: (s.open, s.total) == (FILES - 1, 2 * FILES))

    created = root / "notes" / "new" / "fresh.md"
    created.parent.mkdir()
    created.write_text("- [ ] one\n- [ ] two\n- [ ] three\n")
    status = await editor.wait_status(lambda s: s.filesTotal == FILES + 1)
    assert (status.open, status.total) == (FILES + 2, 2 * FILES + 3)  # in one round
    assert status.files[0].uri == created.as_uri()  # the most open items

    (root / "notes" / "d1" / "n001.md").unlink()
    await editor.wait_status(lambda s: (s.filesTotal, s.open) == (FILES, FILES + 1))
    assert editor.statuses[-1].total == 2 * FILES + 1

    ignored = root / "notes" / "readme.txt"  # not named by the glob
    ignored.write_text("- [ ] not counted\n")
    listed = await editor.command("todoLs.list", {"uri": created.as_uri()})
    assert [i["text"] for i in listed["items"]] == ["one", "two", "three"]
    assert (listed["filesTotal"], listed["open"]) == (FILES, FILES + 1)
