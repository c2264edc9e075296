"""Bad editor input: malformed params to every request and command, unknown and non-file URIs,
out-of-range positions, odd document events, a glob over a symlink loop at start-up, and
invalid settings of every kind. After each, the server still answers (a follow-up request
works) and never shows an error popup. (Command refusals, files over 10 MB, non-UTF-8 files
and subscriptions outside the folder are in test_commands.py / test_status_settings.py.)"""

from __future__ import annotations

import asyncio
import uuid
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from support.fake_v2 import FakeV2Server
from support.lsp_harness import SHARED, TIMEOUT, Editor, start_editor

COMMANDS = [
    "todoLs.toggle",
    "todoLs.setState",
    "todoLs.subscribe",
    "todoLs.unsubscribe",
    "todoLs.nudge",
    "todoLs.pause",
    "todoLs.resume",
    "todoLs.list",
    "todoLs.refresh",
    "todoLs.foldDone",
]
# Argument lists no command accepts: not an object, two objects, wrong types everywhere.
BAD_ARGUMENTS: list[list[Any]] = [
    ["PLAN.md"],
    [42],
    [None],
    [[{"uri": "x"}]],
    [{"uri": "x", "line": 0}, {"extra": True}],
    [{"uri": 5, "line": "3", "state": ["done"], "sessionID": {"a": 1}}],
]
REQUESTS = [
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.TEXT_DOCUMENT_INLAY_HINT,
    types.TEXT_DOCUMENT_CODE_LENS,
    types.TEXT_DOCUMENT_DIAGNOSTIC,
    types.TEXT_DOCUMENT_DOCUMENT_SYMBOL,
    types.TEXT_DOCUMENT_FOLDING_RANGE,
    types.WORKSPACE_SYMBOL,
]
RANGE = {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}
HUGE = {"start": {"line": 10**6, "character": 10**6}, "end": {"line": 10**7, "character": 0}}
REVERSED = {"start": {"line": 5, "character": 0}, "end": {"line": 0, "character": 0}}


OFF = {"enabled": False}  # these tests are about the editor side: no host connection


@pytest.fixture
def settings() -> dict[str, Any]:
    return {"markdownFiles": ["PLAN.md"], "supervisor": OFF}


async def still_serving(editor: Editor) -> None:
    """A follow-up request works, and no error was shown to the user."""
    result = await editor.command("todoLs.list", {})
    assert result["total"] == 7
    errors = [m for m in editor.client.messages if m.type == types.MessageType.Error]
    assert errors == []


async def raw_request(editor: Editor, method: str, params: Any) -> Any:
    """Send a request exactly as given on the wire (the typed client API would refuse to
    build a malformed one); return the result or the JSON-RPC error."""
    protocol = editor.client.protocol
    msg_id = str(uuid.uuid4())
    future: Future[Any] = Future()
    # What `send_request` does, minus building a typed message (pygls internals).
    protocol._request_futures[msg_id] = future
    protocol._result_types[msg_id] = protocol.get_result_type(method)
    protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    try:
        return await asyncio.wait_for(asyncio.wrap_future(future), TIMEOUT)
    except JsonRpcException as exc:
        return exc


async def test_every_command_rejects_malformed_arguments(editor: Editor) -> None:
    for command in COMMANDS:
        for arguments in BAD_ARGUMENTS:
            answer = await raw_request(
                editor,
                types.WORKSPACE_EXECUTE_COMMAND,
                {"command": command, "arguments": arguments},
            )
            # Commands whose argument is optional may accept an odd one by ignoring it; none
            # may fail in any other way than InvalidParams (or answer `{applied: false}`).
            if isinstance(answer, JsonRpcException):
                assert answer.code == -32602, (command, arguments, answer)
    await still_serving(editor)


@pytest.mark.parametrize(
    "params",
    [
        None,
        [],
        "PLAN.md",
        {},
        {"textDocument": 5, "range": RANGE},
        {"textDocument": {"uri": None}, "range": "all"},
        {
            "textDocument": {"uri": "file:///nowhere/ghost.md"},
            "range": RANGE,
            "context": {"diagnostics": []},
        },
        {
            "textDocument": {"uri": "untitled:Untitled-1"},
            "range": RANGE,
            "context": {"diagnostics": []},
        },
        {
            "textDocument": {"uri": "not a uri at all"},
            "range": RANGE,
            "context": {"diagnostics": []},
        },
    ],
    ids=["null", "array", "string", "empty", "uri-int", "uri-null", "unknown", "untitled", "junk"],
)
@SHARED
async def test_every_request_survives_malformed_params(reader: Editor, params: Any) -> None:
    for method in REQUESTS:
        answer = await raw_request(reader, method, params)
        # Answered (an editor would otherwise wait forever): an error or an empty result.
        if isinstance(answer, JsonRpcException):
            assert answer.code in (-32602, -32603), (method, params, answer)
    await still_serving(reader)


@pytest.mark.parametrize("rng", [HUGE, REVERSED], ids=["out-of-range", "reversed"])
@SHARED
async def test_out_of_range_positions_are_answered(reader: Editor, rng: dict[str, Any]) -> None:
    uri = reader.open("PLAN.md")
    params = {"textDocument": {"uri": uri}, "range": rng, "context": {"diagnostics": []}}
    for method in (types.TEXT_DOCUMENT_CODE_ACTION, types.TEXT_DOCUMENT_INLAY_HINT):
        answer = await raw_request(reader, method, params)
        assert not isinstance(answer, JsonRpcException), (method, answer)
    answer = await reader.command("todoLs.toggle", {"uri": uri, "line": 10**9})
    assert answer["applied"] is False
    await still_serving(reader)


async def test_odd_document_events_are_tolerated(editor: Editor, root: Path) -> None:
    ghost = editor.uri("ghost.md")
    client = editor.client
    # A change and a close for documents that were never opened.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=ghost, version=3),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="- [ ] x\n")],
        )
    )
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=ghost))
    )
    # A non-file document, then an incremental change far past the end of a real one.
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri="untitled:Untitled-1", language_id="markdown", version=1, text="- [ ] a\n"
            )
        )
    )
    uri = editor.open("PLAN.md")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=999, character=5),
                        end=types.Position(line=1000, character=0),
                    ),
                    text="- [ ] appended\n",
                )
            ],
        )
    )
    # Raw notifications with params of the wrong shape.
    for method, params in (
        (types.TEXT_DOCUMENT_DID_OPEN, {"textDocument": "PLAN.md"}),
        (types.WORKSPACE_DID_CHANGE_WATCHED_FILES, {"changes": [{"uri": 1}]}),
        (types.WORKSPACE_DID_CHANGE_CONFIGURATION, None),
    ):
        client.protocol._send_data({"jsonrpc": "2.0", "method": method, "params": params})
    result = await editor.command("todoLs.list", {})
    assert result["total"] >= 7
    assert [m for m in client.messages if m.type == types.MessageType.Error] == []


@pytest.mark.parametrize("settings", [{"markdownFiles": ["**/*.md"], "supervisor": OFF}])
async def test_glob_over_a_symlink_loop_at_startup(
    root: Path, caps: str, state_dir: Path, settings: dict[str, Any]
) -> None:
    (root / "docs" / "deep").mkdir(parents=True)
    (root / "docs" / "deep" / "loop").symlink_to(root, target_is_directory=True)
    (root / "docs" / "deep" / "up").symlink_to(root / "docs", target_is_directory=True)
    (root / "docs" / "deep" / "NOTES.md").write_text("- [ ] a\n- [x] b\n", encoding="utf-8")
    editor = await start_editor(root, caps, settings, state_dir)
    try:
        status = await editor.wait_status(lambda s: len(s.files) == 2)
        names = sorted(f.uri.removeprefix(root.as_uri() + "/") for f in status.files)
        assert names == ["PLAN.md", "docs/deep/NOTES.md"]  # each once, the loop not followed
        assert (await editor.command("todoLs.list", {}))["total"] == 9
    finally:
        await asyncio.wait_for(editor.client.shutdown_session(), TIMEOUT)
        await editor.client.stop()


@pytest.mark.parametrize(
    ("settings", "key"),
    [
        ({"markdownFiles": "PLAN.md", "supervisor": OFF}, "todoLs.markdownFiles"),
        (
            {"markdownFiles": ["PLAN.md"], "states": {"done": ["x", " "]}, "supervisor": OFF},
            "todoLs.states",
        ),
        (
            {"markdownFiles": ["PLAN.md"], "supervisor": {"scope": "galaxy"}},
            "todoLs.supervisor.scope",
        ),
        (
            {"markdownFiles": ["PLAN.md"], "supervisor": {"settleMs": -5}},
            "todoLs.supervisor.settleMs",
        ),
        (
            {"markdownFiles": ["PLAN.md"], "inlayHints": {"enabled": "maybe"}},
            "todoLs.inlayHints.enabled",
        ),
    ],
    ids=["files-not-list", "states-clash", "scope", "settle", "hints"],
)
async def test_invalid_settings_warn_once_naming_the_key(editor: Editor, key: str) -> None:
    warnings = editor.take_messages(types.MessageType.Warning)
    assert len(warnings) == 1, warnings
    assert key in warnings[0], warnings
    # The rest of the settings still apply and the server keeps serving.
    await editor.command("todoLs.refresh", {})
    result = await editor.command("todoLs.list", {})
    assert result["total"] in (0, 7)
    assert [m for m in editor.client.messages if m.type == types.MessageType.Error] == []


async def test_a_supervisor_section_that_is_no_object_warns_once(
    root: Path, caps: str, state_dir: Path
) -> None:
    """`"supervisor": "on"` falls back to every supervisor default, the default URL included
    (no `url` can sit beside the bad value). A registered 2.x service (a fake) is found before
    that URL is probed, so the test server never reaches an OpenCode on 127.0.0.1:4096."""
    fake = FakeV2Server()
    await fake.start()
    fake.write_registration(state_dir / "xdg-state")  # where start_editor points XDG_STATE_HOME
    settings = {"markdownFiles": ["PLAN.md"], "supervisor": "on"}
    editor = await start_editor(root, caps, settings, state_dir)
    try:
        status = await editor.wait_status(
            lambda s: s.supervisor.host is not None and s.supervisor.host.connected
        )
        assert status.supervisor.host.url == fake.url
        warnings = editor.take_messages(types.MessageType.Warning)
        assert len(warnings) == 1 and "todoLs.supervisor" in warnings[0], warnings
        assert (await editor.command("todoLs.list", {}))["total"] == 7
    finally:
        await asyncio.wait_for(editor.client.shutdown_session(), TIMEOUT)
        await editor.client.stop()
        await fake.stop()
