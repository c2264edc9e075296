"""A big workspace for the editor tests: thousands of subscribed markdown files, as a notes vault
subscribed with `**/*.md` is (docs/performance.md, "Scale").

Each file has a heading and `ITEMS` items, the first `OPEN` of them open, each item's text naming
its file (`task 17.0`), so a test can tell which file a row of a panel belongs to.
"""

from __future__ import annotations

from pathlib import Path

ITEMS = 3
OPEN = 2
PER_FOLDER = 1000  # files per subfolder: a vault's folders, and no folder of 20,000 entries


def note_path(n: int) -> str:
    """The path of file `n`, relative to the workspace; sorting the paths sorts by `n`."""
    return f"notes/part{n // PER_FOLDER:02d}/n{n:05d}.md"


def note_text(n: int) -> str:
    items = [f"- [{' ' if k < OPEN else 'x'}] task {n}.{k}" for k in range(ITEMS)]
    return f"# Note {n}\n\n" + "\n".join(items) + "\n"


def write_big_workspace(root: Path, files: int) -> Path:
    """Writes `files` notes and a project file subscribing all of them into `root`; returns it."""
    for n in range(files):
        path = root / note_path(n)
        if n % PER_FOLDER == 0:
            path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(note_text(n), encoding="utf-8")
    (root / "todo-ls.toml").write_text('markdownFiles = ["**/*.md"]\n', encoding="utf-8")
    return root
