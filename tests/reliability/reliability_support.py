"""Helpers shared by the reliability tests (a plain module: `conftest` is not importable by
name once several suites have one)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fake_v2 import FakeV2Server

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
    for message in (request, {"jsonrpc": "2.0", "method": "initialized", "params": {}}):
        body = json.dumps(message).encode()
        proc.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        proc.stdin.flush()
    while True:
        answer = read_message(proc)
        if answer.get("id") == 1:
            return answer


def read_message(proc: subprocess.Popen[bytes]) -> dict[str, Any]:
    """One JSON-RPC message from the server's stdout (blocking)."""
    assert proc.stdout is not None
    while True:
        length = 0
        while (line := proc.stdout.readline().strip()) != b"":
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        if length:
            return dict(json.loads(proc.stdout.read(length)))
        if proc.poll() is not None:
            raise AssertionError(f"the language server exited ({proc.returncode})")
