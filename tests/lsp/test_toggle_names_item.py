"""A toggle names the item, not only the line (docs/status-and-commands.md).

The agent inserts or removes lines of an unopened subscribed file between the moment the
editor listed its items and the moment the user ticks one: the item the user saw is the one
that changes, wherever it went, or nothing changes and the answer says why.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.lsp_harness import Editor

AGENT = "# Agent\n- [ ] alpha\n- [ ] beta\n"
SETTINGS = {"markdownFiles": ["AGENT.md"], "supervisor": {"enabled": False}}


@pytest.fixture
def agent_md(root: Path) -> Path:
    path = root / "AGENT.md"
    path.write_text(AGENT, encoding="utf-8")
    return path


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
