"""Document sync, workspace folders and freshness of files edited on disk.

Open documents: the editor's text is recorded in the workspace index on every change and the
dependent outputs (push diagnostics, status, supervisor) are updated. Unopened subscribed
files: the client's file watcher (`workspace/didChangeWatchedFiles`, registered dynamically for
the subscribed paths and globs when the client supports it) or, without one, a light poll of
their size and mtime.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from pathlib import Path

from lsprotocol import types

from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.diagnostics import Diagnostics
from todo_ls.server.text_document import LspTextDocument
from todo_ls.workspace import uri_to_path

log = logging.getLogger(__name__)

POLL_SECONDS = 2.0


def _stamp(path: Path) -> tuple[int, int] | None:
    """Size and mtime of `path`, None when it does not exist (or cannot be read)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


class FileWatch:
    """Keeps the client's file watchers in step with the subscriptions; polls without them."""

    def __init__(self, ls: TodoLanguageServer) -> None:
        self._ls = ls
        self._registration: str | None = None
        self._patterns: list[str] = []
        self._poller: asyncio.Task[None] | None = None

    @property
    def dynamic(self) -> bool:
        return self._ls.client_features.file_watcher_registration

    def patterns(self) -> list[str]:
        """Absolute globs for every folder's `markdownFiles` plus every subscribed file and
        the folders' project files."""
        ls = self._ls
        found: set[str] = set()
        for folder in ls.workspace_index.folders:
            found |= {(folder.path / p).as_posix() for p in ls.workspace_index.patterns(folder)}
        found |= {path.as_posix() for _, path in ls.workspace_index.all_subscribed()}
        found |= {path.as_posix() for path in ls.configuration.project_file_paths()}
        return sorted(found)

    async def update(self) -> None:
        """Re-register the watchers when the watched set changed (or start polling)."""
        ls = self._ls
        if not self.dynamic:
            if self._poller is None:
                self._poller = ls.spawn(self._poll(), "disk poll")
            return
        patterns = self.patterns()
        if patterns == self._patterns:
            return
        self._patterns = patterns
        if self._registration is not None:
            old, self._registration = self._registration, None
            await ls.client_unregister_capability_async(
                types.UnregistrationParams(
                    unregisterations=[
                        types.Unregistration(
                            id=old, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES
                        )
                    ]
                )
            )
        if not patterns:
            return
        registration = str(uuid.uuid4())
        options = types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern=p) for p in patterns]
        )
        await ls.client_register_capability_async(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id=registration,
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=options,
                    )
                ]
            )
        )
        self._registration = registration

    async def _poll(self) -> None:
        ls = self._ls
        index = ls.workspace_index
        last: object = None
        last_projects: object = None
        while True:
            index.invalidate_globs()
            stamps = [(p, index.state(p).stamp) for _, p in index.all_subscribed()]
            # The first round also counts as a change: files may have changed since the
            # status the server sent last.
            if stamps != last:
                ls.files_changed()
            last = stamps
            projects = [(p, _stamp(p)) for p in ls.configuration.project_file_paths()]
            if last_projects is not None and projects != last_projects:
                ls.spawn(ls.refresh_settings(), "settings after a project file change")
            last_projects = projects
            await asyncio.sleep(POLL_SECONDS)

    def stop(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
            self._poller = None


def register(server: TodoLanguageServer, diagnostics: Diagnostics, watch: FileWatch) -> None:
    def changed(ls: TodoLanguageServer, uri: str, version: int, resync: bool = False) -> None:
        doc = ls.workspace.get_text_document(uri)
        lines = doc.text_lines if isinstance(doc, LspTextDocument) else None
        path = ls.workspace_index.open_document(uri, version, doc.source, lines)
        if path is None:
            return
        if resync:
            # The editor sent its whole text: parse it afresh rather than derive it from the
            # last parse, whatever that was (the same text would keep it as it is).
            ls.workspace_index.forget(path)
        diagnostics.push(uri)
        if ls.workspace_index.is_subscribed(path):
            ls.files_changed()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: TodoLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        # A file created in the editor may match a subscribed glob now.
        ls.workspace_index.invalidate_globs()
        changed(ls, params.text_document.uri, params.text_document.version)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: TodoLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        whole = any(
            isinstance(change, types.TextDocumentContentChangeWholeDocument)
            for change in params.content_changes
        )
        changed(ls, params.text_document.uri, params.text_document.version, resync=whole)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: TodoLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        path = ls.workspace_index.close_document(params.text_document.uri)
        diagnostics.clear(params.text_document.uri)
        ls.document_closed(params.text_document.uri)
        if path is not None and ls.workspace_index.is_subscribed(path):
            ls.files_changed()  # the disk text counts again

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched(
        ls: TodoLanguageServer, params: types.DidChangeWatchedFilesParams
    ) -> None:
        index = ls.workspace_index
        relevant = False
        projects = set(ls.configuration.project_file_paths())
        project_changed = False
        for change in params.changes:
            path = uri_to_path(change.uri)
            if path is None:
                continue
            if path in projects:
                project_changed = True
                continue
            index.forget(path)
            if change.type != types.FileChangeType.Changed:
                index.invalidate_globs()
            relevant = relevant or index.is_subscribed(path)
        if relevant:
            ls.files_changed()
        if project_changed:
            ls.spawn(ls.refresh_settings(), "settings after a project file change")

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_folders(
        ls: TodoLanguageServer, params: types.DidChangeWorkspaceFoldersParams
    ) -> None:
        ls.workspace_index.set_folders(ls.workspace_folders())
        ls.subscriptions_changed()
        ls.spawn(ls.refresh_settings(), "settings of the new workspace folders")
