"""A big workspace over the LSP: the status payload stays bounded and `todoLs.list` pages
(docs/status-and-commands.md, "Scale")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams
from support.lsp_harness import Editor

FILES = 60  # more than a status lists
LISTED = 50


def _open_count(n: int) -> int:
    return n % 10


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    (folder / "docs").mkdir(parents=True)
    for n in range(FILES):
        items = [f"- [ ] task {n}.{k}" for k in range(_open_count(n))] + [f"- [x] done {n}"]
        (folder / "docs" / f"plan{n:02d}.md").write_text("# Plan\n\n" + "\n".join(items) + "\n")
    return folder


@pytest.fixture
def settings() -> dict[str, Any] | None:
    return {"markdownFiles": ["docs/*.md"]}


def _field(obj: Any, name: str) -> Any:
    return obj[name] if isinstance(obj, dict) else getattr(obj, name)


async def test_status_lists_open_documents_then_most_open_files(editor: Editor, root: Path) -> None:
    opened = editor.open("docs/plan00.md")  # no open item: listed first all the same
    total_open = sum(_open_count(n) for n in range(FILES))
    status = await editor.wait_status(lambda s: s.open == total_open and s.files[0].uri == opened)
    assert (status.total, _field(status, "filesTotal")) == (total_open + FILES, FILES)
    files = status.files
    assert len(files) == LISTED
    rest = [(f.open, f.uri) for f in files[1:]]
    expected = sorted(
        ((_open_count(n), (root / "docs" / f"plan{n:02d}.md").as_uri()) for n in range(1, FILES)),
        key=lambda e: (-e[0], e[1]),
    )[: LISTED - 1]
    assert rest == expected


async def test_list_gives_one_files_items_or_a_page(editor: Editor, root: Path) -> None:
    one = (root / "docs" / "plan07.md").as_uri()
    listed = await editor.command("todoLs.list", {"uri": one})
    assert [i["text"] for i in listed["items"]] == [f"task 7.{k}" for k in range(7)]
    assert {i["uri"] for i in listed["items"]} == {one}
    assert listed["itemsTotal"] == 7
    assert len(listed["files"]) == LISTED and listed["filesTotal"] == FILES

    everything = await editor.command("todoLs.list", {})
    total_open = sum(_open_count(n) for n in range(FILES))
    assert everything["itemsTotal"] == total_open == len(everything["items"])
    pages: list[dict[str, Any]] = []
    for offset in range(0, total_open + 7, 7):
        page = await editor.command("todoLs.list", {"offset": offset, "limit": 7})
        assert page["itemsTotal"] == total_open
        assert len(page["items"]) == min(7, max(0, total_open - offset))
        pages += page["items"]
    assert pages == everything["items"]
    assert [i["ref"] for i in pages[:3]] == [
        "docs/plan01.md:3",
        "docs/plan02.md:3",
        "docs/plan02.md:4",
    ]
    first = await editor.command("todoLs.list", {"limit": 2})
    assert first["items"] == everything["items"][:2]

    for bad in ({"limit": -1}, {"offset": -1}, {"limit": "10"}, {"uri": 5}):
        with pytest.raises(JsonRpcInvalidParams):
            await editor.command("todoLs.list", bad)


async def test_list_with_limit_0_counts_without_items(editor: Editor, root: Path) -> None:
    total_open = sum(_open_count(n) for n in range(FILES))
    counted = await editor.command("todoLs.list", {"limit": 0})
    assert (counted["items"], counted["itemsTotal"]) == ([], total_open)
    one = (root / "docs" / "plan03.md").as_uri()
    counted = await editor.command("todoLs.list", {"uri": one, "limit": 0})
    assert (counted["items"], counted["itemsTotal"]) == ([], 3)


async def test_list_pages_every_file_by_path_with_its_counts(editor: Editor, root: Path) -> None:
    """What a panel shows of a workspace bigger than a status: every file, page after page."""
    uris = [(root / "docs" / f"plan{n:02d}.md").as_uri() for n in range(FILES)]
    seen: list[dict[str, Any]] = []
    for offset in range(0, FILES + 25, 25):
        page = await editor.command(
            "todoLs.list", {"limit": 0, "filesOffset": offset, "filesLimit": 25}
        )
        assert page["filesTotal"] == FILES and page["items"] == []
        assert len(page["files"]) == min(25, max(0, FILES - offset))
        seen += page["files"]
    assert [f["uri"] for f in seen] == uris  # sorted by path, none twice, none left out
    assert [(f["open"], f["total"]) for f in seen] == [
        (_open_count(n), _open_count(n) + 1) for n in range(FILES)
    ]
    first = await editor.command("todoLs.list", {"filesOffset": 0})
    assert [f["uri"] for f in first["files"]] == uris[:LISTED]  # 50 unless told otherwise
    for bad in ({"filesLimit": 1001}, {"filesOffset": -1}, {"filesLimit": "5"}):
        with pytest.raises(JsonRpcInvalidParams):
            await editor.command("todoLs.list", bad)


async def test_list_of_one_session_is_that_sessions_items_only(editor: Editor) -> None:
    """No agent here: a session's list is empty, and it never holds the files' items."""
    listed = await editor.command("todoLs.list", {"sessionID": "ses_none"})
    assert (listed["items"], listed["itemsTotal"]) == ([], 0)
    with pytest.raises(JsonRpcInvalidParams):
        await editor.command("todoLs.list", {"sessionID": "ses_none", "uri": "file:///x.md"})
