"""The pytest-lsp editor harness: todo-ls over stdio, driven by a test client that behaves like
an editor (it keeps its documents, applies `workspace/applyEdit` to them and sends didChange).
A plain module, imported by name (`conftest` is not: with several suites in one run, `import
conftest` finds whichever suite's conftest came first); the fixtures are in conftest.py.

Every test runs twice: with Neovim 0.11's capabilities (utf-8, pull diagnostics, inlay hints)
and with a modern VS Code set (utf-16, pull diagnostics, inlay-hint and code-lens refresh,
applyEdit, dynamic file-watcher registration); `capabilities` builds a variant for one test.

Every server message must be handled: a `window/showMessage` the test did not take
(`Editor.take_messages`) and a refresh request the client did not advertise fail the test at
teardown (`Editor.unhandled`, checked in conftest.py). Every `todoLs/status` and command answer
must be as todo_ls/payloads.py declares it (wire_check.py): a status that is not fails the test
at teardown, an answer that is not fails the `Editor.command` that got it.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Union

import pytest
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from support.wire_check import plain, problems
from todo_ls.payloads import ANSWERS, StatusPayload

SERVER = [sys.executable, "-m", "todo_ls"]
TIMEOUT = 10.0

# A loopback port that refuses every connection while this module is loaded (bound, never
# listening). The test servers' default host points here: left at its default URL, a test
# server would reach a real OpenCode listening on this machine's 127.0.0.1:4096.
_REFUSING = socket.socket()
_REFUSING.bind(("127.0.0.1", 0))
NO_HOST_URL = f"http://127.0.0.1:{_REFUSING.getsockname()[1]}"


def with_no_host(section: dict[str, Any]) -> dict[str, Any]:
    """`section` (the `todoLs` settings) with `supervisor.url` at `NO_HOST_URL` unless the test
    names its own; a `supervisor` value that is not an object (bad input) is left as it is."""
    supervisor = section.get("supervisor", {})
    if not isinstance(supervisor, dict) or "url" in supervisor:
        return section
    return {**section, "supervisor": {**supervisor, "url": NO_HOST_URL}}


# `start_editor(init_options=NO_INIT_OPTIONS)`: send no initializationOptions at all, as a
# client configured only through `workspace/configuration` does (Neovim's `vim.lsp.start`
# with `settings`, most generic clients).
NO_INIT_OPTIONS = object()


PLAN = """\
# Plan

Intro text.

## Build

- [ ] write parser
  - [x] tokens
  - [ ] blocks
- [/] server
- [x] docs

## Ship

- [~] blog post
- [?] ask legal
- plain note
"""


def vscode_capabilities() -> types.ClientCapabilities:
    """What VS Code 1.9x with vscode-languageclient 9 advertises (the parts todo-ls uses)."""
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(
            position_encodings=[types.PositionEncodingKind.Utf16]
        ),
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True,
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True),
            did_change_configuration=types.DidChangeConfigurationClientCapabilities(
                dynamic_registration=True
            ),
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(
                dynamic_registration=True, relative_pattern_support=True
            ),
            execute_command=types.ExecuteCommandClientCapabilities(dynamic_registration=True),
            workspace_folders=True,
            configuration=True,
            inlay_hint=types.InlayHintWorkspaceClientCapabilities(refresh_support=True),
            code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True),
            diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=True),
        ),
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(
                        value_set=[types.CodeActionKind.QuickFix, types.CodeActionKind.Refactor]
                    )
                ),
                is_preferred_support=True,
                data_support=True,
            ),
            code_lens=types.CodeLensClientCapabilities(dynamic_registration=True),
            inlay_hint=types.InlayHintClientCapabilities(dynamic_registration=True),
            document_symbol=types.DocumentSymbolClientCapabilities(
                hierarchical_document_symbol_support=True,
                tag_support=types.ClientSymbolTagOptions(value_set=[types.SymbolTag.Deprecated]),
                label_support=True,
            ),
            folding_range=types.FoldingRangeClientCapabilities(
                range_limit=5000, line_folding_only=True
            ),
            diagnostic=types.DiagnosticClientCapabilities(
                dynamic_registration=True, related_document_support=False
            ),
        ),
        window=types.WindowClientCapabilities(work_done_progress=True),
    )


def _workspace(caps: types.ClientCapabilities) -> types.WorkspaceClientCapabilities:
    caps.workspace = caps.workspace or types.WorkspaceClientCapabilities()
    return caps.workspace


def _text(caps: types.ClientCapabilities) -> types.TextDocumentClientCapabilities:
    caps.text_document = caps.text_document or types.TextDocumentClientCapabilities()
    return caps.text_document


def _symbols(caps: types.ClientCapabilities) -> types.DocumentSymbolClientCapabilities:
    text = _text(caps)
    text.document_symbol = text.document_symbol or types.DocumentSymbolClientCapabilities()
    return text.document_symbol


def _folding(caps: types.ClientCapabilities) -> types.FoldingRangeClientCapabilities:
    text = _text(caps)
    text.folding_range = text.folding_range or types.FoldingRangeClientCapabilities()
    return text.folding_range


def _set_watched_files(caps: types.ClientCapabilities, on: bool) -> None:
    _workspace(caps).did_change_watched_files = types.DidChangeWatchedFilesClientCapabilities(
        dynamic_registration=on, relative_pattern_support=on
    )


def _set_window_progress(caps: types.ClientCapabilities, on: bool) -> None:
    caps.window = caps.window or types.WindowClientCapabilities()
    caps.window.work_done_progress = on


# How a client says it has (or lacks) each feature, by the names of the server's
# `ClientFeatures` fields (the server resolves them back, see test_client_features.py).
FEATURES: dict[str, Callable[[types.ClientCapabilities, bool], None]] = {
    "pull_diagnostics": lambda c, on: setattr(
        _text(c), "diagnostic", types.DiagnosticClientCapabilities() if on else None
    ),
    "diagnostic_refresh": lambda c, on: setattr(
        _workspace(c),
        "diagnostics",
        types.DiagnosticWorkspaceClientCapabilities(refresh_support=on),
    ),
    "inlay_hint_refresh": lambda c, on: setattr(
        _workspace(c), "inlay_hint", types.InlayHintWorkspaceClientCapabilities(refresh_support=on)
    ),
    "code_lens_refresh": lambda c, on: setattr(
        _workspace(c), "code_lens", types.CodeLensWorkspaceClientCapabilities(refresh_support=on)
    ),
    "apply_edit": lambda c, on: setattr(_workspace(c), "apply_edit", on),
    "configuration": lambda c, on: setattr(_workspace(c), "configuration", on),
    "file_watcher_registration": _set_watched_files,
    "work_done_progress": _set_window_progress,
    "hierarchical_symbols": lambda c, on: setattr(
        _symbols(c), "hierarchical_document_symbol_support", on
    ),
    "symbol_tags": lambda c, on: setattr(
        _symbols(c),
        "tag_support",
        types.ClientSymbolTagOptions(value_set=[types.SymbolTag.Deprecated]) if on else None,
    ),
    "folding_collapsed_text": lambda c, on: setattr(
        _folding(c), "folding_range", types.ClientFoldingRangeOptions(collapsed_text=on)
    ),
}

# The clients a test starts from: Neovim 0.11 and VS Code 1.65 as pytest-lsp recorded them
# (1.65: push diagnostics only, no inlay hints), and the modern VS Code set above.
CLIENTS: dict[str, Callable[[], types.ClientCapabilities]] = {
    "neovim": lambda: client_capabilities("neovim"),
    "vscode": vscode_capabilities,
    "vscode-1.65": lambda: client_capabilities("visual-studio-code"),
}


def capabilities(
    like: str, *, encoding: str | None = None, **features: bool
) -> types.ClientCapabilities:
    """The capabilities of the client `like` (a `CLIENTS` or `VARIANTS` name), with each named
    feature (a `FEATURES` name) turned on or off and, with `encoding`, only that position
    encoding offered. An unknown name fails: a misspelt feature must not test the default."""
    base = CLIENTS.get(like) or VARIANTS.get(like)
    unknown = sorted(set(features) - set(FEATURES))
    if base is None or unknown:
        raise TypeError(f"unknown client {like!r} or features {unknown} (see lsp_harness)")
    caps = base()
    for name, on in features.items():
        FEATURES[name](caps, on)
    if encoding is not None:
        caps.general = caps.general or types.GeneralClientCapabilities()
        caps.general.position_encodings = [encoding]
    return caps


# Named variants the parametrized suites run under besides "neovim" and "vscode".
VARIANTS: dict[str, Callable[[], types.ClientCapabilities]] = {
    "push-only": lambda: capabilities("vscode-1.65"),
    # utf-8 positions with pushed diagnostics (Neovim 0.10, or pull turned off).
    "neovim-push": lambda: capabilities("neovim", pull_diagnostics=False),
}


def _client_factory() -> LanguageClient:
    # lsprotocol 2025.0.0 decodes a CodeAction that has a `command` as a bare Command.
    def converter_factory() -> Any:
        conv = default_converter()

        def hook(obj: Any, _: Any) -> Any:
            kind = types.Command if isinstance(obj.get("command"), str) else types.CodeAction
            return conv.structure(obj, kind)

        conv.register_structure_hook(Union[types.Command, types.CodeAction], hook)  # noqa: UP007
        return conv

    client = LanguageClient(converter_factory=converter_factory)
    # The editor records diagnostic refreshes itself (see `start_editor`).
    defaults = dict(DEFAULT_CLIENT_FEATURES)
    del defaults[types.WORKSPACE_DIAGNOSTIC_REFRESH]
    del defaults[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]  # with their version (`start_editor`)
    register_lsp_features(client, defaults)
    return client


def offset(text: str, position: types.Position, encoding: str) -> int:
    """The string index of a client position in `text` (lines split like LSP)."""
    starts = [0]
    i = 0
    while i < len(text):
        if text[i] == "\r" and text[i + 1 : i + 2] == "\n":
            i += 1
        if text[i] in "\r\n":
            starts.append(i + 1)
        i += 1
    if position.line >= len(starts):
        return len(text)  # past the last line: the end of the text
    start = starts[position.line]
    line_end = starts[position.line + 1] if position.line + 1 < len(starts) else len(text)
    line = text[start:line_end].rstrip("\r\n")
    units = 0
    for col, char in enumerate(line):
        if units >= position.character:
            return start + col
        units += (
            len(char.encode("utf-8")) if encoding == "utf-8" else len(char.encode("utf-16-le")) // 2
        )
    return start + len(line)


# Every editor `start_editor` started: conftest.py checks each one's `unhandled` after a test.
STARTED: list[Editor] = []


# Marks a test that uses the shared server (`reader`): it runs on the module's event loop.
SHARED = pytest.mark.asyncio(loop_scope="module")


class Editor:
    """The test client's editor side: open documents, status notifications, messages."""

    def __init__(
        self, client: LanguageClient, root: Path, caps: str, capabilities: types.ClientCapabilities
    ) -> None:
        self.client = client
        self.root = root
        self.caps = caps  # the client's name (a `CLIENTS` or `VARIANTS` name)
        self.capabilities = capabilities
        self.docs: dict[str, tuple[int, str]] = {}
        self.statuses: list[Any] = []
        self.registrations: list[types.Registration] = []
        self.applied: list[types.ApplyWorkspaceEditParams] = []
        self.refreshes: list[str] = []  # server→client refresh requests, by method
        self.unexpected: list[str] = []  # requests the client never said it takes
        self.undeclared: list[str] = []  # how statuses differed from their declaration
        self.encoding = "utf-16"
        self.server_capabilities = types.ServerCapabilities()
        # Applied edits reach the server as incremental changes (as VS Code and Neovim send
        # them) rather than as the whole text.
        self.incremental = False
        self.pushed: dict[str, types.PublishDiagnosticsParams] = {}
        self.pulls = True  # the client pulls diagnostics (else the server pushes them)
        self._changed = asyncio.Event()

    def take_messages(self, kind: types.MessageType | None = None) -> list[str]:
        """The texts of the `window/showMessage`s (of `kind`) received so far: the test
        expects them. Messages no test took fail it at teardown (`unhandled`)."""
        taken = [m for m in self.client.messages if kind is None or m.type == kind]
        self.client.messages[:] = [m for m in self.client.messages if m not in taken]
        return [m.message for m in taken]

    def refreshed(self, method: str) -> None:
        """Record a refresh request, unexpected when the client did not advertise it."""
        workspace = self.capabilities.workspace
        part = {
            types.WORKSPACE_INLAY_HINT_REFRESH: "inlay_hint",
            types.WORKSPACE_CODE_LENS_REFRESH: "code_lens",
            types.WORKSPACE_DIAGNOSTIC_REFRESH: "diagnostics",
        }[method]
        if not getattr(getattr(workspace, part, None), "refresh_support", False):
            self.unexpected.append(f"{method} (not advertised by {self.caps!r})")
        self.refreshes.append(method)

    def unhandled(self) -> list[str]:
        """What the server sent that nothing handled (forgotten once returned): showMessages
        no test took, requests the client never advertised, any `window/showDocument` (which
        pytest-lsp answers silently and todo-ls never sends), statuses not as declared."""
        found = [
            *self.unexpected,
            *(f"todoLs/status not as declared: {problem}" for problem in self.undeclared),
            *(f"window/showMessage {m.type.name}: {m.message!r}" for m in self.client.messages),
            *(f"window/showDocument {d.uri}" for d in self.client.shown_documents),
        ]
        self.unexpected.clear()
        self.undeclared.clear()
        self.client.messages.clear()
        self.client.shown_documents.clear()
        return found

    def configure(self, settings: dict[str, Any], folder: Path | None = None) -> None:
        """What the editor answers `workspace/configuration` with from now on (the harness's
        default host included, see `with_no_host`): for every scope, or for `folder`'s."""
        scope = folder.as_uri() if folder is not None else None
        self.client.set_configuration(with_no_host(settings), section="todoLs", scope_uri=scope)

    def uri(self, name: str) -> str:
        return (self.root / name).as_uri()

    def open(self, name: str, text: str | None = None) -> str:
        uri = self.uri(name)
        if text is None:
            text = (self.root / name).read_text(encoding="utf-8")
        self.docs[uri] = (1, text)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="markdown", version=1, text=text
                )
            )
        )
        return uri

    def close_all(self) -> None:
        """Close every open document: the server goes back to what is on disk."""
        for uri in self.docs:
            self.client.text_document_did_close(
                types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri))
            )
        self.docs.clear()

    def set_text(self, uri: str, text: str) -> None:
        version = self.docs[uri][0] + 1
        self.docs[uri] = (version, text)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def change(self, uri: str, changes: list[tuple[types.Range, str]]) -> None:
        """Edit the document as a user types: each (range, text) applies to the text the
        previous ones left (ranges in the negotiated encoding), sent as one incremental
        didChange."""
        version, text = self.docs[uri]
        for rng, new in changes:
            start, end = sorted(
                (offset(text, rng.start, self.encoding), offset(text, rng.end, self.encoding))
            )
            text = text[:start] + new + text[end:]
        self.docs[uri] = (version + 1, text)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version + 1),
                content_changes=[
                    types.TextDocumentContentChangePartial(range=rng, text=new)
                    for rng, new in changes
                ],
            )
        )

    def text(self, uri: str) -> str:
        return self.docs[uri][1]

    def notify_diagnostics(self, params: types.PublishDiagnosticsParams) -> None:
        self.client.diagnostics[params.uri] = params.diagnostics
        self.pushed[params.uri] = params
        self._changed.set()

    async def diagnostics(self, uri: str) -> list[types.Diagnostic]:
        """The diagnostics of the document's current version: pulled, or the push that
        carries that version."""
        if self.pulls:
            return await self.pull(uri)
        version = self.docs[uri][0]

        async def wait() -> list[types.Diagnostic]:
            while True:
                pushed = self.pushed.get(uri)
                if pushed is not None and pushed.version == version:
                    return list(pushed.diagnostics)
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(wait(), TIMEOUT)

    def apply(self, edit: types.WorkspaceEdit) -> bool:
        """Apply a `changes` workspace edit to the open documents (and tell the server)."""
        for uri, edits in (edit.changes or {}).items():
            if uri not in self.docs:
                return False
            text = self.text(uri)
            spans = [
                (
                    offset(text, e.range.start, self.encoding),
                    offset(text, e.range.end, self.encoding),
                    e.new_text,
                )
                for e in edits
            ]
            if self.incremental:
                # From the end backwards: each range still means what the server said.
                order = sorted(range(len(edits)), key=lambda k: spans[k][:2], reverse=True)
                self.change(uri, [(edits[k].range, edits[k].new_text) for k in order])
                continue
            for start, end, new in sorted(spans, reverse=True):
                text = text[:start] + new + text[end:]
            self.set_text(uri, text)
        return True

    def notify_status(self, params: Any) -> None:
        self.undeclared += problems(plain(params), StatusPayload)
        self.statuses.append(params)
        self._changed.set()

    async def wait_status(self, predicate: Callable[[Any], bool]) -> Any:
        """The first status (already received or coming) that satisfies `predicate`."""

        async def wait() -> Any:
            while True:
                for status in reversed(self.statuses):
                    if predicate(status):
                        return status
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(wait(), TIMEOUT)

    async def command(self, name: str, *arguments: Any) -> Any:
        """The server's answer to command `name`, checked against its declared type."""
        answer = await asyncio.wait_for(
            self.client.workspace_execute_command_async(
                types.ExecuteCommandParams(command=name, arguments=list(arguments))
            ),
            TIMEOUT,
        )
        undeclared = problems(plain(answer), ANSWERS[name])
        assert not undeclared, f"the answer to {name} is not as declared: {undeclared}"
        return answer

    async def inlay_hints(self, uri: str, first: int, last: int) -> list[types.InlayHint]:
        """The hints of lines `first` to `last`."""
        found = await asyncio.wait_for(
            self.client.text_document_inlay_hint_async(
                types.InlayHintParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    range=types.Range(
                        start=types.Position(line=first, character=0),
                        end=types.Position(line=last, character=0),
                    ),
                )
            ),
            TIMEOUT,
        )
        return list(found or [])

    async def code_actions(
        self, uri: str, line: int, diagnostics: Sequence[types.Diagnostic] = ()
    ) -> Sequence[types.Command | types.CodeAction] | None:
        """The server's answer to a code-action request at the start of `line`."""
        at = types.Position(line=line, character=0)
        return await asyncio.wait_for(
            self.client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    range=types.Range(start=at, end=at),
                    context=types.CodeActionContext(diagnostics=list(diagnostics)),
                )
            ),
            TIMEOUT,
        )

    async def pull(self, uri: str) -> list[types.Diagnostic]:
        report = await asyncio.wait_for(
            self.client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
            ),
            TIMEOUT,
        )
        assert isinstance(report, types.RelatedFullDocumentDiagnosticReport) or hasattr(
            report, "items"
        )
        return list(report.items)


async def start_editor(
    root: Path,
    caps: str,
    settings: dict[str, Any] | None,
    state_dir: Path,
    init_options: Any = None,
    more_folders: tuple[Path, ...] = (),
    features: dict[str, Any] | None = None,
) -> Editor:
    """Start todo-ls, connect a test editor and run initialize/initialized. `root` is the
    first workspace folder, `more_folders` the others of a multi-root workspace; the client is
    `caps` with `features` (keywords of `capabilities`). Listed in `STARTED`."""
    # XDG_STATE_HOME too: the supervisor's 2.x discovery must never find a real OpenCode
    # registration file of the machine running the tests.
    env = {
        **os.environ,
        "TODO_LS_STATE_DIR": str(state_dir),
        "XDG_STATE_HOME": str(state_dir / "xdg-state"),
    }
    config = ClientServerConfig(
        server_command=SERVER, client_factory=_client_factory, server_env=env
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    client_caps = capabilities(caps, **(features or {}))
    editor = Editor(client, root, caps, client_caps)
    STARTED.append(editor)

    @client.feature("todoLs/status")
    def on_status(params: Any) -> None:
        editor.notify_status(params)

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        editor.notify_diagnostics(params)

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def on_apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        editor.applied.append(params)
        return types.ApplyWorkspaceEditResult(applied=editor.apply(params.edit))

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def on_register(params: types.RegistrationParams) -> None:
        editor.registrations += params.registrations

    @client.feature(types.CLIENT_UNREGISTER_CAPABILITY)
    def on_unregister(params: types.UnregistrationParams) -> None:
        gone = {u.id for u in params.unregisterations}
        editor.registrations = [r for r in editor.registrations if r.id not in gone]

    @client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def on_inlay_refresh(params: Any) -> None:
        editor.refreshed(types.WORKSPACE_INLAY_HINT_REFRESH)

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def on_lens_refresh(params: Any) -> None:
        editor.refreshed(types.WORKSPACE_CODE_LENS_REFRESH)

    @client.feature(types.WORKSPACE_DIAGNOSTIC_REFRESH)
    def on_diagnostic_refresh(params: Any) -> None:
        editor.refreshed(types.WORKSPACE_DIAGNOSTIC_REFRESH)

    if settings is not None:
        editor.configure(settings)
    if init_options is NO_INIT_OPTIONS:
        init_options = None
    elif init_options is None:
        init_options = {"todoLs": with_no_host({})}
    elif isinstance(init_options, dict) and isinstance(init_options.get("todoLs"), dict):
        init_options = {**init_options, "todoLs": with_no_host(init_options["todoLs"])}
    text_caps = client_caps.text_document
    editor.pulls = text_caps is not None and text_caps.diagnostic is not None
    result = await asyncio.wait_for(
        client.initialize_session(
            types.InitializeParams(
                capabilities=client_caps,
                root_uri=root.as_uri(),
                workspace_folders=[
                    types.WorkspaceFolder(uri=folder.as_uri(), name=folder.name)
                    for folder in (root, *more_folders)
                ],
                initialization_options=init_options,
            )
        ),
        TIMEOUT,
    )
    editor.server_capabilities = result.capabilities
    encoding = result.capabilities.position_encoding
    editor.encoding = getattr(encoding, "value", encoding) or "utf-16"
    return editor
