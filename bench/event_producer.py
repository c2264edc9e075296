"""The OpenCode side of the supervisor benchmark, as its own process (its CPU time is not the
language server's).

`--framing v1`: a minimal OpenCode 1.18 HTTP server on loopback (`/global/health`, the session
reads a resync makes, `prompt_async`, the toast, and `/global/event` as chunked SSE, one chunk
per event as OpenCode writes them). `--framing v2`: the fake 2.x server of the tests
(`tests/support/fake_v2.py`) with every session of the mix registered.

Driven over stdin/stdout, one JSON object per line: it prints `{"url", "password"}` once
listening; `{"go": N}` streams N events of the mix to every open event stream (as fast as the
reader takes them) and answers `{"sent": N}`; `{"marker": "<session id>"}` streams an end
marker (a new busy session of that id); `{"plan": N}` starts the N turns of the nudge
measurement (each session busy with open todos), `{"turns": N}` ends them and answers when each
idle event was written; `{"nudges": true}` answers the nudge arrival
times (`time.perf_counter`, comparable across processes on Linux); EOF stops it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import event_stream

VERSION = "1.18.33"


class V1Server:
    """Just enough of OpenCode 1.18 for todo-ls to connect, resync, stream and nudge."""

    def __init__(self, project: str, copies: int, text_chars: int) -> None:
        self.project = project
        self.template = event_stream.v1_template(project, copies, text_chars)
        self.streams: list[asyncio.StreamWriter] = []
        self.nudged: dict[str, float] = {}

    async def start(self) -> str:
        self.heartbeat = asyncio.get_running_loop().create_task(self._heartbeat())
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                request_line, *lines = head.decode("latin-1").split("\r\n")
                method, target, _ = request_line.split(" ", 2)
                length = 0
                for line in lines:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                if length:
                    await reader.readexactly(length)
                path = target.split("?", 1)[0]
                if path == "/global/event":
                    writer.write(
                        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                        b"cache-control: no-cache\r\ntransfer-encoding: chunked\r\n\r\n"
                    )
                    write_chunk(writer, b'data: {"payload":{"type":"server.connected"}}\n\n')
                    self.streams.append(writer)
                    try:
                        await reader.read()  # open until the reader hangs up; `stream` writes
                    finally:
                        self.streams.remove(writer)
                    return
                status, body = self._route(method, path)
                data = json.dumps(body).encode() if body is not None else b""
                writer.write(
                    b"HTTP/1.1 %d X\r\ncontent-type: application/json\r\ncontent-length: %d"
                    b"\r\n\r\n%s" % (status, len(data), data)
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    async def _heartbeat(self) -> None:
        """`server.heartbeat` every 10 s, as OpenCode sends it (the reader's watchdog needs it)."""
        frame = b'data: {"payload":{"type":"server.heartbeat","properties":{}}}\n\n'
        while True:
            await asyncio.sleep(10)
            for writer in self.streams:
                write_chunk(writer, frame)

    def _route(self, method: str, path: str) -> tuple[int, Any]:
        parts = path.strip("/").split("/")
        if path == "/global/health":
            return 200, {"healthy": True, "version": VERSION}
        if path == "/session":
            return 200, []
        if path == "/session/status":
            return 200, {}
        if path == "/tui/show-toast":
            return 200, True
        if len(parts) == 3 and parts[2] == "prompt_async" and method == "POST":
            self.nudged.setdefault(parts[1], time.perf_counter())
            return 204, None
        if len(parts) == 3 and parts[2] == "todo":
            return 200, []
        if len(parts) == 2 and parts[0] == "session":
            return 200, {"id": parts[1], "directory": self.project, "title": parts[1]}
        return 404, {"name": "NotFoundError"}

    async def stream(self, count: int, first_pass: int) -> int:
        """Write `count` events (whole passes, cut at `count`) to every open stream: one HTTP
        chunk per event as OpenCode writes them, handed to the socket a pass at a time so that
        this process keeps ahead of the reader."""
        sent, number = 0, first_pass
        while sent < count:
            frames = event_stream.split_frames(event_stream.generation(self.template, number))
            number += 1
            data = b"".join(chunk(frame.encode()) for frame in frames[: count - sent])
            sent += min(len(frames), count - sent)
            for writer in self.streams:
                writer.write(data)
                await writer.drain()
        return number

    def _todo_turn(self) -> tuple[list[str], list[str], str]:
        """The recorded `todo` scenario, encoded: the events up to the turn's end, the rest,
        and the session id the copies rewrite."""
        rows = [r["event"] for r in event_stream.sample_rows() if r["scenario"] == "todo"]
        cut = next(
            n
            for n, e in enumerate(rows)
            if e["type"] == "session.status" and e["properties"]["status"]["type"] == "idle"
        )
        encoded = [json.dumps({"directory": self.project, "payload": e}) for e in rows]
        return encoded[:cut], encoded[cut:], rows[cut]["properties"]["sessionID"]

    def _frames(self, lines: list[str], copy: int) -> bytes:
        text = "".join(
            f"data: {event_stream.rewrite(line, copy, self.project)}\n\n" for line in lines
        )
        return event_stream.generation(text, 0).encode()

    async def plan(self, sessions: int) -> None:
        """`sessions` copies of the recorded `todo` scenario up to the end of the turn: every
        session is busy and has planned open todos."""
        working, _, _ = self._todo_turn()
        for line in working:
            for copy in range(sessions):
                for writer in self.streams:
                    write_chunk(writer, self._frames([line], copy))
            for writer in self.streams:
                await writer.drain()

    async def turns(self, sessions: int) -> dict[str, float]:
        """The turns of the planned sessions end a little apart (2 ms), as they do in real
        life. Returns when each session's idle event was written."""
        _, ending, session_id = self._todo_turn()
        idle_at: dict[str, float] = {}
        for copy in range(sessions):
            data = self._frames(ending, copy)
            for writer in self.streams:
                write_chunk(writer, data)
                await writer.drain()
            idle_at[event_stream.rewrite(session_id, copy, "")] = time.perf_counter()
            await asyncio.sleep(0.002)
        return idle_at

    async def marker(self, name: str) -> None:
        for row in marker_events(self.project, name):
            data = f"data: {json.dumps({'directory': self.project, 'payload': row})}\n\n"
            for writer in self.streams:
                write_chunk(writer, data.encode())
                await writer.drain()


def chunk(data: bytes) -> bytes:
    """`data` as one chunk of a chunked HTTP body."""
    return b"%x\r\n%s\r\n" % (len(data), data)


def write_chunk(writer: asyncio.StreamWriter, data: bytes) -> None:
    writer.write(chunk(data))


def marker_events(project: str, name: str) -> list[dict[str, Any]]:
    """A new session of the workspace starting a turn: the status lists it once handled."""
    info = {"id": name, "directory": project, "title": name}
    props = {"sessionID": name}
    return [
        {"type": "session.created", "properties": {**props, "info": info}},
        {"type": "session.status", "properties": {**props, "status": {"type": "busy"}}},
    ]


class V2Producer:
    """The tests' fake 2.x server; the 2.x mix goes out through its `emit`, written in passes."""

    def __init__(self, project: str, copies: int, text_chars: int) -> None:
        from support.fake_v2 import FakeV2Server  # type: ignore[import-not-found]

        self.project, self.copies, self.text_chars = project, copies, text_chars
        self.fake: Any = FakeV2Server(heartbeat_s=5.0)
        for sid in event_stream.session_ids(copies):
            self.fake.add_session(sid, project, title=sid)
        self.nudged: dict[str, float] = {}

        async def on_synthetic(session_id: str, body: Any) -> None:
            self.nudged.setdefault(session_id, time.perf_counter())

        self.fake.on_synthetic = on_synthetic

    async def start(self) -> str:
        await self.fake.start()
        return str(self.fake.url)

    async def stream(self, count: int, first_pass: int) -> int:
        """Write `count` events to the fake's open streams, framed by the fake (its envelope
        with a per-session `seq`), one chunk per event, a pass at a time: the fake's own
        per-event queue and drain would make this process, not the reader, the bottleneck."""
        sent, number = 0, first_pass
        while sent < count:
            events = list(event_stream.v2_pass(self.project, self.copies, number, self.text_chars))[
                : count - sent
            ]
            number += 1
            sent += len(events)
            await self.write(events)
        return number

    async def write(self, events: list[tuple[str, dict[str, Any]]]) -> None:
        """`FakeV2Server.emit` each event, its frames collected instead of queued per reader,
        and write them to every open stream at once."""
        frames: list[bytes] = []
        self.fake._publish = frames.append
        try:
            for etype, data in events:
                self.fake.emit(etype, data)
        finally:
            del self.fake._publish
        blob = b"".join(chunk(frame) for frame in frames)
        for sub in list(self.fake._subscribers):
            sub.writer.write(blob)
            await sub.writer.drain()

    async def marker(self, name: str) -> None:
        self.fake.add_session(name, self.project, title=name)
        info = {"sessionID": name, "id": name, "title": name}
        location = {"directory": self.project}
        await self.write(
            [
                ("session.created", {**info, "location": location}),
                ("session.execution.started", {"sessionID": name}),
            ]
        )


async def main_async(framing: str, project: str, copies: int, text_chars: int) -> None:
    producer: V1Server | V2Producer
    if framing == "v1":
        producer = V1Server(project, copies, text_chars)
    else:
        producer = V2Producer(project, copies, text_chars)
    url = await producer.start()
    password = producer.fake.password if isinstance(producer, V2Producer) else None
    answer({"url": url, "password": password})
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    next_pass = 0
    while line := await reader.readline():
        command = json.loads(line)
        if "go" in command:
            next_pass = await producer.stream(int(command["go"]), next_pass)
            answer({"sent": command["go"]})
        elif "marker" in command:
            await producer.marker(str(command["marker"]))
            answer({"marker": True})
        elif "plan" in command and isinstance(producer, V1Server):
            await producer.plan(int(command["plan"]))
            answer({"planned": command["plan"]})
        elif "turns" in command and isinstance(producer, V1Server):
            answer({"idle_at": await producer.turns(int(command["turns"]))})
        elif "nudges" in command:
            answer({"nudges": producer.nudged})


def answer(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--framing", choices=["v1", "v2"], default="v1")
    parser.add_argument("--project", required=True, help="the workspace folder of the sessions")
    parser.add_argument("--copies", type=int, default=17)
    parser.add_argument("--text-chars", type=int, default=event_stream.TEXT_CHARS)
    args = parser.parse_args()
    asyncio.run(main_async(args.framing, args.project, args.copies, args.text_chars))


if __name__ == "__main__":
    main()
