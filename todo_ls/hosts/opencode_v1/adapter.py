"""The OpenCode 1.x host adapter (`opencode-ai` 1.18): the `Host` implementation over its HTTP
API and `/global/event`: the event stream (the shared skeleton of hosts/event_stream.py, with
a resync after every (re)connect), session info, the busy snapshot, todo lists, the nudge and
the toast. It serves
Kilo's `kilo serve` too (the same API), then with host kind `kilo` (`opencode_v1.kilo`).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, cast

from todo_ls.core.events import (
    BusyKind,
    HostEvent,
    Resynced,
    SessionEvent,
    SessionInfo,
    SessionTodo,
    SessionUpdated,
)
from todo_ls.hosts.base import Capability, HostError
from todo_ls.hosts.event_stream import StreamingHost
from todo_ls.hosts.http import Backoff, HostHttp, OutageLog
from todo_ls.hosts.opencode_v1.events import (
    Bounded,
    V1Memory,
    _dict,
    _str,
    normalize,
    session_info,
    todo_list,
)

if TYPE_CHECKING:
    from httpx_sse import ServerSentEvent

log = logging.getLogger(__name__)

KIND: Final = "opencode-v1"
V1Kind = Literal["opencode-v1", "kilo"]  # the servers of this API
PASSWORD_ENV = "OPENCODE_SERVER_PASSWORD"
USERNAME_ENV = "OPENCODE_SERVER_USERNAME"
HEARTBEAT_INTERVAL = 10.0  # seconds between `server.heartbeat` events (observed)
_TOAST_VARIANTS = frozenset({"info", "success", "warning", "error"})


class OpenCodeV1Host(StreamingHost):
    """`Host` for an OpenCode 1.x server (or Kilo's, `kind` "kilo"). `directories` are the
    workspace folders: the busy snapshot of v1 is per directory, so resync asks each of them.
    The stream is `/global/event` (every directory)."""

    def __init__(
        self,
        http: HostHttp,
        *,
        version: str | None,
        kind: V1Kind = KIND,
        directories: Sequence[str] = (),
        heartbeat_interval: float = HEARTBEAT_INTERVAL,
        backoff: Backoff | None = None,
        now: Callable[[], float] = time.time,
        recent_seconds: float = 3600.0,
    ) -> None:
        super().__init__(
            http,
            kind=kind,
            version=version,
            route="/global/event",
            idle_timeout=2 * heartbeat_interval + 5,  # two missed heartbeats, some slack
            backoff=backoff,
            outage=OutageLog(log, "OpenCode event stream"),
            closed="event stream closed by the server",
        )
        self._directories = tuple(directories)
        self._now = now
        self._recent = recent_seconds
        self._memory = V1Memory()
        self._session_dirs: Bounded[str, str] = Bounded(1024)
        self._seen: Bounded[str, None] = Bounded(32)  # sessions with recent events

    @property
    def capabilities(self) -> frozenset[Capability]:
        return frozenset(Capability)

    def set_directories(self, directories: Sequence[str]) -> None:
        """The workspace folders changed; the next resync and busy snapshot use these."""
        self._directories = tuple(directories)

    # --- events ---------------------------------------------------------------------------

    async def _events(self, frames: AsyncIterator[ServerSentEvent]) -> AsyncIterator[HostEvent]:
        """Each frame is one JSON event (a `payload` envelope or the bare event)."""
        async for frame in frames:
            try:
                raw = json.loads(frame.data)
            except ValueError:
                log.debug("ignoring a non-JSON event frame (%d bytes)", len(frame.data))
                continue
            if isinstance(raw, dict):
                for event in self._normalize(raw):
                    yield event

    def _normalize(self, raw: Mapping[str, Any]) -> list[SessionEvent]:
        known = len(self._memory.unknown_types)
        events = normalize(raw, self._memory)
        if len(self._memory.unknown_types) != known:
            payload = _dict(raw.get("payload")) if "payload" in raw else raw
            log.debug("ignoring OpenCode event type %r (logged once)", payload.get("type"))
        for event in events:
            self._seen[event.session_id] = None
            if isinstance(event, SessionUpdated) and event.info.directory:
                self._session_dirs[event.session_id] = event.info.directory
        return events

    async def _identify(self) -> None:
        """`GET /global/health`: the version now (a restart may have been an upgrade)."""
        health = _dict(await self._http.get_json("/global/health"))
        self._version = _str(health.get("version")) or self._version

    async def _resync(self) -> list[HostEvent]:
        """The authoritative snapshot: busy sessions, session infos, todo lists of busy or
        recently active root sessions (v1 needs no healing beyond it)."""
        busy = await self.busy_sessions()
        sessions: dict[str, SessionInfo] = {}
        for params in self._directory_params():
            listed = await self._http.get_json("/session", {**params, "limit": "50"})
            for raw in listed if isinstance(listed, list) else []:
                info = session_info(raw)
                if info is not None:
                    sessions.setdefault(info.id, info)
                    if _recent(raw, self._now(), self._recent):
                        self._seen[info.id] = None
        for sid in busy:
            if sid not in sessions and (info := await self.session(sid)) is not None:
                sessions[sid] = info
        for info in sessions.values():
            if info.directory:
                self._session_dirs[info.id] = info.directory
        wanted = [sid for sid in busy] + [sid for sid in reversed(self._seen.ordered_keys())]
        todos: dict[str, tuple[SessionTodo, ...]] = {}
        for sid in dict.fromkeys(wanted):
            info = sessions.get(sid)
            if info is not None and info.parent_id is not None:
                continue  # children are never nudged; their lists do not matter
            try:
                todos[sid] = await self.todos(sid)
            except HostError as exc:
                if exc.kind != "not-found":
                    raise
        return [Resynced(busy, tuple(sessions.values()), todos)]

    def _directory_params(self) -> list[dict[str, str]]:
        return [{"directory": d} for d in self._directories] or [{}]

    # --- reads ----------------------------------------------------------------------------

    async def session(self, session_id: str) -> SessionInfo | None:
        """`GET /session/{id}`; None on 404."""
        try:
            raw = await self._http.get_json(f"/session/{session_id}")
        except HostError as exc:
            if exc.kind == "not-found":
                return None
            raise
        info = session_info(raw)
        if info is not None and info.directory:
            self._session_dirs[info.id] = info.directory
        return info

    async def busy_sessions(self) -> Mapping[str, BusyKind]:
        """`GET /session/status` for each workspace folder (it is per directory on v1)."""
        busy: dict[str, BusyKind] = {}
        for params in self._directory_params():
            raw = _dict(await self._http.get_json("/session/status", params))
            for sid, status in raw.items():
                kind = _dict(status).get("type")
                if kind in ("busy", "retry"):
                    busy[sid] = cast(BusyKind, kind)
        return busy

    async def todos(self, session_id: str) -> tuple[SessionTodo, ...]:
        """`GET /session/{id}/todo`; raises HostError("not-found") for an unknown session."""
        return todo_list(await self._http.get_json(f"/session/{session_id}/todo"))

    # --- actions --------------------------------------------------------------------------

    async def nudge(self, session_id: str, text: str, description: str) -> None:
        """Send `text` as a synthetic user text part (`prompt_async`, 204). v1 has no field
        for `description`; the text is self-contained. 404 → HostError("not-found")."""
        directory = self._session_dirs.get(session_id)
        if directory is None:
            info = await self.session(session_id)
            if info is None:
                raise HostError("not-found", f"session {session_id} not found")
            directory = info.directory
        params = {"directory": directory} if directory else None
        body = {"parts": [{"type": "text", "text": text, "synthetic": True}]}
        await self._http.send(
            "POST", f"/session/{session_id}/prompt_async", params=params, json=body
        )

    async def toast(self, title: str, message: str, variant: str) -> bool:
        """`POST /tui/show-toast` (answers true even with no TUI attached). Best effort."""
        body = {
            "title": title,
            "message": message,
            "variant": variant if variant in _TOAST_VARIANTS else "info",
        }
        try:
            await self._http.send("POST", "/tui/show-toast", json=body)
        except HostError as exc:
            log.debug("toast not shown: %s", exc)
            return False
        return True


def _recent(raw: Any, now: float, window: float) -> bool:
    updated = _dict(_dict(raw).get("time")).get("updated")
    is_root = _dict(raw).get("parentID") is None
    return is_root and isinstance(updated, (int, float)) and now - updated / 1000 <= window
