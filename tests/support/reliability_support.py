"""Helpers shared by the reliability tests (a plain module: `conftest` is not importable by
name once several suites have one)."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonrpc_frames

from support.fake_v2 import FakeV2Server

REPO = Path(__file__).resolve().parents[2]
# The 489 events recorded from OpenCode 1.18.33 (a copy of the reference sample kept with the
# host tests, so the suite runs from any clone).
EVENTS_SAMPLE = REPO / "tests" / "hosts" / "data" / "opencode-v1-events-sample.jsonl"


def load_v1_sample() -> dict[str, list[dict[str, Any]]]:
    """The recorded 1.x events by scenario, in stream order (the bare `{type, properties}`)."""
    if not EVENTS_SAMPLE.is_file():
        raise AssertionError(
            f"the recorded OpenCode events are missing: expected {EVENTS_SAMPLE} "
            "(tests/hosts/data/ in the repository)"
        )
    scenarios: dict[str, list[dict[str, Any]]] = {}
    for line in EVENTS_SAMPLE.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            scenarios.setdefault(record["scenario"], []).append(record["event"])
    return scenarios


class ServerThread:
    """Runs a fake server on its own event loop in a thread (so blocking the test's loop
    makes the client, not the server, slow)."""

    def __init__(self, fake: FakeV2Server) -> None:
        self.fake = fake
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        asyncio.run_coroutine_threadsafe(fake.start(), self.loop).result(5)

    def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run `fn` on the server's loop and return its result."""

        async def run() -> Any:
            return fn(*args, **kwargs)

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(5)

    def run(self, coro: Any, timeout: float = 30.0) -> Any:
        """Await `coro` on the server's loop."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.fake.stop(), self.loop).result(5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)
        self.loop.close()


def initialize_over_stdio(
    proc: subprocess.Popen[bytes], root: Path, options: dict[str, Any] | None = None
) -> dict[str, object]:
    """Send `initialize` (with `options` as initializationOptions) + `initialized` to a
    language server over its stdio and return the initialize answer."""
    assert proc.stdin is not None and proc.stdout is not None
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "processId": os.getpid(),
            "rootUri": root.as_uri(),
            "capabilities": {},
            "initializationOptions": options,
        },
    }
    for message in (request, {"method": "initialized", "params": {}}):
        proc.stdin.write(jsonrpc_frames.encode(message))
        proc.stdin.flush()
    while True:
        answer = read_message(proc)
        if answer.get("id") == 1:
            return answer


def read_message(proc: subprocess.Popen[bytes]) -> dict[str, Any]:
    """One JSON-RPC message from the server's stdout (blocking)."""
    assert proc.stdout is not None
    message = jsonrpc_frames.read_message(proc.stdout)
    if message is None:
        raise AssertionError(f"the language server exited ({proc.wait()})")
    return message


def wait_until(condition: Callable[[], object], timeout: float, what: str) -> None:
    """Poll `condition` (a process's output has no event to await) until it is truthy, or fail
    naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.05)


def end_process(proc: subprocess.Popen[bytes], grace: float = 5.0) -> None:
    """SIGTERM, then SIGKILL if it is still running after `grace` seconds; always reaped."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(grace)


class SuperviseProcess:
    """A `todo-ls supervise` subprocess; a reader thread keeps its stdout lines (one per session
    state change, `nudged …`, `connected to …` / `not connected: …`)."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.name = "todo-ls supervise"
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.append(raw.decode(errors="replace").rstrip())

    def alive(self) -> bool:
        return self.proc.poll() is None

    def connected(self) -> bool:
        """Whether its latest host line says connected."""
        hosts = [line for line in self.lines if line.startswith(("connected to", "not connected"))]
        return bool(hosts) and hosts[-1].startswith("connected to")

    def state_of(self, session_id: str) -> str | None:
        """The state word of the session's latest line (`<id> <state> · …`)."""
        found = [line for line in self.lines if line.startswith(session_id + " ")]
        return found[-1].split()[1] if found else None

    def kill(self) -> None:
        """SIGKILL: no chance to settle a claim or close the stream."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        end_process(self.proc)


class StdioLanguageServer:
    """`todo-ls serve` behind a minimal LSP client over stdio: initialized with `options`, it
    answers server requests with null and keeps the latest `todoLs/status` supervisor part."""

    def __init__(
        self, command: list[str], env: dict[str, str], root: Path, options: dict[str, Any]
    ) -> None:
        self.name = "language server (stdio)"
        self.supervisor: dict[str, Any] = {}
        self.status: dict[str, Any] = {}  # the whole latest `todoLs/status`
        self.responses: dict[int, dict[str, Any]] = {}
        self._ids = itertools.count(100)
        self._write = threading.Lock()
        self.proc = subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        initialize_over_stdio(self.proc, root, options)
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.proc.stdin is not None
        try:
            while self.proc.poll() is None:
                message = read_message(self.proc)
                if message.get("method") == "todoLs/status":
                    self.status = message["params"]
                    self.supervisor = message["params"].get("supervisor") or {}
                elif "id" in message and "method" in message:
                    self._send({"id": message["id"], "result": None})
                elif "id" in message:
                    self.responses[message["id"]] = message
        except (AssertionError, OSError, ValueError):
            return  # the server exited: alive() says so

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        with self._write:
            self.proc.stdin.write(jsonrpc_frames.encode(message))
            self.proc.stdin.flush()

    def command(self, name: str, argument: dict[str, Any], timeout: float = 10.0) -> Any:
        """Run `workspace/executeCommand` `name` with its one argument; the result, or
        AssertionError on an error answer or none within `timeout` seconds."""
        request_id = next(self._ids)
        params = {"command": name, "arguments": [argument]}
        method = "workspace/executeCommand"
        self._send({"id": request_id, "method": method, "params": params})
        wait_until(lambda: request_id in self.responses, timeout, f"the answer to {name}")
        answer = self.responses.pop(request_id)
        if "error" in answer:
            raise AssertionError(f"{name} failed: {answer['error']}")
        return answer.get("result")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def connected(self) -> bool:
        return bool((self.supervisor.get("host") or {}).get("connected"))

    def state_of(self, session_id: str) -> str | None:
        return session_state(self.supervisor, session_id)

    def stop(self) -> None:
        end_process(self.proc)


def session_state(supervisor: dict[str, Any], session_id: str) -> str | None:
    """The session's state in the `supervisor` part of a `todoLs/status` payload."""
    for session in supervisor.get("sessions") or []:
        if session.get("id") == session_id:
            return str(session.get("state"))
    return None
