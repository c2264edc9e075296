"""The server's copy of an open document is the editor's, whatever the edit (issue 19).

Three ways it used to drift, each checked over stdio for the four kinds of client: utf-8 and
utf-16 positions, pulled and pushed diagnostics.

- Line ends: LSP has `\\n`, `\\r\\n` and `\\r` only; U+2028, U+2029, NEL, form feed and vertical
  tab are characters inside a line.
- A column past the end of a line means the end of that line, never its line end.
- Front matter that an edit creates (line 0 becomes `---`, or its closer is written) or
  destroys, and the same text sent again as a full change.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from support.lsp_harness import TIMEOUT, Editor, start_editor

pytestmark = pytest.mark.asyncio(loop_scope="module")

CLIENTS = ["neovim", "vscode", "push-only", "neovim-push"]  # utf-8/16 × pull/push
SEPARATORS = ["\u2028", "\u2029", "\x85", "\f", "\v"]


@pytest.fixture(scope="module", params=CLIENTS)
def sync_caps(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def editor(sync_caps: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Editor]:
    """One server per kind of client; every test opens documents of its own names."""
    base = tmp_path_factory.mktemp("sync")
    folder = base / "project"
    folder.mkdir()
    settings = {"markdownFiles": ["*.md"], "supervisor": {"enabled": False}}
    editor = await start_editor(folder, sync_caps, settings, base / "state")
    await editor.wait_status(lambda s: True)
    editor.incremental = True  # applied edits come back as incremental changes
    yield editor
    await asyncio.wait_for(editor.client.shutdown_session(), TIMEOUT)
    await editor.client.stop()


def open_new(editor: Editor, name: str, text: str) -> str:
    """Create `name` (subscribed by the `*.md` glob) and open it with `text`."""
    (editor.root / name).write_bytes(text.encode("utf-8"))
    return editor.open(name, text)


def at(line: int, start: int, end: int | None = None) -> types.Range:
    return types.Range(
        start=types.Position(line=line, character=start),
        end=types.Position(line=line, character=start if end is None else end),
    )


async def open_items(editor: Editor, uri: str) -> list[tuple[int, str, str]]:
    """(1-based line, state, text) of the document's open items, from `todoLs.list`."""
    listed = await editor.command("todoLs.list", {})
    return [(i["line"], i["state"], i["text"]) for i in listed["items"] if i["uri"] == uri]


async def diagnostic_lines(editor: Editor, uri: str) -> list[tuple[int, str]]:
    return [(d.range.start.line, str(d.code)) for d in await editor.diagnostics(uri)]


async def hint_labels(editor: Editor, uri: str) -> list[tuple[int, int, str]]:
    if editor.caps == "push-only":
        return []  # VS Code 1.65 has no inlay hints
    found = await editor.inlay_hints(uri, 0, 50)
    return [(h.position.line, h.position.character, str(h.label)) for h in found]


async def action_titles(editor: Editor, uri: str, line: int) -> list[str]:
    return [a.title for a in await editor.code_actions(uri, line) or []]


def units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    return len(text.encode("utf-16-le")) // 2


@pytest.mark.parametrize("separator", SEPARATORS, ids=[f"U+{ord(s):04X}" for s in SEPARATORS])
async def test_unicode_separators_do_not_end_lines(editor: Editor, separator: str) -> None:
    uri = open_new(editor, f"sep-{ord(separator):04x}.md", f"x{separator}y\n- [ ] a\n")
    assert await diagnostic_lines(editor, uri) == [(1, "open")]
    editor.change(uri, [(at(1, 0), "z")])  # the item line becomes paragraph text
    assert editor.text(uri) == f"x{separator}y\nz- [ ] a\n"
    assert await diagnostic_lines(editor, uri) == []
    assert await open_items(editor, uri) == []
    result = await editor.command("todoLs.toggle", {"uri": uri, "line": 1})
    assert result["applied"] is False
    assert editor.text(uri) == f"x{separator}y\nz- [ ] a\n"  # nothing of the text rewritten


async def test_toggle_below_a_separator_rewrites_the_marker(editor: Editor) -> None:
    text = "# Plan \u2028 é\n- [ ] a\u2029b 😀\n- [ ] c\n"
    uri = open_new(editor, "toggle-sep.md", text)
    editor.change(uri, [(at(2, 6), "see ")])  # `- [ ] see c`
    assert await open_items(editor, uri) == [(2, "open", "a\u2029b 😀"), (3, "open", "see c")]
    result = await editor.command("todoLs.toggle", {"uri": uri, "line": 2})
    assert result == {"applied": True, "state": "done"}
    assert editor.text(uri) == "# Plan \u2028 é\n- [ ] a\u2029b 😀\n- [x] see c\n"
    assert await diagnostic_lines(editor, uri) == [(1, "open")]
    heading = "# Plan \u2028 é"
    if editor.caps != "push-only":
        assert await hint_labels(editor, uri) == [(0, units(heading, editor.encoding), "1/2 done")]


async def test_a_column_past_the_line_end_means_the_end_of_the_line(editor: Editor) -> None:
    uri = open_new(editor, "past-end.md", "- [ ] one\n- [ ] two\n")
    editor.change(uri, [(at(0, 0, 10), "- [x] one")])
    assert editor.text(uri) == "- [x] one\n- [ ] two\n"
    assert await diagnostic_lines(editor, uri) == [(1, "open")]
    assert await open_items(editor, uri) == [(2, "open", "two")]
    # Past the end on a line with non-ASCII text, and a range ending past a line's end.
    editor.change(uri, [(at(1, 7, 99), "two é 😀")])
    editor.change(uri, [(types.Range(start=types.Position(0, 9), end=types.Position(1, 40)), "")])
    assert editor.text(uri) == "- [x] one\n"
    assert await diagnostic_lines(editor, uri) == []
    assert await open_items(editor, uri) == []


async def test_front_matter_opened_by_an_edit(editor: Editor) -> None:
    uri = open_new(editor, "front-open.md", "x\n# H\n- [ ] a\n---\n")
    assert await diagnostic_lines(editor, uri) == [(2, "open")]
    editor.change(uri, [(at(0, 0, 1), "---")])  # lines 0-3 are front matter now
    assert await diagnostic_lines(editor, uri) == []
    assert await hint_labels(editor, uri) == []
    assert await action_titles(editor, uri, 1) == []
    assert await open_items(editor, uri) == []
    # The same text again as a full change keeps it right.
    editor.set_text(uri, editor.text(uri))
    assert await diagnostic_lines(editor, uri) == []
    assert await open_items(editor, uri) == []
    editor.change(uri, [(at(0, 0, 3), "x")])  # and it goes again
    assert await diagnostic_lines(editor, uri) == [(2, "open")]
    assert await action_titles(editor, uri, 1) == ["Mark section done (1 items)"]


async def test_front_matter_closed_or_reopened_by_an_edit(editor: Editor) -> None:
    uri = open_new(editor, "front-close.md", "---\ntitle: t\n# H\n- [ ] a\nz\n")
    assert await diagnostic_lines(editor, uri) == [(3, "open")]
    editor.change(uri, [(at(4, 0, 1), "---")])  # the closer: lines 0-4 are front matter
    assert await diagnostic_lines(editor, uri) == []
    assert await open_items(editor, uri) == []
    editor.change(uri, [(at(4, 0, 3), "z")])  # unclosed again
    assert await diagnostic_lines(editor, uri) == [(3, "open")]
    expected: list[Any] = [] if editor.caps == "push-only" else [(2, 3, "0/1 done")]
    assert await hint_labels(editor, uri) == expected
