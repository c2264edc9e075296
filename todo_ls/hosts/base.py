"""The capability seam between the supervisor and an agent host (OpenCode 1.x or 2.x, Kilo).

Every host streams events and takes nudges; beyond that each adapter says which optional
capabilities it has, and the supervisor degrades where one is missing (no toast over HTTP on
2.x: the editor is told instead). Session todo lists need no capability: a host that has them
sends `TodosUpdated` events and lists in its `Resynced` snapshot; one that has none sends
neither (2.x: markdown files only).
"""

from __future__ import annotations

import enum
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from todo_ls.core.events import BusyKind, HostEvent, SessionInfo


class Capability(enum.Enum):
    """An optional host call the supervisor checks before making it."""

    SESSION_INFO = "session-info"  # `session()`: directory and parent of an unknown session
    BUSY_SNAPSHOT = "busy-snapshot"  # `busy_sessions()`: checked again right before a nudge
    TOAST = "toast"  # `toast()`: a message in the host's own TUI


HostKind = Literal["opencode-v1", "opencode-v2", "kilo"]


@dataclass(frozen=True)
class HostInfo:
    kind: HostKind
    url: str
    version: str | None


ErrorKind = Literal["unreachable", "unauthorized", "not-found", "protocol", "server", "timeout"]


class HostError(Exception):
    """A failed host call. The message names the problem and never contains a secret."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind


class Host(Protocol):
    """What the supervisor needs from a host. All calls use client timeouts except the stream."""

    @property
    def info(self) -> HostInfo: ...

    @property
    def capabilities(self) -> frozenset[Capability]: ...

    def watch(self) -> AsyncIterator[HostEvent]:
        """Events forever: Connected, Resynced, session events; on a drop Disconnected, then
        reconnect with capped, jittered backoff and Connected + Resynced again."""
        ...

    async def session(self, session_id: str) -> SessionInfo | None:
        """Session info, None when the host does not know it (404)."""
        ...

    async def busy_sessions(self) -> Mapping[str, BusyKind]:
        """The busy snapshot: sessions not idle."""
        ...

    def set_directories(self, directories: Sequence[str]) -> None:
        """The workspace folders changed; later snapshots cover these (1.x asks per folder)."""
        ...

    async def nudge(self, session_id: str, text: str, description: str) -> None:
        """Deliver a nudge as synthetic user input; raises HostError."""
        ...

    async def toast(self, title: str, message: str, variant: str) -> bool:
        """Show a toast in the host's TUI; False where the host cannot."""
        ...

    async def aclose(self) -> None: ...
