"""Diagnostics: one per open item of a subscribed document.

Pushed (`textDocument/publishDiagnostics`) to clients without pull support, answered on
`textDocument/diagnostic` for clients with it, never both. Results are cached per document
version, severity and encoding, so a repeated pull or push costs nothing; each diagnostic is
kept already encoded as JSON and reused while its line is unchanged, so a keystroke in a
document with thousands of open items encodes one diagnostic, not all of them (see `wire`).

Bounded (docs/settings.md, `diagnostics.maxPerDocument`): a document gets at most that many
item diagnostics, then one Information note at the first item left out saying how many were.
Pushes are coalesced per document: a change marks the document, and its diagnostics are
published once the client's input has been read up (the framing loop's idle hook, framing.py)
or, when it never is, after `MAX_PUSH_DELAY` at most; a burst of edits publishes once, for the
newest version.
"""

from __future__ import annotations

import json
from pathlib import Path

from lsprotocol import types

from todo_ls.checklist import OPEN_STATES
from todo_ls.core.clock import Clock, SystemClock, Timer
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.positions import Encoding
from todo_ls.server.wire import RawJson, raw_protocol
from todo_ls.workspace import FileState, uri_to_path

SOURCE = "todo-ls"
LABELS = {"open": "Open", "inProgress": "In progress", "blocked": "Blocked"}


MAX_PUSH_DELAY = 0.5  # seconds a marked document waits at most while input keeps coming
CAP_SETTING = "todoLs.diagnostics.maxPerDocument"
DiagnosticKey = tuple[int, str, str, int]  # line, line text, state, bullet column
_CacheKey = tuple[FileState, types.DiagnosticSeverity, Encoding, int, int]


def item_diagnostics(
    state: FileState,
    severity: types.DiagnosticSeverity,
    encoding: Encoding,
    reuse: dict[DiagnosticKey, str] | None = None,
    limit: int | None = None,
) -> tuple[dict[DiagnosticKey, str], str | None]:
    """A diagnostic per open item (the first `limit` of them), from its bullet to the end of
    its line, encoded as JSON (the wire shape of `types.Diagnostic`) and keyed by what it
    depends on, and the note saying how many were left out (None when none were). Entries of
    `reuse` (the previous result, same severity and encoding) whose line is unchanged are
    reused, so a keystroke in a big document encodes one diagnostic."""
    lines = state.lines
    reuse = reuse or {}
    found: dict[DiagnosticKey, str] = {}
    left_out = 0
    first_left_out = 0
    for item in state.checklist.items:
        if item.state not in OPEN_STATES:
            continue
        if limit is not None and len(found) >= limit:
            if not left_out:
                first_left_out = item.line
            left_out += 1
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
    note = None
    if left_out:
        position = {"line": first_left_out, "character": 0}
        note = json.dumps(
            {
                "range": {"start": position, "end": position},
                "message": f"{left_out} more open items not shown ({CAP_SETTING} = {limit})",
                "severity": types.DiagnosticSeverity.Information.value,
                "code": "truncated",
                "source": SOURCE,
            }
        )
    return found, note


class Encoded:
    """The encoded diagnostics of one document state, and their JSON array (built once)."""

    def __init__(self, by_key: dict[DiagnosticKey, str], note: str | None) -> None:
        self.by_key = by_key
        self.array = "[" + ",".join([*by_key.values(), *([note] if note else [])]) + "]"


class Diagnostics:
    """The diagnostics of open documents, cached per (document state, settings); pushes
    coalesced per document. Waits on `clock` (real time by default)."""

    def __init__(self, ls: TodoLanguageServer, clock: Clock | None = None) -> None:
        self._ls = ls
        self._clock = clock or SystemClock()
        self._cache: dict[str, tuple[_CacheKey, Encoded]] = {}
        self._marked: dict[str, None] = {}  # documents to push, in the order marked
        self._soon: Timer | None = None  # the push when the input is read up
        self._latest: Timer | None = None  # the push at MAX_PUSH_DELAY whatever the input
        ls.idle_hooks.append(self.flush)

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
        limit = self._limit(path)
        key = (state, severity, ls.encoding, ls.generation, limit)
        cached = self._cache.get(uri)
        if cached is not None and cached[0] == key:
            return state, cached[1].array
        same_settings = cached is not None and cached[0][1:3] == key[1:3]
        reuse = cached[1].by_key if cached and same_settings else None
        found = Encoded(*item_diagnostics(state, severity, ls.encoding, reuse, limit))
        self._cache[uri] = (key, found)
        return state, found.array

    def _limit(self, path: Path) -> int:
        return self._ls.settings_for(path).diagnostics.max_per_document

    def push(self, uri: str) -> None:
        """Publish the document's diagnostics to a push client: soon, once for every change
        made until the client's input is read up (coalesced)."""
        if self._ls.client_features.pull_diagnostics:
            return
        self._marked[uri] = None
        try:
            if self._soon is None:
                self._soon = self._clock.call_at(self._clock.now(), self._when_read_up)
            if self._latest is None:
                self._latest = self._clock.call_at(self._clock.now() + MAX_PUSH_DELAY, self.flush)
        except RuntimeError:  # no event loop (a test driving the server object): now
            self.flush()

    def _when_read_up(self) -> None:
        self._soon = None
        if not self._ls.input_pending():
            self.flush()
        # Else the framing loop calls `flush` once it has handled what is pending.

    def flush(self) -> None:
        """Publish every marked document's current diagnostics."""
        for timer in (self._soon, self._latest):
            if timer is not None:
                timer.cancel()
        self._soon = self._latest = None
        marked, self._marked = self._marked, {}
        for uri in marked:
            self._publish(uri)

    def _publish(self, uri: str) -> None:
        state, found = self.for_uri(uri)
        version = f',"version":{state.version}' if state and state.version is not None else ""
        params = f'{{"uri":{json.dumps(uri)}{version},"diagnostics":{found}}}'
        raw_protocol(self._ls.protocol).notify_raw(
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, RawJson(params)
        )

    def clear(self, uri: str) -> None:
        """Forget a closed document (and clear what a push client shows for it)."""
        self._cache.pop(uri, None)
        self._marked.pop(uri, None)
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
