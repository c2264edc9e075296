"""Diagnostics: one per open item of a subscribed document.

Pushed (`textDocument/publishDiagnostics`) to clients without pull support, answered on
`textDocument/diagnostic` for clients with it, never both. Results are cached per document
version, severity and encoding, so a repeated pull or push costs nothing; each diagnostic is
kept already encoded as JSON and reused while its line is unchanged, so a keystroke in a
document with thousands of open items encodes one diagnostic, not all of them (see `wire`).
"""

from __future__ import annotations

import json

from lsprotocol import types

from todo_ls.checklist import OPEN_STATES
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.positions import Encoding
from todo_ls.server.wire import RawJson, raw_protocol
from todo_ls.workspace import FileState, uri_to_path

SOURCE = "todo-ls"
LABELS = {"open": "Open", "inProgress": "In progress", "blocked": "Blocked"}


DiagnosticKey = tuple[int, str, str, int]  # line, line text, state, bullet column
_CacheKey = tuple[FileState, types.DiagnosticSeverity, Encoding, int]


def item_diagnostics(
    state: FileState,
    severity: types.DiagnosticSeverity,
    encoding: Encoding,
    reuse: dict[DiagnosticKey, str] | None = None,
) -> dict[DiagnosticKey, str]:
    """A diagnostic per open item, from its bullet to the end of its line, encoded as JSON
    (the wire shape of `types.Diagnostic`) and keyed by what it depends on. Entries of `reuse`
    (the previous result, same severity and encoding) whose line is unchanged are reused, so
    a keystroke in a big document encodes one diagnostic."""
    lines = state.lines
    reuse = reuse or {}
    found = {}
    for item in state.checklist.items:
        if item.state not in OPEN_STATES:
            continue
        text = lines[item.line] if item.line < len(lines) else ""
        key = (item.line, text, item.state, item.bullet_col)
        diagnostic = reuse.get(key)
        if diagnostic is None:
            line = item.line
            diagnostic = json.dumps(
                {
                    "range": {
                        "start": {
                            "line": line,
                            "character": encoding.column(text, item.bullet_col),
                        },
                        "end": {"line": line, "character": encoding.column(text, len(text))},
                    },
                    "message": f"{LABELS.get(item.state, item.state)}: {item.text}",
                    "severity": severity.value,
                    "code": item.state,
                    "source": SOURCE,
                }
            )
        found[key] = diagnostic
    return found


class Encoded:
    """The encoded diagnostics of one document state, and their JSON array (built once)."""

    def __init__(self, by_key: dict[DiagnosticKey, str]) -> None:
        self.by_key = by_key
        self.array = "[" + ",".join(by_key.values()) + "]"


class Diagnostics:
    """The diagnostics of open documents, cached per (document state, settings)."""

    def __init__(self, ls: TodoLanguageServer) -> None:
        self._ls = ls
        self._cache: dict[str, tuple[_CacheKey, Encoded]] = {}

    def for_uri(self, uri: str) -> tuple[FileState | None, str]:
        """The document's state (None when not a subscribed file) and its diagnostics as an
        encoded JSON array."""
        ls = self._ls
        path = uri_to_path(uri)
        if path is None or not ls.workspace_index.is_subscribed(path):
            self._cache.pop(uri, None)
            return None, "[]"
        state = ls.workspace_index.state(path)
        severity = ls.severity_for(path)
        if severity is None:
            return state, "[]"
        key = (state, severity, ls.encoding, ls.generation)
        cached = self._cache.get(uri)
        if cached is not None and cached[0] == key:
            return state, cached[1].array
        same_settings = cached is not None and cached[0][1:3] == key[1:3]
        found = Encoded(
            item_diagnostics(
                state, severity, ls.encoding, cached[1].by_key if cached and same_settings else None
            )
        )
        self._cache[uri] = (key, found)
        return state, found.array

    def push(self, uri: str) -> None:
        """Publish the document's diagnostics to a push client."""
        if self._ls.client_features.pull_diagnostics:
            return
        state, found = self.for_uri(uri)
        version = f',"version":{state.version}' if state and state.version is not None else ""
        params = f'{{"uri":{json.dumps(uri)}{version},"diagnostics":{found}}}'
        raw_protocol(self._ls.protocol).notify_raw(
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, RawJson(params)
        )

    def clear(self, uri: str) -> None:
        """Forget a closed document (and clear what a push client shows for it)."""
        self._cache.pop(uri, None)
        if not self._ls.client_features.pull_diagnostics:
            self._ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )

    async def refresh_all(self) -> None:
        """Settings or subscriptions changed: re-push, or ask a pull client to re-pull."""
        ls = self._ls
        if not ls.client_features.pull_diagnostics:
            for uri in list(ls.workspace.text_documents):
                self.push(uri)
        elif ls.client_features.diagnostic_refresh:
            await ls.workspace_diagnostic_refresh_async(None)


def register(server: TodoLanguageServer, diagnostics: Diagnostics) -> None:
    """The pull handler (pushes are triggered by document changes)."""

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier=SOURCE, inter_file_dependencies=False, workspace_diagnostics=False
        ),
    )
    async def on_diagnostic(
        ls: TodoLanguageServer, params: types.DocumentDiagnosticParams
    ) -> RawJson | types.UnchangedDocumentDiagnosticReport:
        # A pull right after didOpen, while the settings are being fetched, waits for them:
        # Neovim has no diagnostic refresh, an empty answer would stand until the next edit.
        await ls.configuration.ready()
        uri = params.text_document.uri
        state, found = diagnostics.for_uri(uri)
        severity = ls.settings_for(uri_to_path(uri)).diagnostics.severity
        result_id = f"{ls.generation}:{severity}:" + (
            f"{state.version if state.is_open else state.stamp}" if state is not None else "none"
        )
        if params.previous_result_id == result_id:
            return types.UnchangedDocumentDiagnosticReport(result_id=result_id)
        # A FullDocumentDiagnosticReport, already encoded.
        return RawJson(f'{{"kind":"full","resultId":{json.dumps(result_id)},"items":{found}}}')
