"""The event-stream half of a `Host` that both OpenCode adapters share (docs/hosts-opencode.md).

Every (re)connect takes the same steps, whatever the API line: open the SSE route, learn who
answers (a restart may have been an upgrade), say `Connected`, take the authoritative
snapshot (`Resynced`, plus whatever the adapter found had ended meanwhile), mark the
connection healthy (which resets the backoff) and only then stream the host's own events. A
drop is logged once (`OutageLog`) and reported as `Disconnected`, and the loop reconnects with
capped, jittered backoff (`reconnect_forever`). An adapter subclasses `StreamingHost` and
says only what differs: its route, how it identifies the server, its snapshot and how its
frames become events.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING

from todo_ls.core import events as ev
from todo_ls.hosts.base import HostError, HostInfo, HostKind
from todo_ls.hosts.http import Backoff, HostHttp, OutageLog, reconnect_forever

if TYPE_CHECKING:
    from httpx_sse import ServerSentEvent


class StreamingHost(ABC):
    """The connection, stream and close of an OpenCode-line `Host`; subclasses add the reads
    and actions and the four steps marked abstract."""

    def __init__(
        self,
        http: HostHttp,
        *,
        kind: HostKind,
        version: str | None,
        route: str,
        idle_timeout: float,
        backoff: Backoff | None,
        outage: OutageLog,
        closed: str,
    ) -> None:
        """`route`: the SSE route; `idle_timeout`: how long a silent stream (no heartbeat)
        lives; `closed`: what `Disconnected` says when the server ends the stream cleanly."""
        self._http = http
        self._kind: HostKind = kind
        self._version = version
        self._route = route
        self._idle_timeout = idle_timeout
        self._backoff = backoff or Backoff(clock=http.clock)
        self._outage = outage
        self._closed = closed

    @property
    def info(self) -> HostInfo:
        return HostInfo(self._kind, self._http.base_url, self._version)

    def watch(self) -> AsyncIterator[ev.HostEvent]:
        """See `Host.watch`: events forever, reconnecting."""
        return reconnect_forever(self._connect, self._dropped, self._backoff)

    def _dropped(self, error: HostError | None) -> ev.HostEvent:
        text = str(error) if error else self._closed
        self._outage.lost(text)
        return ev.Disconnected(text)

    async def _connect(self, mark_healthy: Callable[[], None]) -> AsyncIterator[ev.HostEvent]:
        async with self._http.open_stream(self._route, idle_timeout=self._idle_timeout) as frames:
            await self._identify()
            yield ev.Connected(self._kind, self._http.base_url, self._version)
            snapshot = await self._resync()
            mark_healthy()  # the snapshot came: the connection is usable
            self._outage.restored()
            for event in snapshot:
                yield event
            async for event in self._events(frames):
                yield event

    @abstractmethod
    async def _identify(self) -> None:
        """Read the server's version again (into `_version`) before `Connected`."""

    @abstractmethod
    async def _resync(self) -> Sequence[ev.HostEvent]:
        """The snapshot after a (re)connect: `Resynced` first, then the events of what ended
        while the stream was down."""

    @abstractmethod
    def _events(self, frames: AsyncIterator[ServerSentEvent]) -> AsyncIterator[ev.HostEvent]:
        """The host's events from the stream's frames, until the stream ends."""

    async def aclose(self) -> None:
        await self._http.aclose()
