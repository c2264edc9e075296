"""The bridge between the language server and the supervisor runtime.

The server calls only the methods of `Supervision`. What this module reads from the server
object `ls` (kept to this small surface on purpose):

- `ls.settings` (`config.Settings`): `supervisor.*` and `state_dir`;
- `ls.workspace_index` (`workspace.WorkspaceIndex`): folders and subscribed files;
- `ls.store` (`store.Store | None`): the shared store; without one the supervisor opens its own
  (the store falls back to memory by itself when its directory cannot be used);
- `ls.status_changed()`: republish `todoLs/status` (the default `on_change`);
- `ls.window_show_message(...)`: tell the user about a nudge where the host shows no toast.

No pygls import here: messages go through the server object the bridge is given.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from todo_ls.supervisor.clock import Clock, SystemClock

if TYPE_CHECKING:  # these load on `initialized`, after the `initialize` answer
    from todo_ls.config import SupervisorSettings
    from todo_ls.hosts.base import Host
    from todo_ls.server.hook_sessions import HookSessions
    from todo_ls.store import Store
    from todo_ls.supervisor.runtime import Runtime

log = logging.getLogger(__name__)

NOT_RUNNING = "supervisor not running"


class Supervision:
    """Owned by the language server; starts and stops the supervisor runtime."""

    def __init__(
        self,
        ls: Any,
        on_change: Callable[[], None] | None = None,
        *,
        connect: Callable[[SupervisorSettings, list[str]], Awaitable[Host]] | None = None,
        clock: Clock | None = None,
    ) -> None:
        """`connect` and `clock` are for tests (default: host discovery and real time)."""
        self._ls = ls
        self._on_change = on_change
        self._connect = connect or _discover
        self._clock = clock or SystemClock()
        self._runtime: Runtime | None = None
        # Sessions of agents reached through hooks: listed from the store beside the runtime's.
        self._hooks: HookSessions | None = None
        self._hook_watch: asyncio.Task[None] | None = None
        self._own_store: Store | None = None
        self._started = False
        self._restart: asyncio.Task[None] | None = None

    # --- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        """Called from `initialized` (after settings are loaded): start background tasks."""
        self._started = True
        settings = self._ls.settings.supervisor
        if not settings.enabled or self._runtime is not None:
            self._changed()
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            log.warning("supervisor: no event loop; not started")
            return
        from todo_ls.server.hook_sessions import HookSessions
        from todo_ls.supervisor.runtime import IndexWorkspace, Runtime

        store = self._store()
        workspace = IndexWorkspace(self._ls.workspace_index)
        self._hooks = HookSessions(
            store, workspace.folders, workspace.file_items, self._clock, settings.scope
        )
        self._hook_watch = asyncio.get_running_loop().create_task(self._hooks.watch(self._changed))

        async def connect() -> Host:
            return await self._connect(settings, list(workspace.folders()))

        self._runtime = Runtime(
            connect,
            store,
            settings,
            self._clock,
            workspace,
            on_change=self._changed,
            on_user_message=self._tell_user,
        )
        self._runtime.start()
        log.info("supervisor started (host %s, scope %s)", settings.host, settings.scope)
        self._changed()

    async def stop(self) -> None:
        """Called from `shutdown`: cancel background tasks, close HTTP clients."""
        self._started = False
        await self._stop_runtime()

    async def _stop_runtime(self) -> None:
        watch, self._hook_watch = self._hook_watch, None
        self._hooks = None
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
        wanted = self._ls.settings.supervisor
        if runtime is not None and runtime.settings == wanted and self._store_unchanged():
            return
        if runtime is None and not wanted.enabled:
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

    def status(self) -> dict[str, Any]:
        """The `supervisor` part of `todoLs/status` (camelCase wire shape): the runtime's
        sessions, then those of agents reached through hooks."""
        if self._runtime is None:
            return {
                "enabled": bool(self._ls.settings.supervisor.enabled),
                "host": None,
                "sessions": [],
            }
        status = self._runtime.status()
        if self._hooks is not None:
            status["sessions"] = [*status["sessions"], *self._hook_entries()]
        return status

    def state_word(self) -> str | None:
        """One word for the status text (`working`, `idle`, …) or None. Without an OpenCode
        server the word is `disconnected` unless a hook-host session is listed."""
        runtime = self._runtime
        if runtime is None:
            return None
        from todo_ls.supervisor.policy import aggregate_state

        hooks = self._hook_states()
        word = runtime.state_word()
        if not hooks:
            return word
        if word == "disconnected":
            return aggregate_state(hooks)
        return aggregate_state([*hooks, *([word] if word else [])])  # type: ignore[list-item]

    def _hook_entries(self) -> list[dict[str, Any]]:
        try:
            return [] if self._hooks is None else self._hooks.entries()
        except Exception:
            log.exception("supervisor: cannot list the hook-host sessions")
            return []

    def _hook_states(self) -> list[Any]:
        try:
            return [] if self._hooks is None else self._hooks.states()
        except Exception:
            log.exception("supervisor: cannot read the hook-host sessions")
            return []

    # --- commands ---------------------------------------------------------------------------

    async def nudge(self, session_id: str | None) -> dict[str, Any]:
        if self._runtime is None:
            return {"sent": [], "skipped": [{"sessionID": session_id, "reason": NOT_RUNNING}]}
        hooks = self._hooks
        if hooks is not None and session_id is not None and hooks.find(session_id):
            return {"sent": [], "skipped": hooks.nudge(session_id)}
        result = await self._runtime.nudge(session_id)
        if hooks is not None and session_id is None:
            extra = hooks.nudge(None)
            if extra:  # "no supervised session" no longer holds
                kept = [s for s in result["skipped"] if s.get("sessionID") is not None]
                result["skipped"] = [*kept, *extra]
        return result

    async def pause(self, session_id: str | None) -> dict[str, Any]:
        if self._runtime is None:
            return {"sessions": [], "reason": NOT_RUNNING}
        return self._hook_command(session_id, "pause")

    async def resume(self, session_id: str | None) -> dict[str, Any]:
        if self._runtime is None:
            return {"sessions": [], "reason": NOT_RUNNING}
        return self._hook_command(session_id, "resume")

    def _hook_command(self, session_id: str | None, name: str) -> dict[str, Any]:
        """Pause or resume: a hook-host session through the store, the others through the
        runtime; without a session id, both."""
        assert self._runtime is not None
        hooks = self._hooks
        if hooks is not None and session_id is not None and hooks.find(session_id):
            result = {"sessions": getattr(hooks, name)(session_id)}
        else:
            result = getattr(self._runtime, name)(session_id)
            if hooks is not None and session_id is None:
                result["sessions"] = [*result["sessions"], *getattr(hooks, name)(None)]
        self._changed()
        return result

    # --- helpers ----------------------------------------------------------------------------

    def _store(self) -> Store:
        shared: Store | None = getattr(self._ls, "store", None)
        if shared is not None:
            return shared
        from todo_ls.store import Store

        state_dir = self._ls.settings.state_dir
        self._own_store = Store.open(Path(state_dir).expanduser() if state_dir else None)
        return self._own_store

    def _store_unchanged(self) -> bool:
        shared = getattr(self._ls, "store", None)
        using = None if self._runtime is None else self._runtime.store
        return (shared is None and using is self._own_store) or shared is using

    def _changed(self) -> None:
        callback = self._on_change or getattr(self._ls, "status_changed", None)
        if callback is not None:
            callback()

    def _tell_user(self, message: str) -> None:
        show = getattr(self._ls, "window_show_message", None)
        if show is None:
            return
        try:
            show(
                types.ShowMessageParams(type=types.MessageType.Info, message=f"todo-ls: {message}")
            )
        except Exception:
            log.exception("supervisor: could not show a message")


async def _discover(settings: SupervisorSettings, folders: list[str]) -> Host:
    from todo_ls.hosts.discovery import connect_host

    return await connect_host(settings, os.environ, directories=folders)
