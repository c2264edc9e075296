"""Which sessions a runtime supervises, where each belongs and what is open for it
(docs/supervisor.md, "Which sessions" and "What counts as open"). Reads the tracker, the
workspace, the settings and the store's todo lists; decides nothing.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

from todo_ls.settings.model import SupervisorSettings
from todo_ls.store import Store, StoreError
from todo_ls.supervisor.activity import Tracker
from todo_ls.supervisor.policy import OpenSet, open_set
from todo_ls.supervisor.workspace_items import Workspace
from todo_ls.todos.editor_list import ListedTodo, combined
from todo_ls.todos.model import merged_with_host, stored_todos
from todo_ls.workspace import innermost_folder

log = logging.getLogger(__name__)


class Scope:
    """The sessions of one runtime as the workspace places them."""

    def __init__(
        self,
        tracker: Tracker,
        workspace: Workspace,
        store: Store,
        settings: SupervisorSettings,
        folder_settings: Callable[[str], SupervisorSettings | None] | None,
    ) -> None:
        self._tracker = tracker
        self._workspace = workspace
        self._store = store
        self.settings = settings
        self._folder_settings = folder_settings

    def folder_of(self, session_id: str) -> str | None:
        """The innermost workspace folder holding the session's directory."""
        session = self._tracker.sessions.get(session_id)
        directory = session.directory if session is not None else None
        return innermost_folder(directory, self._workspace.folders())

    def settings_of(self, session_id: str) -> SupervisorSettings:
        """The settings of the workspace folder the session works in (else the runtime's)."""
        folder = self.folder_of(session_id)
        own = self._folder_settings(folder) if folder and self._folder_settings else None
        return own if own is not None else self.settings

    def in_scope(self, session_id: str) -> bool:
        """A root session in a folder whose settings supervise it, or anywhere with `all`."""
        session = self._tracker.sessions.get(session_id)
        if session is None or session.parent_id is not None:
            return False
        folder = self.folder_of(session_id)
        if folder is None:
            return self.settings.scope == "all"
        own = self._folder_settings(folder) if self._folder_settings else None
        return own is None or own.enabled

    def home(self, session_id: str) -> str | None:
        """The workspace folder whose status lists the session: the innermost one holding its
        directory; with scope `all`, a session outside every folder goes to the first one."""
        found = self.folder_of(session_id)
        folders = self._workspace.folders()
        if found is None and self.settings.scope == "all" and folders:
            return os.path.normpath(folders[0])
        return found

    def paused(self, folder: str | None) -> list[str]:
        """The sessions with a stored pause that are in scope (and of `folder` when given)."""
        wanted = None if folder is None else os.path.normpath(folder)
        return [
            sid
            for sid in self._store.pauses()
            if self.in_scope(sid) and (wanted is None or self.home(sid) == wanted)
        ]

    def open_items(self, session_id: str) -> OpenSet:
        """The session's open set: its own list (host's and store's) and its folder's files."""
        session = self._tracker.sessions[session_id]
        folder = innermost_folder(session.directory, self._workspace.folders())
        files = self._workspace.file_items(folder) if folder else []
        return open_set(
            merged_with_host(session.todos, stored_todos(self._stored(session_id))), files
        )

    def listed_todos(self, session_id: str) -> tuple[ListedTodo, ...]:
        """The session's own list as the editor shows it (the same items as the open set):
        the store's, then the host's (OpenCode 1.x `todowrite`) the store's list lacks."""
        session = self._tracker.sessions.get(session_id)
        host = session.todos if session is not None else ()
        return combined(host, self._stored(session_id))

    def _stored(self, session_id: str) -> list[Any] | None:
        """The list the agent keeps with todo-ls's MCP tools or a hook host's (shared store,
        any process), raw; None when there is none or it cannot be read."""
        try:
            return self._store.session_todos(session_id)
        except (StoreError, ValueError) as err:
            log.warning("supervisor: cannot read the todo list of %s: %s", session_id, err)
            return None
