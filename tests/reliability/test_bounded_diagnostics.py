"""No client is flooded with diagnostics (docs/settings.md, `diagnostics.maxPerDocument`): a
document with thousands of open items gets at most `maxPerDocument` item diagnostics plus one
note saying how many were left out, pushed or pulled; a burst of edits is pushed once per
document, for the newest version."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from support.lsp_harness import TIMEOUT, Editor, start_editor

from todo_ls.settings.model import load_settings

ITEMS = 5000
CAP = 100
BURST = 40


def big_document() -> str:
    return "# Plan\n\n" + "".join(f"- [ ] task {n}\n" for n in range(ITEMS))


async def started(tmp_path: Path, caps: str, settings: dict[str, Any]) -> Editor:
    root = tmp_path / "project"
    root.mkdir()
    (root / "PLAN.md").write_text(big_document(), encoding="utf-8")
    editor = await start_editor(root, caps, settings, tmp_path / "state")
    await editor.wait_status(lambda s: True)
    return editor


async def stop(editor: Editor) -> None:
    await asyncio.wait_for(editor.client.shutdown_session(), TIMEOUT)
    await editor.client.stop()


def check_capped(diagnostics: list[types.Diagnostic], first_task: str = "task 0") -> None:
    *items, note = diagnostics
    assert len(items) == CAP
    assert items[0].message == f"Open: {first_task}"
    assert [d.range.start.line for d in items] == list(range(2, 2 + CAP))
    assert note.severity == types.DiagnosticSeverity.Information
    assert f"{ITEMS - CAP} more open items" in note.message, note.message
    assert "todoLs.diagnostics.maxPerDocument" in note.message
    assert note.range.start.line == 2 + CAP  # where the first one left out is


async def test_a_burst_of_edits_is_pushed_once_capped_for_the_newest_version(
    tmp_path: Path,
) -> None:
    settings = {"markdownFiles": ["PLAN.md"], "diagnostics": {"maxPerDocument": CAP}}
    editor = await started(tmp_path, "neovim-push", settings)
    try:
        uri = editor.open("PLAN.md")
        check_capped(await editor.diagnostics(uri))
        pushes: list[types.PublishDiagnosticsParams] = []
        on_push = editor.notify_diagnostics

        def counted(params: types.PublishDiagnosticsParams) -> None:
            pushes.append(params)
            on_push(params)

        editor.notify_diagnostics = counted  # type: ignore[method-assign]
        # A user typing fast: every edit appends a digit to the first item, sent back to back
        # (built first, so the client's own work does not space them out).
        version, text = editor.docs[uri]
        lines = text.splitlines(keepends=True)
        width = len(lines[2].rstrip("\n"))
        edits = []
        for n in range(BURST):
            end = types.Position(line=2, character=width + n)
            edits.append(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(
                        uri=uri, version=version + 1 + n
                    ),
                    content_changes=[
                        types.TextDocumentContentChangePartial(
                            range=types.Range(start=end, end=end), text=str(n % 10)
                        )
                    ],
                )
            )
        digits = "".join(str(n % 10) for n in range(BURST))
        lines[2] = lines[2].rstrip("\n") + digits + "\n"
        editor.docs[uri] = (version + BURST, "".join(lines))
        for params in edits:
            editor.client.text_document_did_change(params)
        final = await editor.diagnostics(uri)  # the push carrying the newest version
        check_capped(final, first_task="task 0" + digits)
        assert pushes[-1].version == editor.docs[uri][0]
        # Once per document (a second one at most if the server caught up mid-burst), never
        # once per edit; none for a version older than one already pushed.
        assert len(pushes) <= 3, [p.version for p in pushes]
        versions = [p.version or 0 for p in pushes]
        assert versions == sorted(versions)
    finally:
        await stop(editor)


async def test_a_pull_is_capped_too(tmp_path: Path) -> None:
    settings = {"markdownFiles": ["PLAN.md"], "diagnostics": {"maxPerDocument": CAP}}
    editor = await started(tmp_path, "neovim", settings)
    try:
        uri = editor.open("PLAN.md")
        check_capped(await editor.pull(uri))
    finally:
        await stop(editor)


async def test_the_default_cap_applies_to_a_push_client(tmp_path: Path) -> None:
    editor = await started(tmp_path, "neovim-push", {"markdownFiles": ["PLAN.md"]})
    try:
        uri = editor.open("PLAN.md")
        diagnostics = await editor.diagnostics(uri)
        assert len(diagnostics) == 1000 + 1
        assert f"{ITEMS - 1000} more open items" in diagnostics[-1].message
    finally:
        await stop(editor)


@pytest.mark.parametrize("bad", [0, -3, "100", 2.5, True])
def test_a_bad_cap_warns_and_the_default_is_used(bad: object) -> None:
    loaded = load_settings({"diagnostics": {"maxPerDocument": bad}})
    assert loaded.settings.diagnostics.max_per_document == 1000
    (warning,) = loaded.warnings
    assert "todoLs.diagnostics.maxPerDocument" in warning
