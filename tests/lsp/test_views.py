"""The outline, search and folding requests as an editor sees them: `textDocument/documentSymbol`,
`workspace/symbol`, `textDocument/foldingRange` and `todoLs.foldDone`.

Every test runs with Neovim's capabilities (utf-8) and VS Code's (utf-16): the plan has non-ASCII
text on the lines before the items and on the item lines themselves (🚀 is outside the BMP: two
UTF-16 units), before the text a selection starts at and inside it, so a column counted in the
wrong unit shows.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from support.lsp_harness import TIMEOUT, Editor, offset, start_editor

VIEW_PLAN = """\
# Plan ☕

Intro — café.

## Build ✓

- [ ] 🚀 write the parser
  - [x] tokens
  - [ ] blocks ünï
- [/] server
- [x] docs
- [~] old idea

## Ship

- [?] ask légal
- plain note
"""
NOTES = "# Notes\n\n- [ ] call the plumber\n- [x] buy milk\n- [x] feed the cat\n"
SECOND_PLAN = "# Second — zwei\n\n- [ ] wrap the release\n- [x] tag it\n"
SERVER_LINE = 9


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The first workspace folder: PLAN.md (subscribed) and NOTES.md (not subscribed)."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "PLAN.md").write_text(VIEW_PLAN, encoding="utf-8")
    (folder / "NOTES.md").write_text(NOTES, encoding="utf-8")
    return folder


@pytest.fixture
def settings() -> dict[str, Any]:
    return {"markdownFiles": ["PLAN.md"], "supervisor": {"enabled": False}}


@pytest.fixture
def second(tmp_path: Path) -> Path:
    folder = tmp_path / "second"
    folder.mkdir()
    (folder / "PLAN.md").write_text(SECOND_PLAN, encoding="utf-8")
    return folder


@pytest_asyncio.fixture
async def two(
    root: Path, second: Path, caps: str, settings: dict[str, Any], state_dir: Path
) -> AsyncIterator[Editor]:
    """One server, two workspace folders, `markdownFiles: [PLAN.md]` in both."""
    editor = await start_editor(root, caps, settings, state_dir, more_folders=(second,))
    await editor.wait_status(lambda s: s.workspace == second.as_uri())
    yield editor
    await asyncio.wait_for(editor.client.shutdown_session(), TIMEOUT)
    await editor.client.stop()


def covered(text: str, rng: types.Range, encoding: str) -> str:
    """The part of `text` a client range covers, positions read in `encoding`."""
    return text[offset(text, rng.start, encoding) : offset(text, rng.end, encoding)]


async def document_symbols(editor: Editor, uri: str) -> Any:
    return await asyncio.wait_for(
        editor.client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
        ),
        TIMEOUT,
    )


async def folding(editor: Editor, uri: str) -> Any:
    return await asyncio.wait_for(
        editor.client.text_document_folding_range_async(
            types.FoldingRangeParams(text_document=types.TextDocumentIdentifier(uri=uri))
        ),
        TIMEOUT,
    )


def written_on_disk(editor: Editor, path: Path) -> None:
    """Tell the server `path` changed, as the editor's file watcher does (without one, the
    server's poll finds it within seconds): `workspace/symbol` answers from what the server
    has heard of, and stats no file per query (docs/performance.md, "Scale")."""
    editor.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=path.as_uri(), type=types.FileChangeType.Changed)]
        )
    )


async def workspace_symbols(editor: Editor, query: str) -> list[types.SymbolInformation]:
    found = await asyncio.wait_for(
        editor.client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query)), TIMEOUT
    )
    assert found is not None
    assert all(isinstance(s, types.SymbolInformation) for s in found)
    return [s for s in found if isinstance(s, types.SymbolInformation)]


def outline(symbols: list[types.DocumentSymbol], depth: int = 0) -> list[tuple[Any, ...]]:
    """(depth, name, detail, kind) of every symbol, depth first."""
    found: list[tuple[Any, ...]] = []
    for s in symbols:
        found.append((depth, s.name, s.detail, s.kind))
        found += outline(list(s.children or []), depth + 1)
    return found


def by_name(symbols: list[types.DocumentSymbol], name: str) -> types.DocumentSymbol:
    for s in symbols:
        if s.name == name:
            return s
        try:
            return by_name(list(s.children or []), name)
        except LookupError:
            pass
    raise LookupError(name)


HEADING, ITEM = types.SymbolKind.String, types.SymbolKind.Boolean


async def test_document_symbols_outline_the_plan(editor: Editor) -> None:
    uri = editor.open("PLAN.md")
    symbols = await document_symbols(editor, uri)
    assert all(isinstance(s, types.DocumentSymbol) for s in symbols)
    assert outline(symbols) == [
        (0, "Plan ☕", "2/7 done · 1 canceled", HEADING),
        (1, "Build ✓", "2/6 done · 1 canceled", HEADING),
        (2, "🚀 write the parser", "open · 1/2 done", ITEM),
        (3, "tokens", "done", ITEM),
        (3, "blocks ünï", "open", ITEM),
        (2, "server", "inProgress", ITEM),
        (2, "docs", "done", ITEM),
        (2, "old idea", "canceled", ITEM),
        (1, "Ship", "0/1 done", HEADING),
        (2, "ask légal", "blocked", ITEM),
    ]
    text, encoding = editor.text(uri), editor.encoding
    parser = by_name(symbols, "🚀 write the parser")
    # The selection is the item's text, the range the whole list item with its children.
    assert covered(text, parser.selection_range, encoding) == "🚀 write the parser"
    assert covered(text, parser.range, encoding) == (
        "- [ ] 🚀 write the parser\n  - [x] tokens\n  - [ ] blocks ünï"
    )
    blocks = by_name(symbols, "blocks ünï")
    assert covered(text, blocks.selection_range, encoding) == "blocks ünï"
    build = by_name(symbols, "Build ✓")
    assert covered(text, build.selection_range, encoding) == "Build ✓"
    assert covered(text, build.range, encoding).endswith("- [~] old idea")  # no blank tail
    assert covered(text, symbols[0].range, encoding) == text.rstrip("\n")
    # VS Code shows deprecated symbols struck through: the closed items; Neovim has no tags.
    tagged = {s[1] for s in outline(symbols) if by_name(symbols, s[1]).tags}
    assert tagged == ({"tokens", "docs", "old idea"} if editor.caps == "vscode" else set())


async def test_document_symbols_follow_edits(editor: Editor) -> None:
    uri = editor.open("PLAN.md")
    before = outline(await document_symbols(editor, uri))
    editor.set_text(uri, editor.text(uri).replace("- [ ] blocks", "- [x] blocks"))
    after = outline(await document_symbols(editor, uri))
    assert (2, "🚀 write the parser", "open · 2/2 done", ITEM) in after
    assert (3, "blocks ünï", "done", ITEM) in after
    assert after[0] == (0, "Plan ☕", "3/7 done · 1 canceled", HEADING)
    assert len(after) == len(before)
    # A new section in the middle: the sections after it keep their symbols, on new lines.
    text = editor.text(uri).replace("## Ship", "## Extra\n\n- [ ] new thing\n\n## Ship")
    editor.set_text(uri, text)
    moved = await document_symbols(editor, uri)
    assert [s[1] for s in outline(moved)][-4:] == ["Extra", "new thing", "Ship", "ask légal"]
    ask = by_name(moved, "ask légal")
    assert covered(text, ask.selection_range, editor.encoding) == "ask légal"


async def test_flat_symbols_for_a_client_without_hierarchy(root: Path, state_dir: Path) -> None:
    settings = {"markdownFiles": ["PLAN.md"], "supervisor": {"enabled": False}}
    editor = await start_editor(
        root, "neovim", settings, state_dir, features={"hierarchical_symbols": False}
    )
    try:
        await editor.wait_status(lambda s: True)
        uri = editor.open("PLAN.md")
        found = await document_symbols(editor, uri)
        assert all(isinstance(s, types.SymbolInformation) for s in found)
        assert [(s.name, s.container_name) for s in found][:4] == [
            ("Plan ☕", None),
            ("Build ✓", "Plan ☕"),
            ("🚀 write the parser", "Build ✓"),
            ("tokens", "🚀 write the parser"),
        ]
        assert all(s.location.uri == uri for s in found)
    finally:
        await asyncio.wait_for(editor.client.shutdown_session(), TIMEOUT)
        await editor.client.stop()


async def test_folding_ranges_sections_parents_and_closed_runs(editor: Editor) -> None:
    uri = editor.open("PLAN.md")
    found = await folding(editor, uri)
    ranges = [(r.start_line, r.end_line, r.kind, r.collapsed_text) for r in found]
    region = types.FoldingRangeKind.Region
    # Neovim shows collapsedText; the VS Code client does not announce it.
    run_text = "✓ 1 done · 1 canceled" if editor.caps == "neovim" else None
    assert ranges == [
        (0, 16, region, None),  # "# Plan ☕" to the end
        (4, 11, region, None),  # "## Build ✓", its blank tail not folded
        (6, 8, region, None),  # the parser item and its children
        (10, 11, region, run_text),  # docs + old idea: two closed siblings
        (13, 16, region, None),  # "## Ship"
    ]
    assert await editor.command("todoLs.foldDone", {"uri": uri}) == {
        "ranges": [{"startLine": 10, "endLine": 11}]
    }


async def test_fold_done_of_an_unopened_file_edited_on_disk(editor: Editor, root: Path) -> None:
    uri = editor.uri("PLAN.md")
    assert await editor.command("todoLs.foldDone", {"uri": uri}) == {
        "ranges": [{"startLine": 10, "endLine": 11}]
    }
    # The agent finishes `server` (the line before the run) in the file: the run grows.
    plan = root / "PLAN.md"
    plan.write_text(VIEW_PLAN.replace("- [/] server", "- [x] server"), encoding="utf-8")
    assert await editor.command("todoLs.foldDone", {"uri": uri}) == {
        "ranges": [{"startLine": SERVER_LINE, "endLine": 11}]
    }
    # A closed parent whose child is still open is not folded away with the run.
    plan.write_text(VIEW_PLAN.replace("- [ ] 🚀 write", "- [x] 🚀 write"), encoding="utf-8")
    runs = await editor.command("todoLs.foldDone", {"uri": uri})
    assert runs == {"ranges": [{"startLine": 10, "endLine": 11}]}


async def test_unsubscribed_files_get_nothing(editor: Editor) -> None:
    uri = editor.open("NOTES.md")
    assert await document_symbols(editor, uri) is None
    assert await folding(editor, uri) is None
    assert await editor.command("todoLs.foldDone", {"uri": uri}) == {"ranges": []}
    names = {s.name for s in await workspace_symbols(editor, "")}
    assert "call the plumber" not in names and "🚀 write the parser" in names


async def test_workspace_symbols_search_open_items_of_every_folder(
    two: Editor, root: Path, second: Path
) -> None:
    everything = await workspace_symbols(two, "")
    assert [(s.name, s.container_name) for s in everything] == [
        ("🚀 write the parser", "PLAN.md › Build ✓"),
        ("blocks ünï", "PLAN.md › Build ✓"),
        ("server", "PLAN.md › Build ✓"),
        ("ask légal", "PLAN.md › Ship"),
        ("wrap the release", "PLAN.md › Second — zwei"),
    ]
    assert {s.kind for s in everything} == {ITEM}
    assert [s.location.uri for s in everything] == 4 * [(root / "PLAN.md").as_uri()] + [
        (second / "PLAN.md").as_uri()
    ]
    # Every query character in order, any case: "WrP" finds "write the parser" and
    # "wrap the release", not "server"; both scattered, so the shorter name first.
    found = await workspace_symbols(two, "WrP")
    assert [s.name for s in found] == ["wrap the release", "🚀 write the parser"]
    assert await workspace_symbols(two, "zzz") == []
    # The location is the item's text, in the negotiated encoding, file unopened.
    text = VIEW_PLAN
    assert covered(text, found[1].location.range, two.encoding) == "🚀 write the parser"
    assert [s.name for s in await workspace_symbols(two, "légal")] == ["ask légal"]


async def test_workspace_symbols_are_fresh_after_an_edit_on_disk(
    two: Editor, root: Path, second: Path
) -> None:
    assert "wrap the release" in {s.name for s in await workspace_symbols(two, "wrap")}
    # The agent ticks the item in the unopened file, and writes a new one in the other folder.
    (second / "PLAN.md").write_text(
        SECOND_PLAN.replace("- [ ] wrap", "- [x] wrap") + "- [ ] write the notes 📝\n",
        encoding="utf-8",
    )
    written_on_disk(two, second / "PLAN.md")
    found = await workspace_symbols(two, "wr")  # the name's start before a word's
    assert [s.name for s in found] == ["write the notes 📝", "🚀 write the parser"]
    notes = found[0]
    line = (
        (second / "PLAN.md")
        .read_text(encoding="utf-8")
        .splitlines()[notes.location.range.start.line]
    )
    assert covered(line, types.Range(
        start=types.Position(line=0, character=notes.location.range.start.character),
        end=types.Position(line=0, character=notes.location.range.end.character),
    ), two.encoding) == "write the notes 📝"  # fmt: skip
    # An open document counts with the editor's text, not the disk's.
    uri = two.open("PLAN.md")
    two.set_text(uri, two.text(uri).replace("- [ ] 🚀 write", "- [x] 🚀 write"))
    assert [s.name for s in await workspace_symbols(two, "wr")] == ["write the notes 📝"]


async def test_workspace_symbols_stop_at_a_thousand(editor: Editor, root: Path) -> None:
    many = "".join(f"- [ ] task number {n}\n" for n in range(1200))
    (root / "PLAN.md").write_text("# Many\n\n" + many, encoding="utf-8")
    written_on_disk(editor, root / "PLAN.md")
    found = await workspace_symbols(editor, "")
    assert len(found) == 1000
    assert found[0].name == "task number 0" and found[-1].name == "task number 999"
    # A query still searches the items past the first thousand.
    assert [s.name for s in await workspace_symbols(editor, "number 1199")] == ["task number 1199"]
