"""Diagnostics, code actions, inlay hints and code lens, as an editor sees them."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from support.lsp_harness import SHARED, TIMEOUT, Editor, start_editor

WHOLE = types.Range(
    start=types.Position(line=0, character=0), end=types.Position(line=100, character=0)
)


def units(text: str, encoding: str) -> int:
    """Length of `text` in the client's position units."""
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    return len(text.encode("utf-16-le")) // 2


async def actions(editor: Editor, uri: str, line: int, **context: Any) -> list[types.CodeAction]:
    found = await editor.code_actions(uri, line, context.get("diagnostics", []))
    assert found is not None
    assert all(isinstance(a, types.CodeAction) for a in found)
    return [a for a in found if isinstance(a, types.CodeAction)]


def by_title(found: list[types.CodeAction], title: str) -> types.CodeAction:
    match = [a for a in found if a.title == title]
    assert match, f"no action {title!r} in {[a.title for a in found]}"
    return match[0]


async def hints(editor: Editor, uri: str, first: int, last: int) -> list[types.InlayHint]:
    return await editor.inlay_hints(uri, first, last)


@SHARED
async def test_server_advertises_every_feature(reader: Editor) -> None:
    caps = reader.server_capabilities
    assert caps.execute_command_provider is not None
    names = ["toggle", "setState", "subscribe", "unsubscribe", "nudge", "pause", "resume"]
    assert sorted(caps.execute_command_provider.commands) == sorted(
        f"todoLs.{name}" for name in [*names, "list", "refresh", "foldDone"]
    )
    assert caps.code_action_provider and caps.inlay_hint_provider and caps.code_lens_provider
    assert caps.document_symbol_provider and caps.folding_range_provider
    assert isinstance(caps.workspace_symbol_provider, types.WorkspaceSymbolOptions)
    assert isinstance(caps.diagnostic_provider, types.DiagnosticOptions)
    assert reader.encoding == ("utf-8" if reader.caps == "neovim" else "utf-16")


@SHARED
async def test_diagnostics_one_per_open_item(reader: Editor) -> None:
    uri = reader.open("PLAN.md")
    found = await reader.pull(uri)
    assert [(d.range.start.line, d.code, d.message) for d in found] == [
        (6, "open", "Open: write parser"),
        (8, "open", "Open: blocks"),
        (9, "inProgress", "In progress: server"),
        (15, "blocked", "Blocked: ask legal"),
    ]
    assert {d.source for d in found} == {"todo-ls"}
    assert {d.severity for d in found} == {types.DiagnosticSeverity.Information}
    blocks = found[1]
    assert (blocks.range.start.character, blocks.range.end.character) == (2, 14)


async def test_push_diagnostics_for_a_client_without_pull(root: Path, state_dir: Path) -> None:
    editor = await start_editor(root, "push-only", {"markdownFiles": ["PLAN.md"]}, state_dir)
    try:
        await editor.wait_status(lambda s: True)  # settings are in
        pushed = editor.client.protocol.wait_for_notification_async(
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
        )
        uri = editor.open("PLAN.md")
        params = await asyncio.wait_for(pushed, TIMEOUT)
        assert params.uri == uri and params.version == 1
        assert [d.code for d in params.diagnostics] == ["open", "open", "inProgress", "blocked"]
        pushed = editor.client.protocol.wait_for_notification_async(
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
        )
        editor.set_text(uri, editor.text(uri).replace("[ ]", "[x]"))
        params = await asyncio.wait_for(pushed, TIMEOUT)
        assert (params.version, [d.code for d in params.diagnostics]) == (
            2,
            ["inProgress", "blocked"],
        )
    finally:
        await asyncio.wait_for(editor.client.shutdown_session(), TIMEOUT)
        await editor.client.stop()


async def test_pull_clients_get_no_pushed_diagnostics(editor: Editor) -> None:
    uri = editor.open("PLAN.md")
    editor.set_text(uri, editor.text(uri).replace("[ ]", "[x]", 1))
    # A push is written by the handler of the change that causes it, so it would arrive
    # before the answer to any later request: the pull is the barrier.
    assert len(await editor.pull(uri)) == 3
    assert editor.client.diagnostics == {}


async def test_no_diagnostics_outside_subscribed_files(editor: Editor, root: Path) -> None:
    (root / "NOTES.md").write_text("- [ ] not tracked\n", encoding="utf-8")
    uri = editor.open("NOTES.md")
    assert await editor.pull(uri) == []
    found = await actions(editor, uri, 0)
    assert [a.title for a in found] == ["Subscribe this file"]
    assert found[0].command is not None
    assert found[0].command.command == "todoLs.subscribe"
    await editor.command("todoLs.subscribe", *found[0].command.arguments or [])
    assert [d.message for d in await editor.pull(uri)] == ["Open: not tracked"]


@pytest.mark.parametrize(
    ("settings", "severity"),
    [
        ({"markdownFiles": ["PLAN.md"], "diagnostics": {"severity": "warning"}}, 2),
        ({"markdownFiles": ["PLAN.md"], "diagnostics": {"severity": "off"}}, None),
    ],
)
async def test_diagnostic_severity_setting(editor: Editor, severity: int | None) -> None:
    found = await editor.pull(editor.open("PLAN.md"))
    if severity is None:
        assert found == []
    else:
        assert {d.severity for d in found} == {types.DiagnosticSeverity(severity)}


@SHARED
async def test_item_actions_and_children_edit(reader: Editor) -> None:
    uri = reader.open("PLAN.md")
    diagnostics = [d for d in await reader.pull(uri) if d.range.start.line == 6]
    found = await actions(reader, uri, 6, diagnostics=diagnostics)
    # One action per state: no "Set state: done" twin of "Mark done".
    assert [a.title for a in found] == [
        "Mark done",
        "Mark done with 1 child",
        "Cancel",
        "Set state: inProgress",
        "Set state: blocked",
    ]
    assert list(by_title(found, "Mark done").diagnostics or []) == diagnostics
    assert by_title(found, "Mark done").is_preferred
    assert not by_title(found, "Set state: blocked").diagnostics
    action = by_title(found, "Mark done with 1 child")
    assert action.edit is not None and action.edit.changes is not None
    assert len(action.edit.changes[uri]) == 2  # one edit for the item and its open child
    assert reader.apply(action.edit)
    lines = reader.text(uri).splitlines()
    assert lines[6:9] == ["- [x] write parser", "  - [x] tokens", "  - [x] blocks"]
    remaining = [d.message for d in await reader.pull(uri)]
    assert remaining == ["In progress: server", "Blocked: ask legal"]


@SHARED
async def test_closed_item_offers_reopen(reader: Editor) -> None:
    uri = reader.open("PLAN.md")
    titles = [a.title for a in await actions(reader, uri, 10)]  # [x] docs
    assert titles == ["Cancel", "Reopen", "Set state: inProgress", "Set state: blocked"]
    in_progress = [a.title for a in await actions(reader, uri, 9)]  # [/] server: open-ish
    assert in_progress == ["Mark done", "Cancel", "Set state: open", "Set state: blocked"]
    found = await actions(reader, uri, 14)  # [~] blog post
    assert reader.apply(by_title(found, "Reopen").edit or types.WorkspaceEdit())
    assert reader.text(uri).splitlines()[14] == "- [ ] blog post"


@SHARED
async def test_section_and_plain_item_actions(reader: Editor) -> None:
    uri = reader.open("PLAN.md")
    found = await actions(reader, uri, 4)
    assert [a.title for a in found] == ["Mark section done (3 items)"]
    assert reader.apply(found[0].edit or types.WorkspaceEdit())
    build = reader.text(uri).splitlines()[6:11]
    assert all("[x]" in line for line in build), build
    plain = await actions(reader, uri, 16)
    assert [a.title for a in plain] == ["Convert to task"]
    assert reader.apply(plain[0].edit or types.WorkspaceEdit())
    assert reader.text(uri).splitlines()[16] == "- [ ] plain note"
    assert await actions(reader, uri, 2) == []  # a paragraph: nothing to offer


@SHARED
async def test_inlay_hints_for_headings_and_parents(reader: Editor) -> None:
    uri = reader.open("PLAN.md")
    lines = reader.text(uri).splitlines()
    found = await hints(reader, uri, 0, 100)
    assert [(h.position.line, h.label) for h in found] == [
        (0, "2/7 done · 1 canceled"),
        (4, "2/5 done"),
        (6, "1/2 done"),
        (12, "0/2 done · 1 canceled"),
    ]
    assert all(h.position.character == len(lines[h.position.line]) for h in found)
    # A window in the middle of the document gets exactly its own hints.
    assert [(h.position.line, h.label) for h in await hints(reader, uri, 5, 11)] == [
        (6, "1/2 done")
    ]
    assert await hints(reader, uri, 13, 16) == []


async def test_code_lens_on_first_line(editor: Editor, root: Path) -> None:
    uri = editor.open("PLAN.md")
    lenses = await asyncio.wait_for(
        editor.client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
        ),
        TIMEOUT,
    )
    assert lenses is not None
    assert {lens.range.start.line for lens in lenses} == {0}
    commands = [(lens.command.title, lens.command.command) for lens in lenses if lens.command]
    title, command = commands[0]
    assert title.startswith("4/7 open · supervisor: ")
    assert command == "todoLs.refresh"
    # No session yet: neither Pause nor Resume applies (tests/lsp/test_folders_and_sessions.py
    # has the lenses with sessions).
    assert commands[1:] == [("Nudge now", "todoLs.nudge")]
    for lens in lenses:
        assert lens.command is not None
        result = await editor.command(lens.command.command, *(lens.command.arguments or []))
        assert result is not None
    (root / "OTHER.md").write_text("- [ ] x\n", encoding="utf-8")
    other = editor.open("OTHER.md")
    none = await editor.client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=other))
    )
    assert not none


NON_ASCII = """\
# Überblick 🚀 Plan

Préface 日本語 🚀 — ça va

- [ ] café 🚀 naïve
  - [x] 子任务 done
- [x] ok
"""


async def test_positions_with_non_ascii_text(editor: Editor, root: Path) -> None:
    (root / "UNI.md").write_text(NON_ASCII, encoding="utf-8")
    await editor.command("todoLs.subscribe", {"uri": (root / "UNI.md").as_uri()})
    uri = editor.open("UNI.md")
    lines = NON_ASCII.splitlines()
    (diag,) = await editor.pull(uri)
    assert diag.range.start == types.Position(line=4, character=0)
    assert diag.range.end == types.Position(line=4, character=units(lines[4], editor.encoding))
    found = await hints(editor, uri, 0, 10)
    assert [(h.position, h.label) for h in found] == [
        (types.Position(line=0, character=units(lines[0], editor.encoding)), "2/3 done"),
        (types.Position(line=4, character=units(lines[4], editor.encoding)), "1/1 done"),
    ]
    # The edit of a code action replaces exactly the marker, whatever the encoding.
    action = by_title(await actions(editor, uri, 5), "Reopen")
    assert editor.apply(action.edit or types.WorkspaceEdit())
    assert editor.text(uri).splitlines()[5] == "  - [ ] 子任务 done"
    result = await editor.command("todoLs.toggle", {"uri": uri, "line": 4})
    assert result["applied"] is True
    assert editor.text(uri).splitlines()[4] == "- [x] café 🚀 naïve"
