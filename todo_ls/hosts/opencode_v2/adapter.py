"""The OpenCode 2.x host adapter: the `Host` seam over `HostHttp`, its stream on the skeleton it
shares with the 1.x adapter (hosts/event_stream.py: connect, resync, reconnect and backoff).

- The stream is lossy by contract, so after every (re)connect the adapter re-reads
  `GET /api/session/active`, the sessions, and whatever it still believes open (background
  shells, queued input); durable events are de-duplicated by `durable.seq` per session.
- Shell capture files: 2.x reports no output events for a background shell, only the file its
  output goes to (`shell.created` `info.file`). While shells run, the adapter stats their files
  every `shell_poll_s` and emits `ToolProgress(call_id=<shell id>)` when one changed: a build
  printing for an hour is activity, not a stall. Only the adapter touches the disk; a file that
  is not visible from here (a remote server) simply gives no such signal.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote

from todo_ls.core import events as ev
from todo_ls.hosts.base import Capability, HostError
from todo_ls.hosts.event_stream import StreamingHost
from todo_ls.hosts.http import Backoff, HostHttp, OutageLog
from todo_ls.hosts.opencode_v2.events import (
    SeqFilter,
    WireMemory,
    _dict,
    _session_info,
    _str,
    normalize,
    parse_frame,
)
from todo_ls.hosts.opencode_v2.identity import identify

if TYPE_CHECKING:
    from httpx_sse import ServerSentEvent

log = logging.getLogger(__name__)

KIND: Literal["opencode-v2"] = "opencode-v2"
PASSWORD_ENV = "OPENCODE_PASSWORD"  # `opencode serve` in the foreground; the service: service.json
CAPABILITIES = frozenset({Capability.SESSION_INFO, Capability.BUSY_SNAPSHOT})
DEFAULT_DESCRIPTION = "todo-ls nudge"  # the TUI hides a synthetic message without description


def _seg(identifier: str) -> str:
    """An id from the wire as one URL path segment (it must not reach another route)."""
    return quote(identifier, safe="")


# --- the adapter ---------------------------------------------------------------------------


@dataclass
class _ShellWatch:
    session_id: str
    path: str
    seen: tuple[int, int] | None  # (size, mtime_ns) at the last look


def _stat(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


class OpenCodeV2Host(StreamingHost):
    """The `Host` seam for OpenCode 2.x. Create it with a ready `HostHttp` (see discovery)."""

    def __init__(
        self,
        http: HostHttp,
        *,
        version: str | None = None,
        idle_timeout: float = 45.0,  # three missed 15 s heartbeats
        backoff: Backoff | None = None,
        shell_poll_s: float = 2.0,
        stat: Callable[[str], tuple[int, int] | None] = _stat,
    ) -> None:
        super().__init__(
            http,
            kind=KIND,
            version=version,
            route="/api/event",
            idle_timeout=idle_timeout,
            backoff=backoff,
            # INFO, not WARNING: 2.x drops slow readers by design, so a drop is routine.
            outage=OutageLog(log, "opencode-v2 event stream", logging.INFO),
            closed="GET /api/event: the server closed the stream",
        )
        self._shell_poll_s = shell_poll_s
        self._stat = stat
        self._memory = WireMemory()
        self._seq = SeqFilter()
        self._watched: dict[str, _ShellWatch] = {}
        self._unknown_logged: set[str] = set()
        # Session reads in flight, one per session: the stream loop's (to complete an event
        # that names no location) and the runtime's share it.
        self._reads: dict[str, asyncio.Task[ev.SessionInfo | None]] = {}
        # Events waiting for their session's read, the latest per session.
        self._incomplete: dict[str, ev.SessionUpdated] = {}

    @property
    def capabilities(self) -> frozenset[Capability]:
        return CAPABILITIES

    # --- reads ------------------------------------------------------------------------------

    async def session(self, session_id: str) -> ev.SessionInfo | None:
        """`GET /api/session/{id}` → `{data: Session.Info}`; None on 404. Concurrent reads
        of one session share one request."""
        task = self._reads.get(session_id)
        if task is None:
            task = asyncio.ensure_future(self._read_session(session_id))
            self._reads[session_id] = task
            task.add_done_callback(lambda done: self._read_done(session_id, done))
        # A cancelled caller must not cancel the read others wait for.
        return await asyncio.shield(task)

    def _read_done(self, session_id: str, task: asyncio.Task[ev.SessionInfo | None]) -> None:
        if self._reads.get(session_id) is task:
            del self._reads[session_id]
        if not task.cancelled():
            task.exception()  # retrieved: every caller may have gone

    async def _read_session(self, session_id: str) -> ev.SessionInfo | None:
        try:
            body = await self._http.get_json(f"/api/session/{_seg(session_id)}")
        except HostError as exc:
            if exc.kind == "not-found":
                return None
            raise
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, dict):
            raise HostError("protocol", f"GET /api/session/{session_id}: no data in the answer")
        return _session_info(session_id, data)

    async def busy_sessions(self) -> Mapping[str, ev.BusyKind]:
        """`GET /api/session/active`: every session in the map is running."""
        body = await self._http.get_json("/api/session/active")
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, dict):
            raise HostError("protocol", "GET /api/session/active: no data map in the answer")
        return {str(sid): "busy" for sid in data}

    def set_directories(self, directories: Sequence[str]) -> None:
        """Nothing to do: the 2.x stream and busy snapshot cover every location, and the
        supervisor scopes sessions to the workspace folders itself."""

    async def nudge(self, session_id: str, text: str, description: str) -> None:
        """`POST /api/session/{id}/synthetic {text, description}` (default delivery: steer and
        resume, i.e. it starts a turn when idle). The description is never empty, since the
        TUI hides synthetic messages without one. 404 → HostError("not-found")."""
        body = {"text": text, "description": description.strip() or DEFAULT_DESCRIPTION}
        await self._http.send("POST", f"/api/session/{_seg(session_id)}/synthetic", json=body)

    async def toast(self, title: str, message: str, variant: str) -> bool:
        """No toast route over HTTP on 2.x: the caller tells the editor instead."""
        return False

    # --- the event stream -------------------------------------------------------------------

    async def _identify(self) -> None:
        """The version now (a restart may have been an upgrade); unknown stays as it was."""
        with contextlib.suppress(HostError):
            found = await identify(self._http)
            if found is not None:
                self._version = found.version

    async def _resync(self) -> list[ev.HostEvent]:
        """The authoritative snapshot, plus closes for what ended while we were away."""
        busy = await self.busy_sessions()
        infos: dict[str, ev.SessionInfo] = {}
        pending = list(busy)
        while pending:  # busy sessions and their ancestors (a busy child keeps its root working)
            sid = pending.pop()
            if sid in infos:
                continue
            info = await self.session(sid)
            if info is not None:
                infos[sid] = info
                if info.parent_id:
                    pending.append(info.parent_id)
        healed = [*await self._heal_shells(), *await self._heal_inbox()]
        return [ev.Resynced(busy=busy, sessions=tuple(infos.values())), *healed]

    async def _heal_shells(self) -> list[ev.SessionEvent]:
        """Shells we still think run: ask the host (`GET /api/shell/{id}`, location-scoped)."""
        ended: list[ev.SessionEvent] = []
        for shell_id, sid in list(self._memory.shells.items()):
            params: dict[str, str] = {}
            cwd = self._memory.shell_cwds.get(shell_id)
            if cwd:
                params["location[directory]"] = cwd
            try:
                body = await self._http.get_json(f"/api/shell/{_seg(shell_id)}", params=params)
            except HostError as exc:
                if exc.kind != "not-found":
                    raise
                body = None
            status = _dict(_dict(body).get("data")).get("status")
            if status != "running":
                ended += normalize({"type": "shell.exited", "data": {"id": shell_id}}, self._memory)
                self._watched.pop(shell_id, None)
                log.debug("shell %s of %s ended while the stream was down", shell_id, sid)
        return ended

    async def _heal_inbox(self) -> list[ev.SessionEvent]:
        """Queued input we still think waits: ask the host (`GET /api/session/{id}/inbox`)."""
        delivered: list[ev.SessionEvent] = []
        for sid in sorted(set(self._memory.inbox.values())):
            try:
                body = await self._http.get_json(f"/api/session/{_seg(sid)}/inbox")
            except HostError as exc:
                if exc.kind != "not-found":
                    raise
                body = None
            items = _dict(body).get("data")
            waiting = {
                _str(item.get("id"))
                for item in (items if isinstance(items, list) else [])
                if isinstance(item, dict)
            }
            for inbox_id, owner in list(self._memory.inbox.items()):
                if owner == sid and inbox_id not in waiting:
                    data = {"sessionID": sid, "inboxID": inbox_id}
                    delivered += normalize(
                        {"type": "session.inbox.delivered", "data": data}, self._memory
                    )
        return delivered

    async def _events(self, frames: AsyncIterator[ServerSentEvent]) -> AsyncIterator[ev.HostEvent]:
        """Session events from the frames, interleaved with shell capture-file checks and the
        session reads that complete events naming no location (read off the frame loop, so a
        slow read does not hold the stream; the tracker takes an info arriving late)."""
        loop = asyncio.get_running_loop()
        iterator = frames.__aiter__()
        next_frame: asyncio.Future[Any] | None = None
        next_poll = loop.time() + self._shell_poll_s
        completing: dict[asyncio.Future[ev.SessionUpdated], str] = {}
        try:
            while True:
                if next_frame is None and not completing and not self._watched:
                    # Nothing else to wait for: read the frame directly (a task and a wait
                    # per frame cost about three event-loop turns per event).
                    try:
                        frame = await iterator.__anext__()
                    except StopAsyncIteration:
                        return
                    for event in self._take(frame.data, completing):
                        yield event
                    continue
                if next_frame is None:
                    next_frame = asyncio.ensure_future(iterator.__anext__())
                wait = max(0.0, next_poll - loop.time()) if self._watched else None
                done, _ = await asyncio.wait(
                    {next_frame, *completing}, timeout=wait, return_when=asyncio.FIRST_COMPLETED
                )
                if self._watched and loop.time() >= next_poll:
                    next_poll = loop.time() + self._shell_poll_s
                    for event in self._poll_shells():
                        yield event
                for finished_read in [task for task in completing if task in done]:
                    del completing[finished_read]
                    yield finished_read.result()
                if next_frame not in done:
                    continue
                finished, next_frame = next_frame, None
                try:
                    frame = finished.result()
                except StopAsyncIteration:
                    return
                for event in self._take(frame.data, completing):
                    yield event
        finally:
            pending = [*completing, *([next_frame] if next_frame is not None else [])]
            for future in pending:
                future.cancel()
            for future in pending:
                with contextlib.suppress(BaseException):
                    await future
            self._incomplete.clear()

    def _take(
        self, data: str, completing: dict[asyncio.Future[ev.SessionUpdated], str]
    ) -> list[ev.HostEvent]:
        """The events of one frame ready to go; a session event naming no location waits for
        its session's read (started here, one per session, in `completing`)."""
        ready: list[ev.HostEvent] = []
        for event in self._handle(data):
            if not isinstance(event, ev.SessionUpdated) or event.info.directory:
                ready.append(event)  # the event describes the session: nothing to read
                continue
            sid = event.info.id
            if sid not in self._incomplete:
                completing[asyncio.ensure_future(self._complete(sid))] = sid
            self._incomplete[sid] = event
        return ready

    def _handle(self, data: str) -> list[ev.HostEvent]:
        envelope = parse_frame(data)
        if envelope is None:
            log.debug("opencode-v2: ignored a frame that is not an event: %.80r", data)
            return []
        if not self._seq.fresh(envelope):
            return []
        events: list[ev.HostEvent] = []
        for event in normalize(envelope, self._memory):
            if isinstance(event, ev.ShellStarted) and event.capture_file:
                seen = self._stat(event.capture_file)
                self._watched[event.shell_id] = _ShellWatch(
                    event.session_id, event.capture_file, seen
                )
            elif isinstance(event, ev.ShellEnded):
                self._watched.pop(event.shell_id, None)
            events.append(event)
        if not events and envelope.get("type") not in self._unknown_logged:
            self._unknown_logged.add(str(envelope.get("type")))
            log.debug("opencode-v2: no session meaning for %s events", envelope.get("type"))
        return events

    async def _complete(self, session_id: str) -> ev.SessionUpdated:
        """Session events are mostly location-free: read the session for its directory and
        parent, keeping what the latest event said (and all of it when the read fails)."""
        try:
            info = await self.session(session_id)
        except HostError as exc:
            log.debug("opencode-v2: reading session %s failed: %s", session_id, exc)
            info = None
        event = self._incomplete.pop(session_id)
        if info is None:
            return event
        return ev.SessionUpdated(
            ev.SessionInfo(
                id=info.id,
                directory=info.directory or event.info.directory,
                parent_id=info.parent_id or event.info.parent_id,
                title=info.title or event.info.title,
            )
        )

    def _poll_shells(self) -> Iterator[ev.HostEvent]:
        for shell_id, watch in self._watched.items():
            seen = self._stat(watch.path)
            if seen is not None and seen != watch.seen:
                watch.seen = seen
                yield ev.ToolProgress(watch.session_id, shell_id)
