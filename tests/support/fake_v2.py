"""A fake OpenCode 2.x server for the tests, following the 2.x protocol of docs/hosts-opencode.md.

OpenCode 2.x cannot be installed here, so the tests talk to this stand-in. It is deliberately
faithful where the adapter could get things wrong: every route under `/api`, bodies wrapped in
`{data: ...}`, errors as `{_tag, ...}` with their HTTP status, HTTP Basic auth always on (user
`opencode`), and an SSE stream that is lossy by contract (a bounded queue per subscriber; a slow
reader's stream is failed, not throttled). The build variants of the reference's appendix are
switches (`Variant`). Standard library only: an asyncio-streams HTTP/1.1 server on 127.0.0.1.

Tests script it: add sessions, set the busy snapshot, emit events (durable ones get a
per-session `seq`), drop every stream, make open streams go silent, stop and restart on the same
port, react to a synthetic POST with scripted events the way a real host runs a turn, and
fail that POST on purpose (`nudge_fault`).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

Json = dict[str, Any]
Reaction = Callable[[str, Json], Awaitable[None]]

_CLOSE = object()  # queue sentinel: end this subscriber's stream
_HEARTBEAT = b": heartbeat\n\n"


@dataclass(frozen=True)
class Variant:
    """Which 2.x build to imitate (reference appendix).

    identity: "info" = newer `/api/info {version, pid, urls, paths}`; "health" = the OpenAPI
    build's `/api/health {healthy, version, pid}` only; "v1" = what OpenCode 1.18 answers on those
    paths (HTML page on `/api/info`, `{"healthy": true}` without version on `/api/health`) plus
    `/global/health`, to check that a probe judges bodies, not statuses.
    framing: "data" = bare `data: <json>` frames; "item" = Effect `Sse.encode` items
    (`id:`, `event: message`, `data:` the event's JSON string) and no `created` on
    `server.connected`.
    """

    identity: Literal["info", "health", "v1"] = "info"
    framing: Literal["data", "item"] = "data"


NEWER = Variant()
OPENAPI_BUILD = Variant(identity="health", framing="item")


@dataclass
class _Subscriber:
    queue: asyncio.Queue[object]
    writer: asyncio.StreamWriter
    silent: bool = False
    dropped: bool = False


@dataclass
class FakeV2Server:
    """A scriptable OpenCode 2.x server. `await start()`, then use `url` and `password`."""

    password: str = "fake-v2-password"
    variant: Variant = NEWER
    version: str = "2.0.17"
    heartbeat_s: float = 15.0
    queue_size: int = 4096  # per subscriber, as in event-feed.ts; small values make overflow easy
    send_buffer: int | None = None  # SO_SNDBUF for stream sockets (small: a slow reader shows fast)
    pid: int = field(default_factory=os.getpid)
    port: int = 0

    sessions: dict[str, Json] = field(default_factory=dict)
    active: dict[str, Json] = field(default_factory=dict)
    shells: dict[str, Json] = field(default_factory=dict)  # Shell.Info by id
    inbox: dict[str, list[Json]] = field(default_factory=dict)  # undelivered items by session
    synthetic_requests: list[tuple[str, Json]] = field(default_factory=list)
    requests: list[tuple[str, str]] = field(default_factory=list)  # (method, path) log
    on_synthetic: Reaction | None = None  # scripted reaction, run after the POST is answered
    streams_opened: int = 0
    heartbeats_sent: int = 0  # over every stream: lets a test wait for real time to pass
    streams_dropped_slow: int = 0
    # A fault on the nudge route: an HTTP status (404: the session is deleted right before
    # the POST), or "hang" (the request is taken and never answered).
    nudge_fault: int | Literal["hang"] | None = None
    nudge_posts: int = 0  # every synthetic POST, failed ones included
    # Set: the inbox events of an answered synthetic POST wait for it. A real host's events
    # reach the stream a moment after the POST left; a test moves its clock in between.
    synthetic_events_gate: asyncio.Event | None = None
    # Set: `GET /api/session/{id}` answers only once it is set (a slow host).
    session_read_gate: asyncio.Event | None = None

    def __post_init__(self) -> None:
        self._server: asyncio.base_events.Server | None = None
        self._subscribers: list[_Subscriber] = []
        self._connections: set[asyncio.StreamWriter] = set()
        self._seq: dict[str, int] = {}
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Future[None]] = set()
        self._release_hung = asyncio.Event()

    # --- lifecycle ----------------------------------------------------------------------

    async def start(self) -> None:
        """Listen on 127.0.0.1 (the same port again after a stop)."""
        self._release_hung = asyncio.Event()
        self._server = await asyncio.start_server(
            self._handle, "127.0.0.1", self.port, reuse_address=True
        )
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Stop listening and cut every connection, like a killed server process."""
        self._release_hung.set()
        if self._server is not None:
            self._server.close()
        for sub in list(self._subscribers):
            self._drop(sub)
        for writer in list(self._connections):
            writer.transport.abort()
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None
        for task in list(self._tasks):
            task.cancel()

    async def __aenter__(self) -> FakeV2Server:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def auth_header(self) -> str:
        token = base64.b64encode(f"opencode:{self.password}".encode()).decode()
        return f"Basic {token}"

    def write_registration(self, state_home: Path, *, with_password: bool = True) -> Path:
        """Write `$XDG_STATE_HOME/opencode/service.json` as the managed service does."""
        path = state_home / "opencode" / "service.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        body: Json = {"id": "fake", "version": self.version, "url": self.url, "pid": self.pid}
        if with_password:
            body["password"] = self.password
        path.write_text(json.dumps(body))
        path.chmod(0o600)
        return path

    # --- scripting ----------------------------------------------------------------------

    def add_session(
        self, session_id: str, directory: str, *, parent_id: str | None = None, title: str = ""
    ) -> Json:
        """Register a session (`Session.Info`, public shape) and return it."""
        now = int(time.time() * 1000)
        location: Json = {"directory": directory}
        if self.variant.identity == "health":
            location["workspaceID"] = "wrk_fake"
        info: Json = {
            "id": session_id,
            "projectID": "prj_fake",
            "cost": 0,
            "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
            "time": {"created": now, "updated": now},
            "title": title or session_id,
            "location": location,
        }
        if parent_id is not None:
            info["parentID"] = parent_id
        self.sessions[session_id] = info
        return info

    def set_active(self, *session_ids: str) -> None:
        """Replace the busy snapshot served by `GET /api/session/active`."""
        self.active = {sid: {"type": "running"} for sid in session_ids}

    def emit(
        self,
        type_: str,
        data: Json,
        *,
        durable: bool = True,
        location: Json | None = None,
        seq: int | None = None,
    ) -> Json:
        """Publish one event to every subscriber and return its envelope.

        A durable event of a session gets the session's next `seq` (or `seq`, to replay one).
        """
        envelope: Json = {
            "id": f"evt_{next(self._ids):06d}",
            "created": int(time.time() * 1000),
            "type": type_,
            "metadata": {},
            "data": data,
        }
        session_id = data.get("sessionID")
        if durable and isinstance(session_id, str):
            if seq is None:
                seq = self._seq.get(session_id, 0) + 1
            self._seq[session_id] = max(seq, self._seq.get(session_id, 0))
            envelope["durable"] = {"aggregateID": session_id, "seq": seq, "version": 1}
        if location is not None:
            envelope["location"] = location
        self._publish(self._frame(envelope))
        return envelope

    def emit_raw(self, text: str) -> None:
        """Publish raw SSE text (garbage lines, odd framings) exactly as given."""
        self._publish(text.encode())

    def drop_streams(self) -> None:
        """End every open event stream (events published meanwhile are lost, as on a real drop)."""
        for sub in list(self._subscribers):
            self._drop(sub)

    def go_silent(self) -> None:
        """Streams open now stay open but never send another byte (a half-dead connection)."""
        for sub in self._subscribers:
            sub.silent = True

    def start_shell(
        self, session_id: str, capture_file: Path, command: str = "sleep 60", *, cwd: str = "/"
    ) -> str:
        """A background shell of a session: `shell.created` with its capture file."""
        shell_id = f"sh_{next(self._ids):04d}"
        capture_file.touch()
        self.shells[shell_id] = {
            "id": shell_id,
            "status": "running",
            "command": command,
            "cwd": cwd,
            "shell": "/bin/sh",
            "file": str(capture_file),
            "metadata": {"sessionID": session_id},
            "time": {"started": _now_ms()},
        }
        self.emit("shell.created", {"info": self.shells[shell_id]}, durable=False)
        return shell_id

    def end_shell(self, shell_id: str, *, emit: bool = True) -> None:
        """The shell exits (`shell.exited`, or silently: an event lost on the way)."""
        self.shells[shell_id] = {**self.shells[shell_id], "status": "exited", "exit": 0}
        if emit:
            self.emit(
                "shell.exited", {"id": shell_id, "exit": 0, "status": "exited"}, durable=False
            )

    def user_prompt(self, session_id: str, text: str, *, deliver: bool = True) -> str:
        """A person's prompt: admitted to the inbox (`type: user`), delivered unless told not."""
        inbox_id = f"msg_usr{next(self._ids):04d}"
        item: Json = {"type": "user", "payload": {"text": text}, "delivery": "steer"}
        self.inbox.setdefault(session_id, []).append(
            {"id": inbox_id, "sessionID": session_id, "timeCreated": _now_ms(), **item}
        )
        base = {"sessionID": session_id, "inboxID": inbox_id}
        self.emit("session.inbox.enqueued", {**base, "item": item})
        if deliver:
            self.deliver(session_id, inbox_id)
        return inbox_id

    def deliver(self, session_id: str, inbox_id: str, *, emit: bool = True) -> None:
        """An inbox item leaves the inbox (with `session.inbox.delivered`, or silently)."""
        items = self.inbox.get(session_id, [])
        self.inbox[session_id] = [i for i in items if i["id"] != inbox_id]
        if emit:
            self.emit("session.inbox.delivered", {"sessionID": session_id, "inboxID": inbox_id})

    async def run_turn(
        self,
        session_id: str,
        *,
        outcome: Literal["succeeded", "failed", "interrupted"] = "succeeded",
        reason: str = "user",
        steps: int = 1,
        pause_s: float = 0.0,
    ) -> None:
        """Emit one busy period as a real host does and keep `/api/session/active` in step."""
        self.active[session_id] = {"type": "running"}
        self.emit("session.execution.started", {"sessionID": session_id})
        for n in range(steps):
            message_id = f"msg_step{next(self._ids):04d}"
            base = {"sessionID": session_id, "assistantMessageID": message_id}
            self.emit("session.step.started", {**base, "agent": "build", "started": _now_ms()})
            self.emit("session.text.started", {**base, "ordinal": 0})
            self.emit("session.text.ended", {**base, "ordinal": 0, "text": "working on it"})
            if pause_s:
                await asyncio.sleep(pause_s)
            finish = "tool-calls" if n < steps - 1 else "stop"
            self.emit("session.step.ended", {**base, "finish": finish, "cost": 0})
        self.active.pop(session_id, None)
        terminal: Json = {"sessionID": session_id}
        if outcome == "failed":
            terminal["error"] = {"type": "provider", "message": "boom"}
        if outcome == "interrupted":
            terminal["reason"] = reason
        self.emit(f"session.execution.{outcome}", terminal)

    # --- HTTP ---------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._connections.add(writer)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            request_line, *header_lines = head.decode("latin-1").split("\r\n")
            method, target, _ = request_line.split(" ", 2)
            headers = {}
            for line in header_lines:
                if ":" in line:
                    name, value = line.split(":", 1)
                    headers[name.strip().lower()] = value.strip()
            length = int(headers.get("content-length", "0") or 0)
            body = await reader.readexactly(length) if length else b""
            await self._route(reader, method, target, headers, body, writer)
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            pass
        finally:
            self._connections.discard(writer)
            with contextlib.suppress(Exception):
                writer.close()

    def _authorized(self, headers: dict[str, str], query: dict[str, list[str]]) -> bool:
        if headers.get("authorization") == self.auth_header:
            return True
        token = query.get("auth_token", [""])[0]
        return token == self.auth_header.removeprefix("Basic ")

    async def _route(
        self,
        reader: asyncio.StreamReader,
        method: str,
        target: str,
        headers: dict[str, str],
        body: bytes,
        writer: asyncio.StreamWriter,
    ) -> None:
        parts = urlsplit(target)
        path, query = parts.path, parse_qs(parts.query)
        self.requests.append((method, path))
        if not self._authorized(headers, query):
            await _respond(
                writer,
                401,
                {"_tag": "UnauthorizedError", "message": "Unauthorized"},
                extra={"www-authenticate": 'Basic realm="Secure Area"'},
            )
            return
        segments = [s for s in path.split("/") if s]
        identity = self.variant.identity
        if method == "GET" and path == "/api/info" and identity == "info":
            await _respond(writer, 200, self._info_body())
        elif method == "GET" and path == "/api/info" and identity == "v1":
            await _respond_raw(writer, 200, b"<!doctype html><html></html>", "text/html")
        elif method == "GET" and path == "/api/health" and identity == "health":
            await _respond(writer, 200, {"healthy": True, "version": self.version, "pid": self.pid})
        elif method == "GET" and path == "/api/health" and identity == "v1":
            await _respond(writer, 200, {"healthy": True})
        elif method == "GET" and path == "/global/health" and identity == "v1":
            await _respond(writer, 200, {"healthy": True, "version": "1.18.33"})
        elif method == "GET" and path == "/api/event":
            await self._stream(reader, writer)
        elif method == "GET" and path == "/api/session":
            await _respond(writer, 200, {"data": self._list(query), "cursor": {}})
        elif method == "GET" and path == "/api/session/active":
            await _respond(writer, 200, {"data": dict(self.active)})
        elif method == "GET" and segments[:2] == ["api", "shell"] and len(segments) == 3:
            shell = self.shells.get(segments[2])
            if shell is None:
                await _respond(writer, 404, {"_tag": "ShellNotFoundError", "id": segments[2]})
            else:
                location = {"directory": query.get("location[directory]", [shell["cwd"]])[0]}
                await _respond(writer, 200, {"location": location, "data": shell})
        elif method == "GET" and segments[:2] == ["api", "session"] and segments[3:] == ["inbox"]:
            if segments[2] not in self.sessions:
                await _respond(writer, 404, _not_found(segments[2]))
            else:
                await _respond(writer, 200, {"data": self.inbox.get(segments[2], [])})
        elif method == "GET" and segments[:2] == ["api", "session"] and len(segments) == 3:
            if self.session_read_gate is not None:
                await self.session_read_gate.wait()
            info = self.sessions.get(segments[2])
            if info is None:
                await _respond(writer, 404, _not_found(segments[2]))
            else:
                await _respond(writer, 200, {"data": info})
        elif (
            method == "POST"
            and segments[:2] == ["api", "session"]
            and segments[3:] == ["synthetic"]
        ):
            await self._synthetic(segments[2], body, writer)
        else:
            await _respond_raw(writer, 404, b"", "text/plain")

    def _info_body(self) -> Json:
        return {
            "version": self.version,
            "pid": self.pid,
            "urls": [self.url],
            "paths": {"tmp": "/tmp", "home": str(Path.home())},
        }

    def _list(self, query: dict[str, list[str]]) -> list[Json]:
        found = list(self.sessions.values())
        if "parentID" in query:
            wanted = query["parentID"][0]
            parent = None if wanted == "null" else wanted
            found = [s for s in found if s.get("parentID") == parent]
        return found

    async def _synthetic(self, session_id: str, body: bytes, writer: asyncio.StreamWriter) -> None:
        self.nudge_posts += 1
        if self.nudge_fault == "hang":
            await self._release_hung.wait()
            return
        if self.nudge_fault == 404:
            self.sessions.pop(session_id, None)
        elif isinstance(self.nudge_fault, int):
            await _respond(writer, self.nudge_fault, {"_tag": "UnknownError"})
            return
        if session_id not in self.sessions:
            await _respond(writer, 404, _not_found(session_id))
            return
        try:
            request = json.loads(body or b"null")
        except json.JSONDecodeError:
            request = None
        if not isinstance(request, dict) or not isinstance(request.get("text"), str):
            await _respond(
                writer,
                400,
                {"_tag": "InvalidRequestError", "message": "text is required", "field": "text"},
            )
            return
        self.synthetic_requests.append((session_id, request))
        inbox_id = request.get("id") or f"msg_syn{next(self._ids):04d}"
        payload = {k: request[k] for k in ("text", "description", "metadata") if k in request}
        delivery = request.get("delivery") or "steer"
        item: Json = {
            "id": inbox_id,
            "sessionID": session_id,
            "type": "synthetic",
            "payload": payload,
            "delivery": delivery,
        }
        if self.variant.identity == "health":
            item["timeCreated"] = _now_ms()
        else:
            item["time"] = {"created": _now_ms()}
        await _respond(writer, 200, {"data": item})
        self._spawn(self._admit_synthetic(session_id, inbox_id, request, payload, delivery))

    async def _admit_synthetic(
        self, session_id: str, inbox_id: str, request: Json, payload: Json, delivery: str
    ) -> None:
        """The events of an admitted synthetic item, then the scripted reaction (a turn)."""
        if self.synthetic_events_gate is not None:
            await self.synthetic_events_gate.wait()
        base = {"sessionID": session_id, "inboxID": inbox_id}
        self.emit(
            "session.inbox.enqueued",
            {**base, "item": {"type": "synthetic", "payload": payload, "delivery": delivery}},
        )
        self.emit("session.inbox.delivered", base)
        self.emit("session.synthetic", {"sessionID": session_id, **payload})
        if self.on_synthetic is not None and request.get("resume") is not False:
            self._spawn(self.on_synthetic(session_id, request))

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- the event stream ---------------------------------------------------------------

    def _frame(self, envelope: Json) -> bytes:
        text = json.dumps(envelope, separators=(",", ":"))
        if self.variant.framing == "item":
            return f"id: {envelope['id']}\nevent: message\ndata: {text}\n\n".encode()
        return f"data: {text}\n\n".encode()

    def _publish(self, frame: bytes) -> None:
        for sub in list(self._subscribers):
            if sub.silent:
                continue
            try:
                sub.queue.put_nowait(frame)
            except asyncio.QueueFull:
                # The contract: a slow consumer overflows and its stream fails.
                self.streams_dropped_slow += 1
                sub.writer.transport.abort()
                self._drop(sub)

    def _drop(self, sub: _Subscriber) -> None:
        if sub in self._subscribers:
            self._subscribers.remove(sub)
        sub.dropped = True
        with contextlib.suppress(asyncio.QueueFull):
            sub.queue.put_nowait(_CLOSE)

    async def _stream(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.send_buffer is not None:
            sock = writer.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.send_buffer)
        sub = _Subscriber(asyncio.Queue(maxsize=self.queue_size), writer)
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"cache-control: no-cache\r\ntransfer-encoding: chunked\r\n\r\n"
        )
        connected: Json = {
            "id": f"evt_{next(self._ids):06d}",
            "type": "server.connected",
            "data": {},
        }
        if self.variant.framing == "data":
            connected["created"] = _now_ms()
        _write_chunk(writer, self._frame(connected))
        await writer.drain()
        self._subscribers.append(sub)
        self.streams_opened += 1
        try:
            while not (writer.transport.is_closing() or reader.at_eof()):
                try:
                    item = await asyncio.wait_for(sub.queue.get(), self.heartbeat_s)
                except asyncio.TimeoutError:
                    item = None if sub.silent else _HEARTBEAT
                if item is _CLOSE:
                    if not writer.transport.is_closing():
                        writer.write(b"0\r\n\r\n")  # a clean end of the chunked body
                        await writer.drain()
                    return
                if isinstance(item, bytes) and not sub.silent:
                    _write_chunk(writer, item)
                    await writer.drain()
                    if item is _HEARTBEAT:
                        self.heartbeats_sent += 1
        finally:
            if sub in self._subscribers:
                self._subscribers.remove(sub)


def _now_ms() -> int:
    return int(time.time() * 1000)


def _not_found(session_id: str) -> Json:
    return {
        "_tag": "SessionNotFoundError",
        "sessionID": session_id,
        "message": f"Session not found: {session_id}",
    }


def _write_chunk(writer: asyncio.StreamWriter, data: bytes) -> None:
    writer.write(b"%x\r\n%s\r\n" % (len(data), data))


async def _respond(
    writer: asyncio.StreamWriter, status: int, body: Json, *, extra: dict[str, str] | None = None
) -> None:
    await _respond_raw(writer, status, json.dumps(body).encode(), "application/json", extra)


async def _respond_raw(
    writer: asyncio.StreamWriter,
    status: int,
    body: bytes,
    content_type: str,
    extra: dict[str, str] | None = None,
) -> None:
    head = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}", f"content-type: {content_type}"]
    head += [f"content-length: {len(body)}", "connection: close"]
    head += [f"{k}: {v}" for k, v in (extra or {}).items()]
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
    await writer.drain()
