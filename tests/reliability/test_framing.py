"""The language server's framing edge, driven over a real stdio pipe with bytes no typed
client would send: bodies over the length cap (skipped in chunks, the next message served),
a length no process could buffer, bodies that are not JSON (-32700) or not a request object
(-32600), and malformed requests logged as the client's mistakes (one Warning line, no
traceback), not as internal errors (docs/reliability.md#framing-limits)."""

from __future__ import annotations

import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonrpc_frames
import pytest
from support.reliability_support import end_process, initialize_over_stdio, wait_until

from todo_ls.server.framing import MAX_BODY

pytestmark = pytest.mark.timeout(120)

TODO_LS = [sys.executable, "-m", "todo_ls"]
CHUNK = 1 << 20
LOG_WARNING, LOG_ERROR = 2, 1


class RawServer:
    """`todo-ls serve` on a pipe: bytes in as given, framed messages out (a reader thread)."""

    def __init__(self, root: Path) -> None:
        self.stderr_path = root / "stderr.txt"
        env = {
            **os.environ,
            "HOME": str(root),
            "XDG_STATE_HOME": str(root / "xdg-state"),
            "XDG_CONFIG_HOME": str(root / "xdg-config"),
        }
        self._stderr = self.stderr_path.open("wb")
        self.proc = subprocess.Popen(
            TODO_LS,
            cwd=root,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        options = {"markdownFiles": ["PLAN.md"], "supervisor": {"enabled": False}}
        initialize_over_stdio(self.proc, root, options)  # before the reader thread takes stdout
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        while (message := jsonrpc_frames.read_message(self.proc.stdout)) is not None:
            self.messages.put(message)

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.write(jsonrpc_frames.encode(message))

    def body(self, body: bytes) -> None:
        """A frame around `body` as given (no JSON encoding)."""
        self.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def next(self, matches: Any, timeout: float = 20.0) -> dict[str, Any]:
        """The next message for which `matches(message)` holds (others are kept in `seen`)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                message = self.messages.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no matching message within {timeout} s") from None
            self.seen.append(message)
            if matches(message):
                return message

    def answer(self, request_id: Any) -> dict[str, Any]:
        return self.next(lambda m: "method" not in m and m.get("id") == request_id)

    def still_serving(self, request_id: int) -> None:
        """A request after the bad input is answered."""
        self.send(
            {
                "id": request_id,
                "method": "workspace/executeCommand",
                "params": {"command": "todoLs.list", "arguments": [{}]},
            }
        )
        assert "result" in self.answer(request_id)

    def logged(self, kind: int) -> list[str]:
        return [
            m["params"]["message"]
            for m in self.seen
            if m.get("method") == "window/logMessage" and m["params"]["type"] == kind
        ]

    def peak_rss(self) -> int:
        """The process's peak resident memory in bytes (VmHWM)."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
        raise AssertionError("no VmHWM")

    def stderr(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(errors="replace")

    def stop(self) -> None:
        end_process(self.proc)
        self._stderr.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RawServer]:
    (tmp_path / "PLAN.md").write_text("- [ ] a\n- [x] b\n", encoding="utf-8")
    raw = RawServer(tmp_path)
    try:
        yield raw
    finally:
        raw.stop()


def test_an_oversized_body_is_skipped_unbuffered_and_the_next_message_served(
    server: RawServer,
) -> None:
    server.still_serving(2)
    before = server.peak_rss()
    size = MAX_BODY + 16 * CHUNK
    server.write(b"Content-Length: %d\r\n\r\n" % size)
    filler = b" " * CHUNK
    for _ in range(size // CHUNK):
        server.write(filler)
    server.still_serving(3)
    # Read and dropped in chunks: the peak memory did not grow by anything near the body.
    assert server.peak_rss() - before < 32 * CHUNK, (before, server.peak_rss())
    (warning,) = [m for m in server.logged(LOG_WARNING) if "too long" in m]
    assert str(size) in warning and "64 MiB" in warning
    assert server.logged(LOG_ERROR) == []


def test_a_length_no_process_could_buffer_leaves_the_server_alive(server: RawServer) -> None:
    server.still_serving(2)
    server.write(b"Content-Length: 99999999999\r\n\r\n" + b"x" * (4 * CHUNK))
    # The server drops what it reads; it neither dies (MemoryError) nor holds the bytes.
    server.next(lambda m: "too long" in json.dumps(m))
    time.sleep(0.5)
    assert server.proc.poll() is None
    assert server.peak_rss() < 400 * CHUNK
    server.proc.stdin.close()  # type: ignore[union-attr]
    wait_until(lambda: server.proc.poll() is not None, 10, "the server to exit at end of input")


@pytest.mark.parametrize(
    ("body", "code", "answer_id"),
    [
        (b'{"jsonrpc": "2.0", "id": 7, "method": ', -32700, None),
        (b"\xff\xfe not utf-8", -32700, None),
        (b"", -32700, None),
        (b"[1, 2, 3]", -32600, None),
        (b'"hello"', -32600, None),
        (b"42", -32600, None),
        (b'{"id": 8, "method": "shutdown"}', -32600, 8),
        (b'{"jsonrpc": "1.0", "id": "nine", "method": "shutdown"}', -32600, "nine"),
    ],
    ids=["cut", "not-utf8", "empty", "array", "string", "number", "no-jsonrpc", "jsonrpc-1"],
)
def test_a_body_that_is_no_request_is_answered(
    server: RawServer, body: bytes, code: int, answer_id: Any
) -> None:
    """Id null when none can be read, else the request's id (its client stops waiting)."""
    server.still_serving(2)
    server.body(body)
    answer = server.next(lambda m: "error" in m and m.get("id") == answer_id)
    assert answer["error"]["code"] == code
    server.still_serving(3)
    assert server.logged(LOG_ERROR) == []
    assert "Traceback" not in server.stderr()


def test_client_mistakes_are_logged_as_warnings_without_tracebacks(server: RawServer) -> None:
    server.still_serving(2)
    bad = [
        {"id": 10, "method": "textDocument/codeAction", "params": None},
        {"id": 11, "method": "textDocument/inlayHint", "params": {"textDocument": 5}},
        {
            "id": 12,
            "method": "workspace/executeCommand",
            "params": {"command": "todoLs.toggle", "arguments": [42]},
        },
        {
            "id": 13,
            "method": "workspace/executeCommand",
            "params": {"command": "todoLs.toggle", "arguments": [{"uri": 5}, {"x": 1}]},
        },
    ]
    for message in bad:
        server.send(message)
        assert server.answer(message["id"])["error"]["code"] == -32602
    server.still_serving(3)
    assert server.logged(LOG_ERROR) == []
    warnings = server.logged(LOG_WARNING)
    assert len(warnings) >= len(bad), warnings
    assert all("\n" not in w for w in warnings), warnings
    assert "Traceback" not in server.stderr()


def test_over_tcp_the_same_limits_apply(tmp_path: Path) -> None:
    """`--tcp` reads through the same framing: a bad body is answered, an oversized one
    skipped, and the connection keeps serving."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "xdg")}
    proc = subprocess.Popen(
        [*TODO_LS, "serve", "--tcp", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=20)
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "no TCP server"
                time.sleep(0.1)
        with conn, conn.makefile("rb") as incoming:

            def answer(request_id: Any) -> dict[str, Any]:
                while True:
                    message = jsonrpc_frames.read_message(incoming)
                    assert message is not None, "the server closed the connection"
                    if "method" not in message and message.get("id") == request_id:
                        return message

            init = {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}
            conn.sendall(jsonrpc_frames.encode({"id": 1, "method": "initialize", "params": init}))
            assert "result" in answer(1)
            conn.sendall(b"Content-Length: 5\r\n\r\nnope!")
            assert answer(None)["error"]["code"] == -32700
            size = MAX_BODY + CHUNK
            conn.sendall(b"Content-Length: %d\r\n\r\n" % size)
            for _ in range(size // CHUNK):
                conn.sendall(b" " * CHUNK)
            conn.sendall(jsonrpc_frames.encode({"id": 2, "method": "shutdown", "params": None}))
            assert "result" in answer(2)
    finally:
        end_process(proc)
