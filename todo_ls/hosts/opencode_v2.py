"""The OpenCode 2.x host adapter (reference/opencode-v2.md).

Three layers, from pure to edge:

- `parse_frame` + `normalize`: pure translation of the wire into the supervisor's event model.
  `normalize` keeps the little memory the 2.x stream needs in a `WireMemory` the caller passes
  in (tool names from `tool.input.started`, the shellID → session map, open inbox items), and
  does no I/O. Every build variant of the reference's appendix is accepted.
- `OpenCodeV2Host`: the `Host` seam over `HostHttp` (shared with the 1.x adapter). The stream is
  lossy by contract, so after every (re)connect it re-reads `GET /api/session/active`, the
  sessions, and whatever it still believes open (background shells, queued input); durable
  events are de-duplicated by `durable.seq` per session.
- Shell capture files: 2.x reports no output events for a background shell, only the file its
  output goes to (`shell.created` `info.file`). While shells run, the adapter stats their files
  every `shell_poll_s` and emits `ToolProgress(call_id=<shell id>)` when one changed: a build
  printing for an hour is activity, not a stall. Only the adapter touches the disk; a file that
  is not visible from here (a remote server) simply gives no such signal.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

import httpx

from todo_ls.hosts.base import Capability, HostError, HostInfo
from todo_ls.hosts.http import Backoff, HostHttp, OutageLog, reconnect_forever
from todo_ls.supervisor import events as ev

log = logging.getLogger(__name__)

KIND: Literal["opencode-v2"] = "opencode-v2"
PASSWORD_ENV = "OPENCODE_PASSWORD"  # `opencode serve` in the foreground; the service: service.json
CAPABILITIES = frozenset(
    {Capability.EVENTS, Capability.SESSION_INFO, Capability.BUSY_SNAPSHOT, Capability.NUDGE}
)
DEFAULT_DESCRIPTION = "todo-ls nudge"  # the TUI hides a synthetic message without description
_MEMORY_CAP = 4096  # entries per map: bounded even when the matching close events are lost

Json = Mapping[str, Any]


# --- pure: frames and envelopes -----------------------------------------------------------


def parse_frame(data: str) -> Json | None:
    """The event envelope in one SSE frame's data, or None for anything else.

    Accepts the bare envelope and an Effect `Sse.encode` item `{id, event, data}` whose `data`
    is the envelope's JSON string (some builds put that item in the data line itself).
    """
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):  # RecursionError: absurdly nested JSON
        return None
    if isinstance(value, dict) and "type" not in value and isinstance(value.get("data"), str):
        return parse_frame(value["data"])
    if isinstance(value, dict) and isinstance(value.get("type"), str):
        return value
    return None


def session_of(envelope: Json) -> str | None:
    """Session identity: `durable.aggregateID`, else `data.sessionID` (`sessionIDOf`)."""
    durable = envelope.get("durable")
    if isinstance(durable, dict) and isinstance(durable.get("aggregateID"), str):
        return str(durable["aggregateID"])
    data = envelope.get("data")
    if isinstance(data, dict) and isinstance(data.get("sessionID"), str):
        return str(data["sessionID"])
    return None


def durable_seq(envelope: Json) -> int | None:
    durable = envelope.get("durable")
    seq = durable.get("seq") if isinstance(durable, dict) else None
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else None


@dataclass
class SeqFilter:
    """Drops a durable event whose `seq` is not above the last one seen for its session."""

    last: dict[str, int] = field(default_factory=dict)

    def fresh(self, envelope: Json) -> bool:
        seq, session_id = durable_seq(envelope), session_of(envelope)
        if seq is None or session_id is None:
            return True  # ephemeral events carry no seq: nothing to compare
        if seq <= self.last.get(session_id, -1):
            return False
        self.last[session_id] = seq
        return True


@dataclass
class WireMemory:
    """What normalizing the 2.x stream has to remember between events."""

    tool_names: dict[str, str] = field(default_factory=dict)  # tool call id → name
    shells: dict[str, str] = field(default_factory=dict)  # shell id → session id
    shell_files: dict[str, str] = field(default_factory=dict)  # shell id → capture file
    shell_cwds: dict[str, str] = field(default_factory=dict)  # shell id → cwd (its location)
    inbox: dict[str, str] = field(default_factory=dict)  # open inbox item id → session id


def _remember(table: dict[str, str], key: str, value: str) -> None:
    table[key] = value
    if len(table) > _MEMORY_CAP:
        del table[next(iter(table))]  # oldest first: its close event was lost long ago


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _seg(identifier: str) -> str:
    """An id from the wire as one URL path segment (it must not reach another route)."""
    return quote(identifier, safe="")


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _attempt(value: Any) -> int:
    # A wire value of any other type (text, a float like inf, null) must not break the stream.
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _session_info(session_id: str, data: Json) -> ev.SessionInfo:
    """From the flat `session.created` data or a `Session.Info` (or a v1-like `info`)."""
    location = _dict(data.get("location"))
    directory = _str(location.get("directory")) or _str(data.get("directory"))
    return ev.SessionInfo(
        id=_str(data.get("id")) or session_id,
        directory=directory,
        parent_id=_str(data.get("parentID")),
        title=_str(data.get("title")) or "",
    )


def _tool_title(tool_input: Json) -> str:
    for key in ("description", "command", "filePath", "path", "pattern", "url"):
        text = _str(tool_input.get(key))
        if text:
            return text
    return ""


_SPANS: dict[str, ev.SpanKind] = {"session.text": "text", "session.reasoning": "reasoning"}
_ASKED = ("permission.v2.asked", "permission.asked", "question.v2.asked", "question.asked")
_REPLIED = (
    "permission.v2.replied",
    "permission.replied",
    "question.v2.replied",
    "question.replied",
)
_REJECTED = ("question.v2.rejected", "question.rejected")
_ALIVE = (
    "session.text.delta",
    "session.reasoning.delta",
    "session.tool.input.delta",
    "session.step.streamed",
    "session.usage.updated",
    "session.compaction.started",
    "session.compaction.delta",
    "session.compaction.ended",
    "session.compaction.failed",
)


def normalize(envelope: Json, memory: WireMemory | None = None) -> list[ev.SessionEvent]:
    """Translate one 2.x event envelope into session events ([] for everything else).

    Pure: no I/O; the only state is `memory` (a fresh one when omitted), which it updates.
    """
    memory = WireMemory() if memory is None else memory
    kind = envelope.get("type")
    data = _dict(envelope.get("data"))
    if not isinstance(kind, str):
        return []
    if kind.startswith("shell."):
        return _shell(kind, data, memory)
    sid = session_of(envelope)
    if sid is None:
        return []
    if kind in ("session.created", "session.updated", "session.moved"):
        info = data.get("info")
        return [ev.SessionUpdated(_session_info(sid, info if isinstance(info, dict) else data))]
    if kind == "session.deleted":
        return [ev.SessionDeleted(sid)]
    if kind.startswith("session.execution."):
        return _execution(sid, kind.removeprefix("session.execution."), data)
    if kind.startswith("session.step."):
        return _step(sid, kind.removeprefix("session.step."), data)
    if kind.startswith("session.tool."):
        return _tool(sid, kind.removeprefix("session.tool."), data, memory)
    if kind.startswith("session.inbox."):
        return _inbox(sid, kind.removeprefix("session.inbox."), data, memory)
    span_kind = _SPANS.get(kind.rpartition(".")[0])
    if span_kind is not None and kind.endswith((".started", ".ended")):
        span_id = f"{data.get('assistantMessageID')}:{data.get('ordinal', 0)}"
        if kind.endswith(".started"):
            return [ev.SpanStarted(sid, span_kind, span_id)]
        return [ev.SpanEnded(sid, span_kind, span_id)]
    if kind == "session.synthetic":
        return [ev.UserMessage(sid, synthetic=True, message_id=_str(envelope.get("id")) or "")]
    if kind == "session.retry.scheduled":
        at = data.get("at")
        message = _str(_dict(data.get("error")).get("message")) or ""
        next_at = at / 1000 if isinstance(at, (int, float)) else None
        return [ev.Retrying(sid, _attempt(data.get("attempt")), next_at, message)]
    if kind in ("session.shell.started", "session.shell.ended"):
        shell = _dict(data.get("shell"))
        shell_id = _str(shell.get("id"))
        if shell_id is None:
            return []
        if kind.endswith("started"):
            return [_shell_started(sid, shell, shell_id, memory)]
        memory.shells.pop(shell_id, None)
        return [ev.ShellEnded(sid, shell_id)]
    if kind in _ASKED:
        request_id = _str(data.get("id")) or _str(data.get("requestID")) or ""
        return [ev.PermissionAsked(sid, request_id, _asked_what(kind, data))]
    if kind in _REPLIED or kind in _REJECTED:
        request_id = _str(data.get("requestID")) or _str(data.get("id")) or ""
        reply = "reject" if kind in _REJECTED else str(data.get("reply") or "answered")
        return [ev.PermissionReplied(sid, request_id, reply)]
    if kind == "session.status":
        return _status(sid, _dict(data.get("status")))
    if kind in _ALIVE:
        return [ev.Activity(sid)]
    return []


def _execution(sid: str, phase: str, data: Json) -> list[ev.SessionEvent]:
    if phase == "started":
        return [ev.TurnStarted(sid)]
    if phase == "succeeded":
        return [ev.TurnEnded(sid, "completed")]
    if phase == "failed":
        error = _dict(data.get("error"))
        detail = _str(error.get("message")) or _str(error.get("type")) or "failed"
        return [ev.TurnEnded(sid, "failed", detail)]
    if phase == "interrupted":
        reason = _str(data.get("reason")) or "unknown"
        if reason == "shutdown":
            # The claim survives: the host resumes this turn on its next start.
            return [ev.TurnEnded(sid, "shutdown", reason)]
        # superseded / inactivity: the host ended the turn; only `user` is a person.
        return [ev.TurnEnded(sid, "interrupted", reason, by_user=reason == "user")]
    return []


def _step(sid: str, phase: str, data: Json) -> list[ev.SessionEvent]:
    step_id = _str(data.get("assistantMessageID")) or ""
    if phase == "started":
        return [ev.StepStarted(sid, step_id)]
    if phase == "ended":
        return [ev.StepEnded(sid, step_id, _str(data.get("finish")))]
    if phase == "failed":
        return [ev.StepEnded(sid, step_id, _str(data.get("finish")) or "error")]
    if phase == "streamed":
        return [ev.Activity(sid)]
    return []


def _tool(sid: str, phase: str, data: Json, memory: WireMemory) -> list[ev.SessionEvent]:
    call_id = _str(data.get("id")) or _str(data.get("callID"))
    if call_id is None:
        return []
    name = _str(data.get("name"))
    if phase == "input.started":
        if name:
            _remember(memory.tool_names, call_id, name)
        return [ev.SpanStarted(sid, "tool-input", call_id)]
    if phase == "input.ended":
        return [ev.SpanEnded(sid, "tool-input", call_id)]
    if phase == "input.delta":
        return [ev.Activity(sid)]
    if phase == "called":
        tool = name or memory.tool_names.get(call_id) or "tool"
        title = _tool_title(_dict(data.get("input")))
        # A call without input events still closes any tool-input span of the same id.
        return [ev.SpanEnded(sid, "tool-input", call_id), ev.ToolStarted(sid, call_id, tool, title)]
    if phase == "progress":
        return [ev.ToolProgress(sid, call_id)]
    if phase in ("success", "failed"):
        memory.tool_names.pop(call_id, None)
        return [ev.ToolEnded(sid, call_id, ok=phase == "success")]
    return []


def _inbox(sid: str, phase: str, data: Json, memory: WireMemory) -> list[ev.SessionEvent]:
    inbox_id = _str(data.get("inboxID"))
    if inbox_id is None:
        return []
    if phase == "enqueued":
        _remember(memory.inbox, inbox_id, sid)
        item = _dict(data.get("item"))
        queued: list[ev.SessionEvent] = [ev.InputQueued(sid, inbox_id)]
        if item.get("type") == "user":
            # A person wrote to the session: admitted input is the real user prompt
            # (synthetic input is reported by `session.synthetic`).
            queued.append(ev.UserMessage(sid, synthetic=False, message_id=inbox_id))
        return queued
    if phase in ("delivered", "cancelled"):
        memory.inbox.pop(inbox_id, None)
        return [ev.InputDelivered(sid, inbox_id)]
    return []


def _shell(kind: str, data: Json, memory: WireMemory) -> list[ev.SessionEvent]:
    if kind == "shell.created":
        info = _dict(data.get("info"))
        shell_id = _str(info.get("id"))
        sid = _str(_dict(info.get("metadata")).get("sessionID"))
        if shell_id is None or sid is None:
            return []  # a shell of the user's, not of a session
        started = _shell_started(sid, info, shell_id, memory)
        if info.get("status", "running") != "running":
            memory.shells.pop(shell_id, None)
            return [started, ev.ShellEnded(sid, shell_id)]
        return [started]
    if kind in ("shell.exited", "shell.deleted"):
        shell_id = _str(data.get("id"))
        owner = memory.shells.pop(shell_id, None) if shell_id else None
        if shell_id is None or owner is None:
            return []
        memory.shell_files.pop(shell_id, None)
        memory.shell_cwds.pop(shell_id, None)
        return [ev.ShellEnded(owner, shell_id)]
    return []


def _shell_started(sid: str, info: Json, shell_id: str, memory: WireMemory) -> ev.ShellStarted:
    capture = _str(info.get("file"))
    _remember(memory.shells, shell_id, sid)
    if capture:
        _remember(memory.shell_files, shell_id, capture)
    cwd = _str(info.get("cwd"))
    if cwd:
        _remember(memory.shell_cwds, shell_id, cwd)
    return ev.ShellStarted(sid, shell_id, _str(info.get("command")) or "", capture)


def _asked_what(kind: str, data: Json) -> str:
    if kind.startswith("question."):
        return "question"
    action = _str(data.get("action")) or _str(data.get("permission")) or "permission"
    resources = data.get("resources") or data.get("patterns")
    if isinstance(resources, list) and resources:
        return f"{action} {' '.join(str(r) for r in resources[:3])}"
    return action


def _status(sid: str, status: Json) -> list[ev.SessionEvent]:
    """The optional `session.status` of some builds: an extra signal, never the authority.

    `session.execution.*` decides busy and idle. `busy` only shows life, and `idle` (like the
    deprecated `session.idle`) is ignored: after a `shutdown` interrupt it would end a turn the
    host is going to resume. `retry` carries when the provider is tried again.
    """
    state = status.get("type")
    if state == "busy":
        return [ev.Activity(sid)]
    if state == "retry":
        nxt = status.get("next")
        next_at = nxt / 1000 if isinstance(nxt, (int, float)) else None
        attempt = _attempt(status.get("attempt"))
        return [ev.Retrying(sid, attempt, next_at, str(status.get("message") or ""))]
    return []


# --- identity ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Identity:
    """What a 2.x server says about itself."""

    version: str
    pid: int


def judge_identity(body: Any) -> Identity | None:
    """A 2.x identity body (`/api/info` or `/api/health`) has a string `version` and an
    integer `pid`. OpenCode 1.18 answers those paths with HTML or `{"healthy": true}`: None."""
    if not isinstance(body, dict):
        return None
    version, pid = body.get("version"), body.get("pid")
    if isinstance(version, str) and isinstance(pid, int) and not isinstance(pid, bool):
        return Identity(version, pid)
    return None


def version_of(body: Any) -> str | None:
    """The version in a 2.x identity body (for discovery's probes), None when it is not one."""
    found = judge_identity(body)
    return found.version if found else None


async def identify(http: HostHttp) -> Identity | None:
    """Probe `/api/info`, then `/api/health`; None when neither identifies a 2.x server.

    Raises `HostError` when the server is unreachable or refuses the password (the caller
    must tell those apart from "some other server").
    """
    for path in ("/api/info", "/api/health"):
        try:
            body = await http.get_json(path)
        except HostError as exc:
            if exc.kind in ("unreachable", "unauthorized", "timeout"):
                raise
            continue  # 404, HTML: not this build's identity route
        found = judge_identity(body)
        if found is not None:
            return found
    return None


# --- discovery: the registration file ------------------------------------------------------


@dataclass(frozen=True)
class Registration:
    """`$XDG_STATE_HOME/opencode/service.json`, written by the managed 2.x service."""

    path: Path
    url: str
    pid: int | None
    password: str | None


def registration_path(env: Mapping[str, str]) -> Path:
    """`$XDG_STATE_HOME/opencode/service.json`, default `~/.local/state/opencode/service.json`."""
    state = env.get("XDG_STATE_HOME")
    if state:
        return Path(state) / "opencode" / "service.json"
    home = env.get("HOME")
    return (Path(home) if home else Path.home()) / ".local" / "state" / "opencode" / "service.json"


def read_registration(env: Mapping[str, str]) -> Registration | None:
    """The registration file, or None when it is missing or not usable (logged)."""
    path = registration_path(env)
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("opencode-v2: cannot read %s: %s", path, type(exc).__name__)
        return None
    url = body.get("url") if isinstance(body, dict) else None
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        log.warning("opencode-v2: %s has no usable url", path)
        return None
    pid, password = body.get("pid"), body.get("password")
    return Registration(
        path,
        url,
        pid if isinstance(pid, int) and not isinstance(pid, bool) else None,
        password if isinstance(password, str) and password else None,
    )


async def from_registration(
    env: Mapping[str, str],
    *,
    url: str | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> OpenCodeV2Host | None:
    """The adapter for the registered 2.x service, confirmed by `GET /api/info` (or
    `/api/health`) with the registered password and pid. None when there is no registration,
    it names another URL than `url` (when given), or it is stale (nothing answers there, or
    another process does). A 401 with the registered password raises `unauthorized`."""
    found = read_registration(env)
    if found is None or (url is not None and url.rstrip("/") != found.url.rstrip("/")):
        return None
    http = HostHttp(
        found.url,
        password=found.password,
        auth_hint=f"the password in {found.path} was refused",
        transport=transport,
    )
    try:
        identity = await identify(http)
    except HostError as exc:
        await http.aclose()
        if exc.kind == "unauthorized":
            raise
        log.info("opencode-v2: %s is stale: %s", found.path, exc)
        return None
    if identity is None or (found.pid is not None and identity.pid != found.pid):
        await http.aclose()
        log.info("opencode-v2: %s names a server that is not (or no longer) it", found.path)
        return None
    log.info("found opencode-v2 %s at %s (from %s)", identity.version, found.url, found.path)
    return OpenCodeV2Host(http, version=identity.version)


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


class OpenCodeV2Host:
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
        self._http = http
        self._version = version
        self._idle_timeout = idle_timeout
        self._backoff = backoff or Backoff()
        self._shell_poll_s = shell_poll_s
        self._stat = stat
        self._memory = WireMemory()
        self._seq = SeqFilter()
        self._watched: dict[str, _ShellWatch] = {}
        self._unknown_logged: set[str] = set()
        # INFO, not WARNING: 2.x drops slow readers by design, so a drop is routine.
        self._outage = OutageLog(log, "opencode-v2 event stream", logging.INFO)

    @property
    def info(self) -> HostInfo:
        return HostInfo(KIND, self._http.base_url, self._version)

    @property
    def capabilities(self) -> frozenset[Capability]:
        return CAPABILITIES

    # --- reads ------------------------------------------------------------------------------

    async def session(self, session_id: str) -> ev.SessionInfo | None:
        """`GET /api/session/{id}` → `{data: Session.Info}`; None on 404."""
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

    async def todos(self, session_id: str) -> tuple[ev.SessionTodo, ...] | None:
        """2.x has no session todo list: markdown files only."""
        return None

    async def nudge(self, session_id: str, text: str, description: str) -> None:
        """`POST /api/session/{id}/synthetic {text, description}` (default delivery: steer and
        resume, i.e. it starts a turn when idle). The description is never empty, since the
        TUI hides synthetic messages without one. 404 → HostError("not-found")."""
        body = {"text": text, "description": description.strip() or DEFAULT_DESCRIPTION}
        await self._http.send("POST", f"/api/session/{_seg(session_id)}/synthetic", json=body)

    async def toast(self, title: str, message: str, variant: str) -> bool:
        """No toast route over HTTP on 2.x: the caller tells the editor instead."""
        return False

    async def aclose(self) -> None:
        await self._http.aclose()

    # --- the event stream -------------------------------------------------------------------

    def watch(self) -> AsyncIterator[ev.HostEvent]:
        """Events forever, reconnecting with capped, jittered backoff (see `Host.watch`)."""
        return reconnect_forever(self._connect, self._dropped, self._backoff)

    def _dropped(self, error: HostError | None) -> ev.HostEvent:
        text = str(error) if error else "GET /api/event: the server closed the stream"
        self._outage.lost(text)
        return ev.Disconnected(text)

    async def _connect(self, mark_healthy: Callable[[], None]) -> AsyncIterator[ev.HostEvent]:
        async with self._http.open_stream("/api/event", idle_timeout=self._idle_timeout) as frames:
            with contextlib.suppress(HostError):
                found = await identify(self._http)
                if found is not None:
                    self._version = found.version  # a restart may have been an upgrade
            yield ev.Connected(KIND, self._http.base_url, self._version)
            resynced, healed = await self._resync()
            mark_healthy()  # the snapshot came: the connection is usable
            self._outage.restored()
            yield resynced
            for closed in healed:
                yield closed
            async for event in self._events(frames):
                yield event

    async def _resync(self) -> tuple[ev.Resynced, list[ev.SessionEvent]]:
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
        return ev.Resynced(busy=busy, sessions=tuple(infos.values())), healed

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

    async def _events(self, frames: AsyncIterator[Any]) -> AsyncIterator[ev.HostEvent]:
        """Session events from the frames, interleaved with shell capture-file checks."""
        loop = asyncio.get_running_loop()
        iterator = frames.__aiter__()
        next_frame: asyncio.Future[Any] | None = None
        next_poll = loop.time() + self._shell_poll_s
        try:
            while True:
                if next_frame is None:
                    next_frame = asyncio.ensure_future(iterator.__anext__())
                wait = max(0.0, next_poll - loop.time()) if self._watched else None
                done, _ = await asyncio.wait({next_frame}, timeout=wait)
                if self._watched and loop.time() >= next_poll:
                    next_poll = loop.time() + self._shell_poll_s
                    for event in self._poll_shells():
                        yield event
                if not done:
                    continue
                finished, next_frame = next_frame, None
                try:
                    frame = finished.result()
                except StopAsyncIteration:
                    return
                for event in await self._handle(frame.data):
                    yield event
        finally:
            if next_frame is not None:
                next_frame.cancel()
                with contextlib.suppress(BaseException):
                    await next_frame

    async def _handle(self, data: str) -> list[ev.HostEvent]:
        envelope = parse_frame(data)
        if envelope is None:
            log.debug("opencode-v2: ignored a frame that is not an event: %.80r", data)
            return []
        if not self._seq.fresh(envelope):
            return []
        events: list[ev.HostEvent] = []
        for event in normalize(envelope, self._memory):
            if isinstance(event, ev.SessionUpdated):
                events.append(await self._complete(event))
                continue
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

    async def _complete(self, event: ev.SessionUpdated) -> ev.SessionUpdated:
        """Session events are mostly location-free: read the session for its directory and
        parent, keeping what the event said when the read fails."""
        try:
            info = await self.session(event.info.id)
        except HostError as exc:
            log.debug("opencode-v2: reading session %s failed: %s", event.info.id, exc)
            return event
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
