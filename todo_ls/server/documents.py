"""Document sync, workspace folders and freshness of files edited on disk.

Open documents: the editor's text is recorded in the workspace index on every change and the
dependent outputs (push diagnostics, status, supervisor) are updated. Unopened subscribed
files: the client's file watcher (`workspace/didChangeWatchedFiles`, registered dynamically for
the subscribed paths and globs when the client supports it) and the disk re-check, a thread
that stats them off the event loop and posts only what changed (disk_scan.py): every
`POLL_SECONDS` without a client watcher, every `RECHECK_SECONDS` with one (events it missed).
Both go through `apply_disk_changes`, which updates the globs' expansion in place: no event
walks the workspace.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from lsprotocol import types

from todo_ls.disk_scan import Delta, DiskScanner, ScanPlan, plan_of
from todo_ls.globs import normalize, split_glob
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.diagnostics import Diagnostics
from todo_ls.server.text_document import LspTextDocument
from todo_ls.workspace import uri_to_path

log = logging.getLogger(__name__)

Change = Literal["created", "deleted", "changed"]
_KINDS: dict[types.FileChangeType, Change] = {
    types.FileChangeType.Created: "created",
    types.FileChangeType.Deleted: "deleted",
    types.FileChangeType.Changed: "changed",
}

POLL_SECONDS = 2.0  # the re-check's pace without a client watcher (at least)
RECHECK_SECONDS = 10.0  # with one: only a backstop for events it missed


def apply_disk_changes(ls: TodoLanguageServer, changes: Iterable[tuple[Change, Path]]) -> None:
    """Files created, deleted or changed on disk (a client watcher's event or the disk
    re-check's delta): the index updates the globs' expansion and the counts by the change,
    the status and the supervisor follow; a project file's change re-reads the settings.
    `changes` in the order they happened (a file deleted and created again is there)."""
    index = ls.workspace_index
    projects = set(ls.configuration.project_file_paths())
    relevant = False
    project_changed = False
    for kind, path in changes:
        if path in projects:
            project_changed = True
            continue
        if kind == "created":
            hit = index.file_created(path)
        elif kind == "deleted":
            hit = index.file_deleted(path)
        else:
            hit = index.file_changed(path)
        relevant = relevant or hit
    if relevant:
        ls.files_changed()
    if project_changed:
        ls.spawn(ls.refresh_settings(), "settings after a project file change")


class FileWatch:
    """Keeps the client's file watchers in step with the subscriptions; polls without them."""

    def __init__(self, ls: TodoLanguageServer) -> None:
        self._ls = ls
        self._registration: str | None = None
        self._patterns: list[str] = []
        self._scanner: DiskScanner | None = None
        # Set once the initial index is built: the re-check's baseline is what the index read,
        # and before that it would report every file as changed.
        self.indexed = False

    @property
    def dynamic(self) -> bool:
        return self._ls.client_features.file_watcher_registration

    def patterns(self) -> list[str]:
        """Absolute globs for every folder's `markdownFiles` plus every file subscribed by
        command and the folders' project files."""
        ls = self._ls
        found: set[str] = set()
        for folder in ls.workspace_index.folders:
            for pattern in ls.workspace_index.patterns(folder):
                found.add((folder.path / pattern).as_posix())
                if split_glob(folder.path, pattern) is None:  # a file: as the index spells it
                    found.add(normalize(folder.path / pattern).as_posix())
        # A glob's files are its pattern's: only files subscribed by command need their own
        # (not one watcher per file of a 20,000-file glob, re-listed at every update).
        found |= {path.as_posix() for path in ls.workspace_index.command_subscribed()}
        found |= {path.as_posix() for path in ls.configuration.project_file_paths()}
        return sorted(found)

    def scan_plan(self) -> ScanPlan:
        """What the disk re-check looks at: each folder's patterns as the index expands them,
        the files subscribed by command and the project files."""
        ls = self._ls
        index = ls.workspace_index
        folders = [(f.path, index.patterns(f), index.confined(f)) for f in index.folders]
        files = set(index.command_subscribed())
        files |= set(ls.configuration.project_file_paths())
        return plan_of(folders, files)

    def _restart_scanner(self) -> None:
        """(Re)start the disk re-check when what it must look at changed."""
        ls = self._ls
        if not self.indexed:
            return
        plan = self.scan_plan()
        if self._scanner is not None and self._scanner.plan == plan:
            return
        if self._scanner is not None:
            self._scanner.stop()
        loop = asyncio.get_running_loop()

        def post(delta: Delta) -> None:  # on the scanner's thread
            loop.call_soon_threadsafe(self._apply, scanner, delta)

        floor = RECHECK_SECONDS if self.dynamic else POLL_SECONDS
        baseline = {**ls.workspace_index.stamps(), **{p: None for p in plan.files}}
        scanner = self._scanner = DiskScanner(plan, baseline, post, floor)
        scanner.start()

    def _apply(self, scanner: DiskScanner, delta: Delta) -> None:
        if scanner is not self._scanner:
            return  # a round of a plan that is gone
        changes: list[tuple[Change, Path]] = [("deleted", p) for p in delta.deleted]
        changes += [("created", p) for p in delta.created]
        changes += [("changed", p) for p in delta.changed]
        apply_disk_changes(self._ls, changes)

    async def update(self) -> None:
        """Re-register the watchers when the watched set changed, and keep the disk
        re-check's plan current."""
        ls = self._ls
        self._restart_scanner()
        if not self.dynamic:
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

    def stop(self) -> None:
        if self._scanner is not None:
            self._scanner.stop()
            self._scanner = None


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
        # A file created in the editor may match a subscribed glob now (checked for this
        # file alone).
        path = uri_to_path(params.text_document.uri)
        if path is not None and not ls.workspace_index.is_subscribed(path):
            ls.workspace_index.file_created(path)
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
        changes = [
            (_KINDS.get(change.type, "changed"), path)
            for change in params.changes
            if (path := uri_to_path(change.uri)) is not None
        ]
        apply_disk_changes(ls, changes)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_folders(
        ls: TodoLanguageServer, params: types.DidChangeWorkspaceFoldersParams
    ) -> None:
        ls.workspace_index.set_folders(ls.workspace_folders())
        ls.subscriptions_changed()
        ls.spawn(ls.refresh_settings(), "settings of the new workspace folders")
