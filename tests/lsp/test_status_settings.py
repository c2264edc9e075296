"""`todoLs/status`, settings, files edited on disk, and bad files."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from support.lsp_harness import NO_HOST_URL, PLAN, TIMEOUT, Editor, start_editor


def watched_patterns(editor: Editor) -> list[str]:
    found = []
    for registration in editor.registrations:
        if registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES:
            options = registration.register_options
            found += [w["globPattern"] for w in options["watchers"]]  # type: ignore[index]
    return found


async def registered_watchers(editor: Editor, count: int = 1) -> list[str]:
    """The watched globs once at least `count` are registered (registration is async)."""
    for _ in range(100):
        if len(watched_patterns(editor)) >= count:
            break
        await asyncio.sleep(0.05)
    return watched_patterns(editor)


async def disk_changed(editor: Editor, path: Path, kind: types.FileChangeType) -> None:
    """What the editor's file watcher does; without dynamic registration the server polls."""
    if editor.caps == "vscode":
        patterns = await registered_watchers(editor)
        assert any(Path(p) == path or "*" in p for p in patterns), patterns
        editor.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=path.as_uri(), type=kind)]
            )
        )


async def test_status_payload(editor: Editor, root: Path) -> None:
    status = editor.statuses[0]
    assert status.workspace == root.as_uri()
    assert (status.open, status.done, status.canceled, status.total) == (4, 2, 1, 7)
    assert status.text.startswith("📋 ██░░░░░░ 4/7 open")  # 2 done of 7: 2 cells
    (entry,) = status.files
    assert (entry.uri, entry.open, entry.total, entry.missing) == (
        (root / "PLAN.md").as_uri(),
        4,
        7,
        False,
    )
    assert isinstance(status.supervisor.enabled, bool)
    assert isinstance(status.supervisor.sessions, list)


async def test_test_servers_never_reach_a_host_on_the_default_port(editor: Editor) -> None:
    # An OpenCode on this machine's 127.0.0.1:4096 must not join the tests: by default the
    # harness points the supervisor at a port that refuses, and the status says so.
    status = await editor.wait_status(
        lambda s: s.supervisor.host is not None and getattr(s.supervisor.host, "error", None)
    )
    assert status.supervisor.host.url == NO_HOST_URL != "http://127.0.0.1:4096"
    assert status.supervisor.host.connected is False
    assert "unreachable" in status.supervisor.host.error
    assert status.text.endswith("disconnected")


async def test_unopened_file_edited_on_disk_is_seen(editor: Editor, root: Path) -> None:
    plan = root / "PLAN.md"
    plan.write_text(PLAN.replace("[ ]", "[x]").replace("[/]", "[x]"), encoding="utf-8")
    await disk_changed(editor, plan, types.FileChangeType.Changed)
    status = await editor.wait_status(lambda s: s.open == 1)
    assert status.text.startswith("📋 █████░░░ 1/7 open")  # 5 done of 7
    listed = await editor.command("todoLs.list", {})
    assert [i["text"] for i in listed["items"]] == ["ask legal"]


async def test_list_reads_fresh_disk_state_without_any_notification(
    editor: Editor, root: Path
) -> None:
    (root / "PLAN.md").write_text("- [ ] only one\n", encoding="utf-8")
    listed = await editor.command("todoLs.list", {})
    assert [i["ref"] for i in listed["items"]] == ["PLAN.md:1"]


@pytest.mark.parametrize("settings", [{"markdownFiles": ["docs/**/*.md", "TODO.md"]}])
async def test_globs_missing_files_and_symlink_loops(editor: Editor, root: Path) -> None:
    status = editor.statuses[-1]
    assert [(Path(f.uri).name, f.missing) for f in status.files] == [("TODO.md", True)]
    docs = root / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "sub" / "loop").symlink_to(docs, target_is_directory=True)
    (docs / "a.md").write_text("- [ ] a\n", encoding="utf-8")
    (docs / "sub" / "b.md").write_text("- [x] b\n", encoding="utf-8")
    (root / "TODO.md").write_text("- [ ] todo\n", encoding="utf-8")
    for name in ("docs/a.md", "docs/sub/b.md", "TODO.md"):
        await disk_changed(editor, root / name, types.FileChangeType.Created)
    status = await editor.wait_status(lambda s: s.total == 3)
    names = sorted(f.uri.removeprefix(root.as_uri() + "/") for f in status.files)
    assert names == ["TODO.md", "docs/a.md", "docs/sub/b.md"]
    assert not any(f.missing for f in status.files)


@pytest.mark.parametrize(
    "settings",
    [{"markdownFiles": ["PLAN.md"], "diagnostics": {"severity": "loud"}, "colour": "blue"}],
)
async def test_bad_setting_warns_once_and_uses_the_default(editor: Editor) -> None:
    warnings = editor.take_messages(types.MessageType.Warning)
    assert len(warnings) == 1, warnings
    assert "todoLs.diagnostics.severity" in warnings[0]
    found = await editor.pull(editor.open("PLAN.md"))
    assert {d.severity for d in found} == {types.DiagnosticSeverity.Information}
    # Settings are re-read on didChangeConfiguration (here: a push with no value, as VS Code).
    editor.configure({"markdownFiles": ["OTHER.md"]})
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    status = await editor.wait_status(lambda s: [Path(f.uri).name for f in s.files] == ["OTHER.md"])
    assert status.files[0].missing is True
    assert await editor.pull(editor.uri("PLAN.md")) == []


@pytest.mark.parametrize("settings", [{"markdownFiles": ["BIG.md", "LATIN1.md", "PLAN.md"]}])
async def test_unusable_files_are_skipped_with_one_warning(
    root: Path, caps: str, state_dir: Path, settings: dict[str, Any]
) -> None:
    with open(root / "BIG.md", "wb") as f:
        f.write(b"- [ ] x\n" * (10 * 1024 * 1024 // 8 + 1))
    (root / "LATIN1.md").write_bytes("- [ ] café\n".encode("latin-1"))
    editor = await start_editor(root, caps, settings, state_dir)
    try:
        status = await editor.wait_status(lambda s: len(s.files) == 3)
        by_name = {Path(f.uri).name: f for f in status.files}
        assert (by_name["BIG.md"].total, by_name["LATIN1.md"].total) == (0, 0)
        assert "too large" in by_name["BIG.md"].error
        assert "UTF-8" in by_name["LATIN1.md"].error
        assert (status.open, status.total) == (4, 7)
        await editor.command("todoLs.refresh", {})
        # `todoLs.list` computes the status from the re-read files, as the next publish does:
        # when it answers, a second warning would have been sent.
        await editor.command("todoLs.list", {})
        warnings = editor.take_messages()
        assert len(warnings) == 2, warnings
        result = await editor.command(
            "todoLs.toggle", {"uri": (root / "LATIN1.md").as_uri(), "line": 0}
        )
        assert result["applied"] is False
        assert (root / "LATIN1.md").read_bytes() == "- [ ] café\n".encode("latin-1")
    finally:
        await asyncio.wait_for(editor.client.shutdown_session(), TIMEOUT)
        await editor.client.stop()


async def test_watchers_follow_the_subscriptions(editor: Editor, root: Path) -> None:
    if editor.caps != "vscode":
        assert watched_patterns(editor) == []  # Neovim 0.11 on Linux: the server polls
        return
    # The project files are watched too: editing one changes the settings.
    project_files = [(root / ".todo-ls.toml").as_posix(), (root / "todo-ls.toml").as_posix()]
    watched = await registered_watchers(editor, 3)
    assert watched == sorted([(root / "PLAN.md").as_posix(), *project_files])
    await editor.command("todoLs.subscribe", {"uri": "NEW.md"})
    patterns = await registered_watchers(editor, 4)
    assert patterns == sorted(
        [(root / "NEW.md").as_posix(), (root / "PLAN.md").as_posix(), *project_files]
    )


BAR_EXAMPLE = "# Plan\n\n" + "- [ ] open\n" * 8 + "- [x] done\n" * 8 + "- [~] dropped\n"


@pytest.mark.parametrize(
    "settings", [{"markdownFiles": ["EXAMPLE.md"], "supervisor": {"enabled": False}}]
)
async def test_status_text_fills_the_bar_with_the_done_fraction(
    root: Path, caps: str, state_dir: Path, settings: dict[str, Any]
) -> None:
    # The status bar's worked example: open 8, done 8, canceled 1 of 17 → 8·8/17 rounded
    # down = 3 cells (counting the canceled item as closed would fill 4).
    (root / "EXAMPLE.md").write_text(BAR_EXAMPLE, encoding="utf-8")
    editor = await start_editor(root, caps, settings, state_dir)
    try:
        status = await editor.wait_status(lambda s: s.total == 17)
        assert (status.open, status.done, status.canceled, status.total) == (8, 8, 1, 17)
        assert status.text == "📋 ███░░░░░ 8/17 open"
        assert status.workspace == root.as_uri()
        assert [(f.uri, f.open, f.total, f.missing) for f in status.files] == [
            ((root / "EXAMPLE.md").as_uri(), 8, 17, False)
        ]
    finally:
        await asyncio.wait_for(editor.client.shutdown_session(), TIMEOUT)
        await editor.client.stop()


async def test_initialization_options_apply_during_initialize(
    root: Path, caps: str, state_dir: Path
) -> None:
    # No workspace/configuration answer: only initializationOptions name the file. The first
    # pulls go out right after `initialized`, before the server could pull any configuration;
    # Neovim 0.11 never pulls again by itself, so they must already be right.
    editor = await start_editor(
        root, caps, None, state_dir, init_options={"todoLs": {"markdownFiles": ["PLAN.md"]}}
    )
    try:
        uri = editor.open("PLAN.md")
        pulled, hinted = await asyncio.gather(
            editor.pull(uri),
            editor.client.text_document_inlay_hint_async(
                types.InlayHintParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    range=types.Range(
                        start=types.Position(line=0, character=0),
                        end=types.Position(line=20, character=0),
                    ),
                )
            ),
        )
        assert [d.code for d in pulled] == ["open", "open", "inProgress", "blocked"]
        assert [h.label for h in hinted or []][:1] == ["2/7 done · 1 canceled"]
        status = await editor.wait_status(lambda s: True)
        assert (status.open, status.total) == (4, 7)
    finally:
        await asyncio.wait_for(editor.client.shutdown_session(), TIMEOUT)
        await editor.client.stop()


async def wait_refreshes(editor: Editor, expected: list[str]) -> list[str]:
    """The refresh requests seen once `expected` arrived (then a moment for any extra: the
    server runs in its own process on real time, so there is no clock to advance past its
    status coalescing, which sends the code-lens refresh)."""
    for _ in range(100):
        if sorted(set(editor.refreshes)) == sorted(expected):
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)
    return sorted(editor.refreshes)


@pytest.mark.parametrize(
    "settings", [{"markdownFiles": ["PLAN.md"], "supervisor": {"enabled": False}}]
)
async def test_settings_changes_ask_the_client_to_refresh_once(
    editor: Editor, settings: dict[str, Any]
) -> None:
    expected = [types.WORKSPACE_INLAY_HINT_REFRESH]
    if editor.caps == "vscode":  # Neovim 0.11 has neither diagnostic nor code-lens refresh
        expected += [types.WORKSPACE_DIAGNOSTIC_REFRESH, types.WORKSPACE_CODE_LENS_REFRESH]
    await wait_refreshes(editor, expected)  # the ones after `initialized` pulled the settings
    editor.refreshes.clear()
    # VS Code sends didChangeConfiguration on every settings change, ours or not: the same
    # settings ask for nothing.
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    await editor.command("todoLs.list", {})  # the server has pulled the settings by now
    editor.configure({**settings, "markdownFiles": ["OTHER.md"]})
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    await editor.wait_status(lambda s: [Path(f.uri).name for f in s.files] == ["OTHER.md"])
    assert await wait_refreshes(editor, expected) == sorted(expected)


async def test_push_client_gets_a_publish_when_settings_change(root: Path, state_dir: Path) -> None:
    editor = await start_editor(root, "push-only", {"markdownFiles": ["PLAN.md"]}, state_dir)
    try:
        await editor.wait_status(lambda s: True)
        pushed = editor.client.protocol.wait_for_notification_async(
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
        )
        uri = editor.open("PLAN.md")
        assert len((await asyncio.wait_for(pushed, TIMEOUT)).diagnostics) == 4
        pushed = editor.client.protocol.wait_for_notification_async(
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
        )
        editor.configure({"markdownFiles": ["OTHER.md"]})
        editor.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings=None)
        )
        params = await asyncio.wait_for(pushed, TIMEOUT)
        assert (params.uri, list(params.diagnostics)) == (uri, [])
    finally:
        await asyncio.wait_for(editor.client.shutdown_session(), TIMEOUT)
        await editor.client.stop()


@pytest.mark.parametrize(  # no supervisor: a host on this machine would add its own statuses
    "settings", [{"markdownFiles": ["PLAN.md"], "supervisor": {"enabled": False}}]
)
async def test_one_status_per_keystroke(editor: Editor) -> None:
    uri = editor.open("PLAN.md")
    await editor.wait_status(lambda s: True)
    # A round trip: the server has handled the didOpen. The open file's status equals the one
    # seen (4 open), so nothing more comes before the edit's.
    await editor.command("todoLs.list", {})
    before = len(editor.statuses)
    editor.set_text(uri, editor.text(uri).replace("- [ ] blocks", "- [x] blocks"))
    await editor.wait_status(lambda s: s.open == 3)
    # The next keystroke is the barrier: whatever the first one caused arrives before the
    # status of the second one (or is merged into it by the coalescing).
    editor.set_text(uri, editor.text(uri).replace("- [x] blocks", "- [ ] blocks"))
    await editor.wait_status(lambda s: len(editor.statuses) > before + 1 and s.open == 4)
    assert [s.open for s in editor.statuses[before:]] == [3, 4]
