"""The workspace keeps closed files' parses within a byte bound, open documents' always, and a
file whose parse it dropped reads back the same items (docs/performance.md, "Memory")."""

from __future__ import annotations

import random
from pathlib import Path

from todo_ls.checklist import StateRegistry, parse
from todo_ls.workspace import Folder, WorkspaceIndex

LIMIT = 64 * 1024  # a few dozen of the notes below


def _note(rng: random.Random, n: int) -> str:
    lines = [f"# Note {n}", ""]
    for section in range(3):
        lines += [f"## Part {section} of `{n}`", ""]
        for i in range(rng.randint(5, 20)):
            lines.append(f"- [{rng.choice(' x/-')}] task {i} of note {n} *{rng.random():.3f}*")
        lines.append("")
    return "\n".join(lines)


def _workspace(tmp_path: Path, files: int) -> tuple[WorkspaceIndex, Folder, dict[Path, str]]:
    rng = random.Random(7)
    texts: dict[Path, str] = {}
    for n in range(files):
        path = tmp_path / "notes" / f"{n:03d}.md"
        path.parent.mkdir(exist_ok=True)
        texts[path] = _note(rng, n)
        path.write_text(texts[path])
    index = WorkspaceIndex(parse_bytes=LIMIT)
    folder = Folder.from_path(tmp_path)
    index.set_folders([folder])
    index.configure(["notes/*.md"], StateRegistry.default())
    return index, folder, texts


def test_closed_parses_stay_within_the_bound_and_dropped_ones_read_back(tmp_path: Path) -> None:
    index, folder, texts = _workspace(tmp_path, 200)
    for path in texts:
        index.state(path)
        assert index.parse_cache.bytes <= LIMIT
    for path in reversed(list(texts)):  # and again, in another order
        index.state(path)
    cache = index.parse_cache
    assert cache.bytes <= LIMIT
    assert 0 < len(cache) < len(texts) // 2
    first = list(texts)[-1]  # the first of the second pass
    assert first not in cache  # least recently used: dropped
    assert index.last_parsed(first) is None
    # Its items come back from the disk, as a fresh parse reads them.
    again = index.state(first)
    assert again.checklist == parse(texts[first], StateRegistry.default())
    # The counts are a fresh parse's, though most parses are gone.
    fresh: dict[str, int] = {}
    for text in texts.values():
        for item in parse(text, StateRegistry.default()).items:
            fresh[item.state] = fresh.get(item.state, 0) + 1
    assert dict(index.counts(folder).progress().by_state) == fresh


def test_open_documents_are_kept_whatever_the_bound(tmp_path: Path) -> None:
    index, _, texts = _workspace(tmp_path, 60)
    opened = list(texts)[:5]
    for path in opened:
        index.open_document(path.as_uri(), 1, texts[path] + "- [ ] typed\n")
        index.state(path)
    for path in texts:
        index.state(path)
    assert index.parse_cache.bytes <= LIMIT
    for path in opened:
        kept = index.last_parsed(path)
        assert kept is not None and kept.is_open
        assert kept.checklist.items[-1].text == "typed"
    index.close_document(opened[0].as_uri())
    assert opened[0] not in index.parse_cache
    assert not index.state(opened[0]).is_open


def test_the_bound_holds_once_kept_parses_are_split_into_lines(tmp_path: Path) -> None:
    # An outline or a workspace/symbol entry reads a kept parse's lines after the cache
    # weighed it: what it holds then must still be within the bound.
    index, _, texts = _workspace(tmp_path, 200)
    for path in texts:
        index.state(path)
    kept = [state for path in texts if (state := index.last_parsed(path)) is not None]
    weighed = sum(state.cost() for state in kept)
    for state in kept:
        assert state.lines
    assert weighed <= LIMIT
    assert sum(state.cost() for state in kept) <= weighed
