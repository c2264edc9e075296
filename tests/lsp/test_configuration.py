"""Where settings come from: `initializationOptions`, `workspace/configuration` asked per
workspace folder, `didChangeConfiguration`, and the folder's project file (`todo-ls.toml`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from support.lsp_harness import NO_INIT_OPTIONS, PLAN, TIMEOUT, Editor, start_editor

Start = Callable[..., Awaitable[Editor]]


@pytest.fixture
async def start(caps: str, state_dir: Path) -> AsyncIterator[Start]:
    """Start an editor on given folders and settings; every one is shut down at the end."""
    started: list[Editor] = []

    async def run(root: Path, settings: dict[str, Any] | None, **kwargs: Any) -> Editor:
        editor = await start_editor(root, caps, settings, state_dir, **kwargs)
        started.append(editor)
        return editor

    yield run
    for editor in started:
        await asyncio.wait_for(editor.client.shutdown_session(), TIMEOUT)
        await editor.client.stop()


def folder(parent: Path, name: str, files: dict[str, str]) -> Path:
    path = parent / name
    path.mkdir()
    for file, text in files.items():
        (path / file).write_text(text, encoding="utf-8")
    return path


def warnings(editor: Editor) -> list[str]:
    return editor.take_messages(types.MessageType.Warning)


async def test_a_pull_right_after_open_waits_for_settings_the_client_is_asked_for(
    start: Start, root: Path
) -> None:
    # No initializationOptions: the settings come only as the answer to workspace/configuration,
    # and a client without diagnostic refresh (Neovim) would show nothing until the next edit.
    editor = await start(root, {"markdownFiles": ["PLAN.md"]}, init_options=NO_INIT_OPTIONS)
    found = await editor.pull(editor.open("PLAN.md"))
    assert len(found) == 4  # the open items of PLAN.md


async def test_a_workspace_symbol_query_right_after_start_waits_for_settings(
    start: Start, root: Path
) -> None:
    # The query is answered inline when the settings are in; asked before, it waits for them
    # (the files it searches are the settings' `markdownFiles`), never answering from none.
    editor = await start(root, {"markdownFiles": ["PLAN.md"]}, init_options=NO_INIT_OPTIONS)
    found = await asyncio.wait_for(
        editor.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="ser")), TIMEOUT
    )
    assert [s.name for s in found or []] == ["server", "write parser"]  # the run first


async def test_each_workspace_folder_gets_its_own_settings(start: Start, tmp_path: Path) -> None:
    alpha = folder(tmp_path, "alpha", {"PLAN.md": PLAN, "TODO.md": "- [ ] alpha todo\n"})
    beta = folder(tmp_path, "beta", {"PLAN.md": PLAN, "TODO.md": "- [ ] beta todo\n"})
    editor = await start(alpha, None, init_options=NO_INIT_OPTIONS, more_folders=(beta,))
    editor.configure({"markdownFiles": ["PLAN.md"]}, alpha)
    editor.configure({"markdownFiles": ["TODO.md"], "diagnostics": {"severity": "hint"}}, beta)
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    # One status per folder: alpha/PLAN.md's 7 items, beta/TODO.md's 1.
    await editor.wait_status(lambda s: s.workspace == alpha.as_uri() and s.total == 7)
    await editor.wait_status(lambda s: s.workspace == beta.as_uri() and s.total == 1)
    assert len(await editor.pull(editor.open("PLAN.md"))) == 4
    assert await editor.pull(editor.open("TODO.md")) == []  # not subscribed in alpha
    beta_todo, beta_plan = (beta / "TODO.md").as_uri(), (beta / "PLAN.md").as_uri()
    for uri in (beta_todo, beta_plan):
        editor.docs[uri] = (1, Path(uri.removeprefix("file://")).read_text(encoding="utf-8"))
        editor.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="markdown", version=1, text=editor.docs[uri][1]
                )
            )
        )
    (todo,) = await editor.pull(beta_todo)
    assert todo.severity == types.DiagnosticSeverity.Hint  # beta's severity, not alpha's
    assert await editor.pull(beta_plan) == []


async def test_the_project_file_is_read_and_editor_settings_override_it_key_by_key(
    start: Start, root: Path
) -> None:
    (root / "todo-ls.toml").write_text(
        'markdownFiles = ["PLAN.md"]\n\n[diagnostics]\nseverity = "error"\n', encoding="utf-8"
    )
    editor = await start(root, {"diagnostics": {"severity": "warning"}})
    found = await editor.pull(editor.open("PLAN.md"))
    assert len(found) == 4  # markdownFiles from the file
    assert {d.severity for d in found} == {types.DiagnosticSeverity.Warning}  # the editor's


async def test_a_bad_value_in_the_project_file_is_one_warning_naming_the_key_and_the_file(
    start: Start, root: Path
) -> None:
    project = root / ".todo-ls.toml"
    project.write_text(
        'markdownFiles = ["PLAN.md"]\n[supervisor]\nsettleMs = -5\n', encoding="utf-8"
    )
    editor = await start(root, None)
    assert len(await editor.pull(editor.open("PLAN.md"))) == 4  # the good keys still apply
    (warning,) = warnings(editor)
    assert "todoLs.supervisor.settleMs" in warning and str(project) in warning
    assert "\n" not in warning


async def test_a_broken_project_file_is_one_warning_and_the_editor_settings_still_apply(
    start: Start, root: Path
) -> None:
    project = root / "todo-ls.toml"
    project.write_text("markdownFiles = [\n", encoding="utf-8")
    editor = await start(root, {"markdownFiles": ["PLAN.md"]})
    assert len(await editor.pull(editor.open("PLAN.md"))) == 4
    (warning,) = warnings(editor)
    assert str(project) in warning and "not valid TOML" in warning


async def test_an_edited_project_file_applies_without_an_editor_settings_change(
    start: Start, root: Path
) -> None:
    editor = await start(root, None)
    uri = editor.open("PLAN.md")
    assert await editor.pull(uri) == []  # nothing subscribed yet
    project = root / "todo-ls.toml"
    project.write_text('markdownFiles = ["PLAN.md"]\n', encoding="utf-8")
    if editor.caps == "vscode":  # its file watcher reports it; Neovim's caps: the server polls
        editor.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=project.as_uri(), type=types.FileChangeType.Created)]
            )
        )
    status = await editor.wait_status(lambda s: s.total == 7)
    assert [Path(f.uri).name for f in status.files] == ["PLAN.md"]
    assert len(await editor.pull(uri)) == 4
