"""Sessions of agents reached through hooks (Claude Code, Codex CLI, Gemini CLI), as the
language server shows and commands them.

Their hook processes write each session's state to the shared store; this module lists the
sessions of the workspace's folders in the `todoLs/status` shape and applies `todoLs.pause` /
`todoLs.resume` to them through the store (the hook honours the pause at the next Stop). They
cannot be prompted from outside, so `todoLs.nudge` skips them with a reason: the hook nudges
them at their next Stop. `watch` notices other processes' writes by polling SQLite's
`PRAGMA data_version` (one cheap query), so a hook event shows within a second.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Sequence
from typing import Any

from todo_ls.checklist.model import FileItem
from todo_ls.hook.sources import Entry
from todo_ls.store import HookSession, Store
from todo_ls.supervisor.clock import Clock
from todo_ls.supervisor.policy import SessionState, open_set
from todo_ls.supervisor.session_todos import combined, session_items, todo_summary
from todo_ls.workspace import innermost_folder

log = logging.getLogger(__name__)

POLL_S = 0.5
RECENT_S = 12 * 3600.0  # sessions quiet for longer are not listed (their agent is gone)
NOT_PROMPTABLE = (
    "a {host} session cannot be prompted from outside; todo-ls nudges it when its turn ends "
    "(its Stop hook)"
)
# Pauses the store keeps (shown while they last); the others are the hook's own verdicts.
_STORED_PAUSES = frozenset({"user", "interrupt", "error"})
_STATES: dict[str, SessionState] = {
    "working": "working",
    "waiting": "waiting",
    "idle": "idle",
    "paused": "paused",
    "done": "done",
}


class HookSessions:
    """The hook-host sessions of one language server's workspace."""

    def __init__(
        self,
        store: Store,
        folders: Callable[[], Sequence[str]],
        file_items: Callable[[str], list[FileItem]],
        clock: Clock,
        scope: str = "project",
    ) -> None:
        self._store = store
        self._folders = folders
        self._file_items = file_items
        self._clock = clock
        self._scope = scope

    def sessions(self, folder: str | None = None) -> list[HookSession]:
        """Sessions of the workspace (any folder, or all with scope `all`) that have not
        ended and were heard from recently; of one workspace folder when given (with scope
        `all`, sessions outside every folder belong to the first)."""
        since = self._clock.now() - RECENT_S
        folders = self._folders()
        found = []
        for s in self._store.hook_sessions(since):
            home = innermost_folder(s.directory, folders)
            if home is None and self._scope == "all" and folders:
                home = os.path.normpath(folders[0])
            if s.state == "ended" or home is None:
                continue
            if folder is None or home == os.path.normpath(folder):
                found.append(s)
        return found

    def find(self, session_id: str) -> HookSession | None:
        """The listed session with this id."""
        return next((s for s in self.sessions() if s.session_id == session_id), None)

    def _state(self, session: HookSession) -> tuple[SessionState, str | None]:
        pause = self._store.paused(session.session_id)
        if pause is not None:
            return "paused", pause.reason
        if session.state == "paused" and session.paused not in _STORED_PAUSES:
            return "paused", session.paused or None
        if session.state == "paused":  # a stored pause the user lifted since
            return "idle", None
        return _STATES.get(session.state, "idle"), None

    def states(self, folder: str | None = None) -> list[SessionState]:
        """The state of each listed session (of `folder`), for the status word."""
        return [self._state(s)[0] for s in self.sessions(folder)]

    def items(self, folder: str | None = None) -> list[dict[str, Any]]:
        """The items of each listed session's own list (of `folder`), for `todoLs.list`."""
        found: list[dict[str, Any]] = []
        for session in self.sessions(folder):
            listed = combined((), self._store.session_todos(session.session_id))
            # The store mirrors the hook host's own list: only the agent changes it.
            found += session_items(session.session_id, listed, host_keeps_list=True)
        return found

    def entries(self, folder: str | None = None) -> list[dict[str, Any]]:
        """The listed sessions (of `folder`) in the `todoLs/status` session shape."""
        out = []
        folders = self._folders()
        for session in self.sessions(folder):
            state, paused = self._state(session)
            todos = self._store.session_todos(session.session_id)
            folder = innermost_folder(session.directory, folders)
            items = open_set(
                _entries(todos or []), self._file_items(folder) if folder is not None else []
            )
            entry: dict[str, Any] = {
                "id": session.session_id,
                "title": session.title,
                "host": session.host,
                "state": state,
                "detail": session.detail,
                "open": len(items.items),
                "nudges": self._store.episode_nudge_count(session.session_id),
                "pausedReason": paused,
            }
            summary = todo_summary(combined((), todos))
            if summary is not None:
                entry["todos"] = summary
            out.append(entry)
        return out

    def pause(self, session_id: str | None, folder: str | None = None) -> list[dict[str, Any]]:
        """Pause one listed session, or all of them (of `folder`); the hook honours it at the
        next Stop."""
        now = self._clock.now()
        done = []
        for session in self._targets(session_id, folder):
            self._store.pause(session.session_id, "user", now)
            done.append({"id": session.session_id, "state": "paused"})
        return done

    def resume(self, session_id: str | None, folder: str | None = None) -> list[dict[str, Any]]:
        """Lift the pause of one listed session (or of all, of `folder`) and start a new
        episode."""
        now = self._clock.now()
        done = []
        for session in self._targets(session_id, folder):
            self._store.resume(session.session_id)
            self._store.start_episode(session.session_id, now)
            if session.state == "paused":
                self._store.record_hook_session(
                    session.session_id, session.host, session.directory, "idle", now
                )
            done.append({"id": session.session_id, "state": self._state_of(session.session_id)})
        return done

    def _state_of(self, session_id: str) -> SessionState | None:
        session = self._store.hook_session(session_id)
        return None if session is None else self._state(session)[0]

    def nudge(self, session_id: str | None, folder: str | None = None) -> list[dict[str, Any]]:
        """`todoLs.nudge`: these sessions are skipped, with the reason."""
        return [
            {"sessionID": s.session_id, "reason": NOT_PROMPTABLE.format(host=s.host)}
            for s in self._targets(session_id, folder)
        ]

    def _targets(self, session_id: str | None, folder: str | None = None) -> list[HookSession]:
        if session_id is None:
            return self.sessions(folder)
        found = self.find(session_id)
        return [found] if found is not None else []

    async def watch(self, changed: Callable[[], None]) -> None:
        """Call `changed` whenever another process wrote to the store (polled)."""
        seen: int | None = None
        while True:
            version: int | None = seen
            try:
                version = self._store.data_version()
            except Exception:
                log.exception("hook sessions: cannot read the store's data version")
            if version != seen:
                if seen is not None:
                    changed()
                seen = version
            await asyncio.sleep(POLL_S)


def _status(todo: object) -> str:
    return str(todo.get("status")) if isinstance(todo, dict) else ""


def _entries(todos: Sequence[object]) -> list[Entry]:
    return [
        Entry(str(t.get("content", "")), _status(t), t.get("priority"))
        for t in todos
        if isinstance(t, dict)
    ]
