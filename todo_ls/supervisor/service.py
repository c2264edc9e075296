"""The supervisor service: every source of supervised sessions, started, stopped and asked
as one, below whichever process runs it.

The language server and `todo-ls supervise` build it the same way (`SupervisorService(host)`),
so both supervise the same sessions: an OpenCode or Kilo server's (the `Runtime`) and those
of agents reached through hooks (`HookSessions`, read from the store the `todo-ls hook`
processes write). It owns those sources, the watch of the shared store (a pause or a hook
event written by another process) and the store itself when its process has none.

What it needs from that process is the `ServiceHost` protocol below, and nothing else: the
settings, the workspace's folders and items, the process's store, and where to publish the
status, a message for the user and a nudge sent. Logging goes through `logging`, which each
process routes itself (the server to the editor, `supervise` to stderr).

The sessions come from a list of `SessionSource`s (session_source.py): the status lists every
source's records, and a command naming a session goes to the source that owns it; without a
session, to every source.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from todo_ls.core.clock import Clock, SystemClock
from todo_ls.payloads import (
    EditResult,
    HostStatus,
    NudgeResult,
    SessionChange,
    SessionItem,
    SessionsResult,
    SupervisorStatus,
)

if TYPE_CHECKING:  # these load when the service starts, after the `initialize` answer
    from todo_ls.hosts.base import Host
    from todo_ls.settings.model import SupervisorSettings
    from todo_ls.store import Store
    from todo_ls.supervisor.delivery import NudgeSent
    from todo_ls.supervisor.runtime import Runtime
    from todo_ls.supervisor.session_record import SupervisedSession
    from todo_ls.supervisor.session_source import SessionSource
    from todo_ls.supervisor.workspace_items import Workspace

log = logging.getLogger(__name__)

NOT_RUNNING = "supervisor not running"
_T = TypeVar("_T")

# Connects to the agent host for `settings`, told the workspace folders (host discovery).
Connect = Callable[["SupervisorSettings", list[str]], Awaitable["Host"]]


class ServiceHost(Protocol):
    """What the supervisor service needs from the process it runs in (the language server:
    server/supervisor_host.py; `todo-ls supervise`: commands/supervise.py)."""

    @property
    def workspace(self) -> Workspace:
        """The workspace folders and the items of their subscribed files (read fresh)."""
        ...

    def supervisor_settings(self) -> SupervisorSettings:
        """The settings of the connection, and of sessions outside every workspace folder."""
        ...

    def supervisor_enabled(self) -> bool:
        """Some folder has the supervisor on (each folder's own switch decides for it)."""
        ...

    def folder_settings(self, folder: str) -> SupervisorSettings | None:
        """A workspace folder's own `supervisor.*` (by its path), read at each decision;
        None: the connection's apply."""
        ...

    def shared_store(self) -> Store | None:
        """The process's store; None: the service opens its own at `state_dir`."""
        ...

    def state_dir(self) -> Path | None:
        """Where the service's own store goes (None: the store's default place)."""
        ...

    def status_changed(self) -> None:
        """Something the status shows changed: publish it (the process coalesces)."""
        ...

    def show_message(self, text: str) -> None:
        """Tell the user (a nudge the agent host shows no toast for)."""
        ...

    def nudged(self, sent: NudgeSent) -> None:
        """A nudge went out (the headless command prints a line)."""
        ...


class SupervisorService:
    """Every session source of one process: started, stopped, listed and commanded as one."""

    def __init__(
        self, host: ServiceHost, *, connect: Connect | None = None, clock: Clock | None = None
    ) -> None:
        """`connect` and `clock` are for tests (default: host discovery and real time)."""
        self._host = host
        self._connect = connect or _discover
        self._clock = clock or SystemClock()
        self._runtime: Runtime | None = None
        # Every kind of supervised session, in the order the status lists them: the runtime's,
        # then those of agents reached through hooks (from the store).
        self._sources: list[SessionSource] = []
        self._hook_watch: asyncio.Task[None] | None = None
        self._own_store: Store | None = None
        self._started = False
        self._restart: asyncio.Task[None] | None = None

    # --- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        """Start the sources and the store watch (once the settings are loaded: the server's
        `initialized`, the headless command's start)."""
        self._started = True
        settings = self._host.supervisor_settings()
        if not self._host.supervisor_enabled() or self._runtime is not None:
            self._changed()
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            log.warning("supervisor: no event loop; not started")
            return
        from todo_ls.supervisor.hook_sessions import HookSessions
        from todo_ls.supervisor.runtime import Runtime

        store = self._store()
        workspace = self._host.workspace
        hooks = HookSessions(
            store, workspace.folders, workspace.file_items, self._clock, settings.scope
        )
        self._hook_watch = asyncio.get_running_loop().create_task(hooks.watch(self._store_changed))

        async def connect() -> Host:
            return await self._connect(settings, list(workspace.folders()))

        self._runtime = Runtime(
            connect,
            store,
            settings,
            self._clock,
            workspace,
            on_change=self._changed,
            on_user_message=self._host.show_message,
            on_nudge=self._host.nudged,
            folder_settings=self._host.folder_settings,
            rediscover=self._connect is _discover and settings.url is None,
        )
        self._sources = [self._runtime, hooks]
        self._runtime.start()
        log.info("supervisor started (host %s, scope %s)", settings.host, settings.scope)
        self._changed()

    async def stop(self) -> None:
        """Cancel the background tasks, close the host client and the service's own store."""
        self._started = False
        await self._stop_runtime()

    async def _stop_runtime(self) -> None:
        watch, self._hook_watch = self._hook_watch, None
        self._sources = []
        if watch is not None:
            watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watch
        runtime, self._runtime = self._runtime, None
        if runtime is not None:
            await runtime.stop()
        if self._own_store is not None:
            self._own_store.close()
            self._own_store = None

    def settings_changed(self) -> None:
        """Settings were re-read: restart the runtime when `supervisor.*` or the store moved."""
        if not self._started:
            return
        runtime = self._runtime
        wanted = self._host.supervisor_settings()
        if runtime is not None and runtime.settings == wanted and self._store_unchanged():
            return
        if runtime is None and not self._host.supervisor_enabled():
            return

        async def restart() -> None:
            await self._stop_runtime()
            if self._started:
                self.start()
            self._changed()

        with contextlib.suppress(RuntimeError):  # no loop: nothing runs that needs a restart
            previous = self._restart
            if previous is not None and not previous.done():
                previous.cancel()
            self._restart = asyncio.get_running_loop().create_task(restart())

    def files_changed(self) -> None:
        """A subscribed file or the subscription set changed: re-evaluate sessions."""
        if self._runtime is not None:
            self._runtime.files_changed()

    # --- status -----------------------------------------------------------------------------

    def status(self, folder: str | None = None) -> SupervisorStatus:
        """The `supervisor` part of `todoLs/status` (camelCase wire shape): every source's
        sessions; of one workspace folder (its `key`) or, without one, of every folder."""
        if self._runtime is None:
            return {
                "enabled": self._host.supervisor_enabled(),
                "host": None,
                "sessions": [],
            }
        sessions = [record.to_wire() for record in self.sessions(folder)]
        return {"enabled": True, "host": self._runtime.host_status(), "sessions": sessions}

    def host_status(self) -> HostStatus | None:
        """The `supervisor.host` part of the status: the watched server, None when stopped."""
        return None if self._runtime is None else self._runtime.host_status()

    def sessions(self, folder: str | None = None) -> list[SupervisedSession]:
        """Every source's records (of one workspace folder, by its path, or of all)."""
        return [
            record
            for source in self._sources
            for record in self._ask(source, "list the sessions", source.sessions, folder) or []
        ]

    def state_word(self, folder: str | None = None) -> str | None:
        """One word for the status text (`working`, `idle`, …) or None: the most urgent of
        the sources' words; `disconnected` only when no source sees a session (no OpenCode
        server and no hook-host session)."""
        from todo_ls.supervisor.policy import SessionState, aggregate_state
        from todo_ls.supervisor.session_source import DISCONNECTED

        seen: list[SessionState] = []
        disconnected = False
        for source in self._sources:
            word = self._ask(source, "read the sessions", source.state_word, folder)
            if word == DISCONNECTED:
                disconnected = True
            elif word is not None:
                seen.append(word)
        if seen:
            return aggregate_state(seen)
        return DISCONNECTED if disconnected else None

    def session_items(self, folder: str | None = None) -> list[SessionItem]:
        """The items of the listed sessions' own todo lists, for `todoLs.list`."""
        return [
            item
            for source in self._sources
            for item in self._ask(
                source, "list the sessions' todos", source.session_list_items, folder
            )
            or []
        ]

    def _ask(
        self, source: SessionSource, what: str, call: Callable[[str | None], _T], folder: str | None
    ) -> _T | None:
        """One source's answer, or None (logged) when it fails: a source that cannot answer
        does not take the others' sessions out of the status."""
        try:
            return call(folder)
        except Exception:
            log.exception("supervisor: cannot %s of %s", what, type(source).__name__)
            return None

    def _owner(self, session_id: str) -> SessionSource | None:
        return next((source for source in self._sources if source.owns(session_id)), None)

    # --- commands ---------------------------------------------------------------------------

    async def nudge(self, session_id: str | None, folder: str | None = None) -> NudgeResult:
        """`todoLs.nudge`: the owner of `session_id`, or every source (of `folder`)."""
        from todo_ls.supervisor.session_source import NO_SESSION, NOT_SUPERVISED

        if self._runtime is None:
            return {"sent": [], "skipped": [{"sessionID": session_id, "reason": NOT_RUNNING}]}
        if session_id is not None:
            owner = self._owner(session_id)
            if owner is None:
                return {
                    "sent": [],
                    "skipped": [{"sessionID": session_id, "reason": NOT_SUPERVISED}],
                }
            return await owner.nudge(session_id, folder)
        result: NudgeResult = {"sent": [], "skipped": []}
        for source in self._sources:
            answer = await source.nudge(None, folder)
            result["sent"] += answer["sent"]
            result["skipped"] += answer["skipped"]
        if not result["sent"] and not result["skipped"]:
            result["skipped"].append({"sessionID": None, "reason": NO_SESSION})
        return result

    async def pause(self, session_id: str | None, folder: str | None = None) -> SessionsResult:
        """`todoLs.pause` of one session or (None) every session of `folder` / the workspace."""
        return self._each_owner(session_id, folder, lambda source: source.pause)

    async def resume(self, session_id: str | None, folder: str | None = None) -> SessionsResult:
        """`todoLs.resume` of one session or (None) every session of `folder` / the workspace."""
        return self._each_owner(session_id, folder, lambda source: source.resume)

    def _each_owner(
        self,
        session_id: str | None,
        folder: str | None,
        command: Callable[[SessionSource], Callable[[str | None, str | None], SessionsResult]],
    ) -> SessionsResult:
        """Pause or resume: the session's owner, or every source; `{sessions}` of them all."""
        if self._runtime is None:
            return {"sessions": [], "reason": NOT_RUNNING}
        if session_id is None:
            targets = self._sources
        else:
            owner = self._owner(session_id)
            targets = [] if owner is None else [owner]
        sessions: list[SessionChange] = []
        for source in targets:
            sessions += command(source)(session_id, folder)["sessions"]
        self._changed()
        return {"sessions": sessions}

    def toggle_todo(self, session_id: str, index: int, content: str | None) -> EditResult:
        """`todoLs.toggle {sessionID, index}`: flip an item of the session's own list between
        completed and pending in the store. The session's source refuses items of a list the
        agent keeps (session_source.py, `read_only`); a session no source lists (a list the
        MCP tools keep) is toggled in the store, also while the supervisor is off."""
        from todo_ls.todos.editor_list import combined, toggled_status

        runtime = self._runtime
        store = self._host.shared_store() if runtime is None else runtime.store
        if store is None:
            return {"applied": False, "state": None, "reason": "the state store is unavailable"}
        source = self._owner(session_id)
        if source is not None:
            listed = source.listed_todos(session_id)
        else:
            listed = combined((), store.session_todos(session_id))
        if not 0 <= index < len(listed):
            reason = f"session {session_id} has no todo item {index}"
            return {"applied": False, "state": None, "reason": reason}
        item = listed[index]
        refused = None if source is None else source.read_only(session_id, item)
        if refused is not None:
            return {"applied": False, "state": item.todo.status, "reason": refused}
        target = toggled_status(item.todo.status)
        why = store.set_session_todo_status(
            session_id, item.position, content, target, self._clock.now()
        )
        if why is not None:
            return {"applied": False, "state": item.todo.status, "reason": why}
        if source is not None:
            source.todos_written(session_id)
        self._changed()
        return {"applied": True, "state": target}

    # --- helpers ----------------------------------------------------------------------------

    def _store(self) -> Store:
        shared = self._host.shared_store()
        if shared is not None:
            return shared
        from todo_ls.store import Store

        self._own_store = Store.open(self._host.state_dir())
        return self._own_store

    def _store_unchanged(self) -> bool:
        shared = self._host.shared_store()
        using = None if self._runtime is None else self._runtime.store
        return (shared is None and using is self._own_store) or shared is using

    def _store_changed(self) -> None:
        """Another process wrote to the store: the runtime decides again (a pause made
        elsewhere), and the hook sessions, read from the store, show anew."""
        if self._runtime is not None:
            self._runtime.store_changed()
        self._changed()

    def _changed(self) -> None:
        try:
            self._host.status_changed()
        except Exception:
            log.exception("supervisor: status callback failed")


async def _discover(settings: SupervisorSettings, folders: list[str]) -> Host:
    """The agent host `settings` name, or the one discovery finds serving `folders`."""
    from todo_ls.hosts.discovery import connect_host

    return await connect_host(settings, os.environ, directories=folders)
