"""The runtime's connection to its host: connect (retrying with back-off on the injected
clock), hand it the workspace folders, consume its events, look for a discovered server again
when it is gone (docs/hosts-opencode.md). What the runtime shows of it: `connected`, `error`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence

from todo_ls.core import events as ev
from todo_ls.core.clock import Clock
from todo_ls.hosts.base import Host, HostError
from todo_ls.payloads import HostStatus
from todo_ls.settings.model import SupervisorSettings
from todo_ls.supervisor.delivery import one_line

log = logging.getLogger(__name__)

RECONNECT_MAX_S = 30.0
# Failed reconnects in a row after which a discovered server counts as gone (see `run`).
GONE_AFTER_DROPS = 2


class HostConnection:
    """One host, connected or being connected. `on_event` gets each host event; `on_fault` is
    told when `error` changed outside an event (a failed connect, a connect that worked)."""

    def __init__(
        self,
        connect: Callable[[], Awaitable[Host]],
        clock: Clock,
        folders: Callable[[], Sequence[str]],
        on_event: Callable[[ev.HostEvent], None],
        on_fault: Callable[[str | None], None],
        rediscover: bool,
    ) -> None:
        """`rediscover`: `connect` finds the server itself (no URL setting), so when the
        server is gone `connect` runs again rather than the host reconnecting to the old
        address."""
        self._connect = connect
        self._clock = clock
        self._folders = folders
        self._on_event = on_event
        self._on_fault = on_fault
        self._rediscover = rediscover
        self.host: Host | None = None
        self.connected = False
        self.error: str | None = None
        self._host_folders: tuple[str, ...] | None = None  # last handed to `host`

    async def run(self) -> None:
        """Connect and consume the host's events until cancelled."""
        attempt = 0
        while True:
            try:
                if self.host is None:
                    self.host = await self._connect()
                    self._host_folders = None  # the folders may have changed meanwhile
                    self._on_fault(None)
                self.sync_folders()
                attempt = 0
                drops = 0
                async for event in self.host.watch():
                    self._on_event(event)
                    attempt = 0
                    if isinstance(event, ev.Connected | ev.Disconnected):
                        drops = drops + 1 if isinstance(event, ev.Disconnected) else 0
                    if self._rediscover and drops >= GONE_AFTER_DROPS:
                        break
                else:
                    raise HostError("protocol", "the event stream ended")
                # A discovered server that does not come back may run again elsewhere (an
                # OpenCode TUI restarted on another port): look for it again.
                log.info("supervisor: %s is gone; looking for OpenCode again", self.host.info.url)
                await self.close()
            except asyncio.CancelledError:
                raise
            except Exception as err:
                self.connected = False
                error = one_line(err)
                if error != self.error:  # a lasting fault is logged once, not at every retry
                    log.warning("supervisor: %s; retrying", error)
                self._on_fault(error)
            attempt += 1
            await self._clock.sleep(min(RECONNECT_MAX_S, 2.0 ** min(attempt, 5)))

    def sync_folders(self) -> None:
        """Hand the host the workspace folders when they differ from what it has (the 1.x
        busy snapshot and resync ask per folder, so a folder added later must reach it)."""
        folders = tuple(self._folders())
        if self.host is not None and folders != self._host_folders:
            self.host.set_directories(folders)
            self._host_folders = folders

    def status(self, settings: SupervisorSettings) -> HostStatus:
        """The `supervisor.host` part of `todoLs/status`: the watched server."""
        host = self.host
        found: HostStatus = {
            "kind": settings.host if host is None else host.info.kind,
            "url": settings.url if host is None else host.info.url,
            "connected": self.connected,
            "version": None if host is None else host.info.version,
        }
        if self.error:
            found["error"] = self.error
        return found

    async def close(self) -> None:
        """Close the host client (a later `run` connects again)."""
        host, self.host = self.host, None
        if host is not None:
            with contextlib.suppress(Exception):
                await host.aclose()
