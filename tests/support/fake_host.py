"""An in-memory Host and workspace for unit tests of the supervisor runtime (no HTTP)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field

from todo_ls.checklist.model import FileItem
from todo_ls.core import events as ev
from todo_ls.hosts.base import Capability, HostError, HostInfo

ALL_CAPABILITIES = frozenset(Capability)


@dataclass
class Sent:
    session_id: str
    text: str
    description: str


class FakeHost:
    """Events are pushed with `emit`; nudges and toasts are recorded; failures are injected."""

    def __init__(
        self,
        capabilities: frozenset[Capability] = ALL_CAPABILITIES,
        kind: str = "opencode-v1",
        directories: Sequence[str] = (),
    ) -> None:
        self._info = HostInfo(kind, "http://127.0.0.1:4096", "1.18.33")  # type: ignore[arg-type]
        self._capabilities = capabilities
        self._queue: asyncio.Queue[ev.HostEvent | Exception] = asyncio.Queue()
        self._waiting = False
        self._watching = False
        self.sent: list[Sent] = []
        self.toasts: list[tuple[str, str, str]] = []
        self.busy: dict[str, ev.BusyKind] = {}
        self.sessions: dict[str, ev.SessionInfo] = {}
        self.nudge_error: HostError | None = None
        self.busy_on_nudge_check: dict[str, ev.BusyKind] = {}  # what busy_sessions() reports
        self.busy_checks = 0  # busy_sessions() calls
        # Like 1.x, the busy snapshot is per directory: only the folders it was given count.
        self.directories = list(directories)
        self.busy_in: dict[str, dict[str, ev.BusyKind]] = {}  # directory → its busy sessions
        self.closed = False

    @property
    def info(self) -> HostInfo:
        return self._info

    @property
    def capabilities(self) -> frozenset[Capability]:
        return self._capabilities

    def emit(self, *events: ev.HostEvent | Exception) -> None:
        for event in events:
            self._queue.put_nowait(event)

    async def drained(self) -> None:
        """Wait until the consumer has handled everything emitted so far."""
        for _ in range(10_000):
            if self._queue.empty() and (self._waiting or not self._watching):
                return
            await asyncio.sleep(0)
        raise AssertionError("the runtime did not consume the host's events")

    async def watch(self) -> AsyncIterator[ev.HostEvent]:
        self._watching = True
        try:
            while True:
                self._waiting = True
                item = await self._queue.get()
                self._waiting = False
                if isinstance(item, Exception):
                    raise item
                yield item
        finally:
            self._watching = self._waiting = False

    async def session(self, session_id: str) -> ev.SessionInfo | None:
        return self.sessions.get(session_id)

    async def busy_sessions(self) -> Mapping[str, ev.BusyKind]:
        self.busy_checks += 1
        busy = dict(self.busy_on_nudge_check)
        for directory in self.directories:
            busy.update(self.busy_in.get(directory, {}))
        return busy

    def set_directories(self, directories: Sequence[str]) -> None:
        self.directories = list(directories)

    async def nudge(self, session_id: str, text: str, description: str) -> None:
        if self.nudge_error is not None:
            raise self.nudge_error
        self.sent.append(Sent(session_id, text, description))

    async def toast(self, title: str, message: str, variant: str) -> bool:
        if Capability.TOAST not in self._capabilities:
            return False
        self.toasts.append((title, message, variant))
        return True

    async def aclose(self) -> None:
        self.closed = True


@dataclass
class FakeWorkspace:
    """Workspace folders and the items of their subscribed files, set by the test."""

    roots: list[str]
    items: dict[str, list[FileItem]] = field(default_factory=dict)

    def folders(self) -> Sequence[str]:
        return self.roots

    def file_items(self, folder: str) -> list[FileItem]:
        return list(self.items.get(folder, []))
