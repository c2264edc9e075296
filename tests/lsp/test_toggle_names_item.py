"""A toggle names the item, not only the line (docs/status-and-commands.md).

The agent inserts or removes lines of an unopened subscribed file between the moment the
editor listed its items and the moment the user ticks one: the item the user saw is the one
that changes, wherever it went, or nothing changes and the answer says why.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from support.lsp_harness import Editor

AGENT = "# Agent\n- [ ] alpha\n- [ ] beta\n"
SETTINGS = {"markdownFiles": ["AGENT.md"], "supervisor": {"enabled": False}}


def written(root: Path, name: str, text: str) -> Path:
    """`root / name` holding `text` (an unopened subscribed file the agent writes)."""
    path = root / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def agent_md(root: Path) -> Path:
    return written(root, "AGENT.md", AGENT)


async def listed_line(editor: Editor, text: str) -> int:
    """The 0-based line the server lists the open item `text` at."""
    listed = await editor.command("todoLs.list", {})
    (item,) = [i for i in listed["items"] if i["text"] == text]
    return int(item["line"]) - 1


@pytest.mark.parametrize("settings", [SETTINGS])
@pytest.mark.parametrize("send_text", [True, False], ids=["text", "no-text"])
async def test_toggle_after_the_agent_inserted_a_line_ticks_the_item_shown(
    agent_md: Path, editor: Editor, send_text: bool
) -> None:
    line = await listed_line(editor, "alpha")
    assert line == 1  # AGENT.md:2
    # The agent writes a new item above alpha; the editor still shows alpha at line 2.
    agent_md.write_text("# Agent\n- [ ] gamma (agent)\n- [ ] alpha\n- [ ] beta\n", "utf-8")
    args = {"uri": agent_md.as_uri(), "line": line} | ({"text": "alpha"} if send_text else {})
    result = await editor.command("todoLs.toggle", args)
    assert result == {"applied": True, "state": "done", "line": 2}
    assert agent_md.read_text("utf-8") == "# Agent\n- [ ] gamma (agent)\n- [x] alpha\n- [ ] beta\n"


@pytest.mark.parametrize("settings", [SETTINGS])
async def test_toggle_of_an_item_gone_or_ambiguous_is_refused(
    agent_md: Path, editor: Editor
) -> None:
    uri = agent_md.as_uri()
    await listed_line(editor, "alpha")
    gone = "# Agent\n- [ ] beta\n"
    agent_md.write_text(gone, "utf-8")
    result = await editor.command("todoLs.setState", {"uri": uri, "line": 1, "state": "done"})
    # Without text the server compares with what it listed: line 2 held alpha, now beta.
    assert result["applied"] is False and "'alpha'" in result["reason"]
    result = await editor.command("todoLs.toggle", {"uri": uri, "line": 1, "text": "alpha"})
    assert result["applied"] is False
    assert "no item of the file has that text" in result["reason"]
    assert agent_md.read_text("utf-8") == gone
    twice = "# Agent\n- [ ] beta\n- [ ] alpha\n- [ ] alpha\n"
    agent_md.write_text(twice, "utf-8")
    result = await editor.command("todoLs.toggle", {"uri": uri, "line": 1, "text": "alpha"})
    assert result["applied"] is False
    assert "2 items have that text (lines 3, 4)" in result["reason"]
    assert agent_md.read_text("utf-8") == twice
    # The item still on its line is ticked as before, and the answer has no `line`.
    result = await editor.command("todoLs.toggle", {"uri": uri, "line": 1, "text": "beta"})
    assert result == {"applied": True, "state": "done"}
    assert agent_md.read_text("utf-8") == "# Agent\n- [x] beta\n- [ ] alpha\n- [ ] alpha\n"


MARKED = "# Agent\n- [ ] fix `parse()` in **core**\n- [ ] see [the notes](NOTES.md) _first_\n"
MARKED_SETTINGS = {"markdownFiles": ["MARKED.md"], "supervisor": {"enabled": False}}


@pytest.fixture
def marked_md(root: Path) -> Path:
    return written(root, "MARKED.md", MARKED)


@pytest.mark.parametrize("settings", [MARKED_SETTINGS])
async def test_list_names_items_as_the_outline_and_toggles_by_the_text_listed(
    marked_md: Path, editor: Editor
) -> None:
    """docs/status-and-commands.md, `todoLs.list`: `name` is the text a reader sees, the
    outline's name; `text` stays the markdown a toggle names the item by."""
    path = marked_md
    listed = await editor.command("todoLs.list", {})
    items = [(i["text"], i["name"]) for i in listed["items"]]
    assert items == [
        ("fix `parse()` in **core**", "fix parse() in core"),
        ("see [the notes](NOTES.md) _first_", "see the notes first"),
    ]
    outline = await editor.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()))
    )
    assert [s.name for s in outline[0].children or []] == [name for _, name in items]
    first = listed["items"][0]
    result = await editor.command(
        "todoLs.toggle", {"uri": first["uri"], "line": first["line"] - 1, "text": first["text"]}
    )
    assert result == {"applied": True, "state": "done"}
    assert path.read_text("utf-8").splitlines()[1] == "- [x] fix `parse()` in **core**"


@pytest.mark.parametrize("settings", [MARKED_SETTINGS])
async def test_toggle_by_the_name_a_panel_shows_finds_the_item_where_it_moved(
    marked_md: Path, editor: Editor
) -> None:
    """The panels fed by document symbols only have the item's name: a toggle naming it by
    that name changes it, on its line or wherever the agent moved it."""
    path = marked_md
    uri = path.as_uri()
    result = await editor.command(
        "todoLs.toggle", {"uri": uri, "line": 1, "text": "fix parse() in core"}
    )
    assert result == {"applied": True, "state": "done"}
    # The agent writes a new item above them; the panel still shows the second one on line 3.
    path.write_text(path.read_text("utf-8").replace("# Agent\n", "# Agent\n- [ ] new\n"), "utf-8")
    result = await editor.command(
        "todoLs.toggle", {"uri": uri, "line": 2, "text": "see the notes first"}
    )
    assert result == {"applied": True, "state": "done", "line": 3}
    assert path.read_text("utf-8").splitlines()[1:] == [
        "- [ ] new",
        "- [x] fix `parse()` in **core**",
        "- [x] see [the notes](NOTES.md) _first_",
    ]
