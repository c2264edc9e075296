"""Sessions of agents reached through hooks (Claude Code, Codex CLI, Gemini CLI, …), as the
supervisor service lists and commands them.

Their hook processes write each session's state to the shared store; this module is the
`SessionSource` (supervisor/session_source.py) of those sessions: it lists the sessions of the
workspace's folders as records and applies `todoLs.pause` / `todoLs.resume` to them through the
store (the hook honours the pause at the next Stop). The detail shown is the one the hook
stored. They cannot be prompted from outside, so `todoLs.nudge` skips them with a reason: the
hook nudges them at their next Stop. `watch` notices other processes' writes by polling SQLite's
`PRAGMA data_version` (one cheap query), so a hook event shows within a second.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence

from todo_ls.checklist.model import FileItem
from todo_ls.core.clock import Clock
from todo_ls.payloads import NudgeResult, NudgeSkip, SessionChange, SessionItem, SessionsResult
from todo_ls.store import HookSession, Store
from todo_ls.supervisor.policy import SessionState, aggregate_state, open_set
from todo_ls.supervisor.session_record import SessionDetail, SupervisedSession
from todo_ls.supervisor.session_source import only_the_agent
from todo_ls.todos.editor_list import ListedTodo, combined, session_items, todo_summary
from todo_ls.todos.host_lists import Entry
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
    """The hook-host sessions of one workspace (the editor's folders, or `supervise`'s)."""

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

    def listed(self, folder: str | None = None) -> list[HookSession]:
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
        return next((s for s in self.listed() if s.session_id == session_id), None)

    def owns(self, session_id: str) -> bool:
        """A listed session: its commands go through the store."""
        return self.find(session_id) is not None

    def _state(self, session: HookSession) -> tuple[SessionState, str | None]:
        pause = self._store.paused(session.session_id)
        if pause is not None:
            return "paused", pause.reason
        if session.state == "paused" and session.paused not in _STORED_PAUSES:
            return "paused", session.paused or None
        if session.state == "paused":  # a stored pause the user lifted since
            return "idle", None
        return _STATES.get(session.state, "idle"), None

    def state_word(self, folder: str | None = None) -> SessionState | None:
        """The most urgent state of the listed sessions (of `folder`), for the status word."""
        return aggregate_state(self._state(s)[0] for s in self.listed(folder))

    def listed_todos(self, session_id: str) -> tuple[ListedTodo, ...]:
        """The session's list as the store mirrors it from the agent's own."""
        return combined((), self._store.session_todos(session_id))

    def session_list_items(self, folder: str | None = None) -> list[SessionItem]:
        """The items of each listed session's own list (of `folder`), for `todoLs.list`."""
        found: list[SessionItem] = []
        for session in self.listed(folder):
            # The store mirrors the hook host's own list: only the agent changes it.
            found += session_items(
                session.session_id,
                self.listed_todos(session.session_id),
                host_keeps_list=True,
            )
        return found

    def read_only(self, session_id: str, item: ListedTodo) -> str | None:
        """The stored list mirrors the agent's own (TodoWrite, its tasks, the Codex plan) and
        is rewritten from it at the next hook event: no item can be toggled."""
        session = self.find(session_id)
        return only_the_agent(f"{session.host if session else 'the agent'}'s")

    def todos_written(self, session_id: str) -> None:
        """Nothing to do: the hook reads the store at the session's next Stop."""

    def sessions(self, folder: str | None = None) -> list[SupervisedSession]:
        """The listed sessions (of `folder`) as records."""
        out = []
        folders = self._folders()
        for session in self.listed(folder):
            state, paused = self._state(session)
            todos = self._store.session_todos(session.session_id)
            home = innermost_folder(session.directory, folders)
            items = open_set(
                _entries(todos or []), self._file_items(home) if home is not None else []
            )
            record = SupervisedSession(
                id=session.session_id,
                host=session.host,
                title=session.title,
                state=state,
                detail=SessionDetail.of(session.detail),
                open=len(items.items),
                nudges=self._store.episode_nudge_count(session.session_id),
                paused_reason=paused,
                todos=todo_summary(combined((), todos)),
            )
            out.append(record)
        return out

    def pause(self, session_id: str | None, folder: str | None = None) -> SessionsResult:
        """Pause one listed session, or all of them (of `folder`); the hook honours it at the
        next Stop."""
        now = self._clock.now()
        done: list[SessionChange] = []
        for session in self._targets(session_id, folder):
            self._store.pause(session.session_id, "user", now)
            done.append({"id": session.session_id, "state": "paused"})
        return {"sessions": done}

    def resume(self, session_id: str | None, folder: str | None = None) -> SessionsResult:
        """Lift the pause of one listed session (or of all, of `folder`) and start a new
        episode."""
        now = self._clock.now()
        done: list[SessionChange] = []
        for session in self._targets(session_id, folder):
            self._store.resume(session.session_id)
            self._store.start_episode(session.session_id, now)
            if session.state == "paused":
                self._store.record_hook_session(
                    session.session_id, session.host, session.directory, "idle", now
                )
            done.append({"id": session.session_id, "state": self._state_of(session.session_id)})
        return {"sessions": done}

    def _state_of(self, session_id: str) -> SessionState | None:
        session = self._store.hook_session(session_id)
        return None if session is None else self._state(session)[0]

    async def nudge(self, session_id: str | None, folder: str | None = None) -> NudgeResult:
        """`todoLs.nudge`: these sessions are skipped, with the reason."""
        skipped: list[NudgeSkip] = [
            {"sessionID": s.session_id, "reason": NOT_PROMPTABLE.format(host=s.host)}
            for s in self._targets(session_id, folder)
        ]
        return {"sent": [], "skipped": skipped}

    def _targets(self, session_id: str | None, folder: str | None = None) -> list[HookSession]:
        if session_id is None:
            return self.listed(folder)
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
            await self._clock.sleep(POLL_S)


def _status(todo: object) -> str:
    return str(todo.get("status")) if isinstance(todo, dict) else ""


def _entries(todos: Sequence[object]) -> list[Entry]:
    return [
        Entry(str(t.get("content", "")), _status(t), t.get("priority"))
        for t in todos
        if isinstance(t, dict)
    ]
