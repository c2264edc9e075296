"""Shared helpers for tests against a real host server: start / stop / restart it, create a
session, make the (fake) model do something, collect normalized events.

`OpencodeServer` is the 1.x line; a 2.x fake can implement the same small surface (`url`,
`password`, `project`, `create_session`, `prompt`, `restart`, `stop`) so scenarios can be
parametrized over both hosts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
from fake_model import FakeModel

from todo_ls.supervisor.events import HostEvent

OPENCODE_VERSION = "1.18.33"
READY = re.compile(r"opencode server listening on (http://127\.0\.0\.1:(\d+))")


def opencode_binary() -> Path:
    """The platform binary installed by scripts/setup-opencode.sh."""
    cache = Path(os.environ.get("TODO_LS_CACHE") or Path.home() / ".cache" / "todo-ls")
    return cache / "opencode" / "node_modules" / "opencode-linux-x64" / "bin" / "opencode"


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class OpencodeServer:
    """A real `opencode serve` on loopback with HOME and XDG_* in `root`, its model the fake."""

    def __init__(self, root: Path, model: FakeModel, password: str | None = None) -> None:
        binary = opencode_binary()
        if not binary.exists():
            raise AssertionError(
                f"OpenCode {OPENCODE_VERSION} is not installed ({binary} missing): "
                "run scripts/setup-opencode.sh"
            )
        self.binary = binary
        self.root = root
        self.project = root / "project"
        self.project.mkdir(parents=True, exist_ok=True)
        self.password = password
        self.model = model
        self.port = 0
        self.url = ""
        self.output: list[str] = []  # every stdout/stderr line, for the password checks
        self._proc: subprocess.Popen[str] | None = None

    def env(self) -> dict[str, str]:
        home = self.root / "home"
        config = {
            "model": "fake/fake-model",
            "small_model": "fake/fake-model",
            "autoupdate": False,
            "share": "disabled",
            "enabled_providers": ["fake"],
            "provider": {
                "fake": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "Fake",
                    "options": {
                        "baseURL": self.model.base_url,
                        "apiKey": "fake-key",
                        "chunkTimeout": 60000,
                    },
                    "models": {
                        "fake-model": {
                            "name": "Fake Model",
                            "tool_call": True,
                            "limit": {"context": 100000, "output": 4000},
                        }
                    },
                }
            },
        }
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_CONFIG_CONTENT": json.dumps(config),
            # The background install of the plugin package must not reach out: a closed port.
            "npm_config_registry": f"http://127.0.0.1:{_closed_port()}/",
        }
        if self.password:
            env["OPENCODE_SERVER_PASSWORD"] = self.password
        return env

    def start(self, timeout: float = 60.0) -> OpencodeServer:
        """Spawn it and wait for the ready line (requests before it can hang forever)."""
        proc = subprocess.Popen(
            [str(self.binary), "serve", "--hostname", "127.0.0.1", "--port", str(self.port)],
            cwd=self.project,
            env=self.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self._proc = proc
        ready = threading.Event()

        def pump() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                self.output.append(line.rstrip("\n"))
                match = READY.search(line)
                if match and not ready.is_set():
                    self.url, self.port = match.group(1), int(match.group(2))
                    ready.set()

        threading.Thread(target=pump, daemon=True).start()
        if not ready.wait(timeout):
            self.stop()
            raise AssertionError(f"opencode did not start in {timeout} s: {self.output[-20:]}")
        return self

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)

    def restart(self) -> None:
        """Stop and start again on the same port (sessions and todos persist on disk)."""
        self.stop()
        self.start()

    # --- driving it -----------------------------------------------------------------------

    def client(self) -> httpx.Client:
        auth = httpx.BasicAuth("opencode", self.password) if self.password else None
        return httpx.Client(base_url=self.url, auth=auth, timeout=10)

    def create_session(self, title: str = "Test session", directory: Path | None = None,
                       permission: list[dict[str, str]] | None = None) -> str:  # fmt: skip
        body: dict[str, Any] = {"title": title}
        if permission:
            body["permission"] = permission
        with self.client() as client:
            response = client.post(
                "/session", params={"directory": str(directory or self.project)}, json=body
            )
            response.raise_for_status()
            return str(response.json()["id"])

    def prompt(self, session_id: str, text: str, directory: Path | None = None) -> None:
        """A real user prompt (not synthetic), answered by the fake model's script."""
        with self.client() as client:
            response = client.post(
                f"/session/{session_id}/prompt_async",
                params={"directory": str(directory or self.project)},
                json={"parts": [{"type": "text", "text": text}]},
            )
            assert response.status_code == 204, response.text

    def abort(self, session_id: str) -> None:
        with self.client() as client:
            client.post(f"/session/{session_id}/abort").raise_for_status()

    def get(self, path: str, **params: str) -> Any:
        with self.client() as client:
            response = client.get(path, params=params)
            response.raise_for_status()
            return response.json()


class EventLog:
    """Collects a host's `watch()` events in the background; tests wait on conditions."""

    def __init__(self, events: AsyncIterator[HostEvent]) -> None:
        self.events: list[HostEvent] = []
        self._source = events
        self._task = asyncio.ensure_future(self._pump())

    async def _pump(self) -> None:
        async for event in self._source:
            self.events.append(event)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    async def wait_for(self, condition: Callable[[EventLog], bool], timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition(self):
            if self._task.done():
                self._task.result()  # re-raise what ended the stream
                raise AssertionError("the event stream ended")
            if time.monotonic() > deadline:
                kinds = [type(e).__name__ for e in self.events[-30:]]
                raise AssertionError(f"events: condition not met in {timeout} s; last: {kinds}")
            await asyncio.sleep(0.05)

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


class Supervisor:
    """`todo-ls supervise` run in-process (real clock, small timing settings) on a folder.

    Its stdout lines (one per session state change, one per nudge) are collected in `lines`.
    """

    def __init__(self, folder: Path, url: str, state_dir: Path, **timing: Any) -> None:
        from todo_ls.config import SupervisorSettings

        settings: dict[str, Any] = {
            "url": url,
            "settle_ms": 300,
            "min_nudge_interval_ms": 1000,
            "stall_minutes": 0.05,
            "max_no_progress_nudges": 2,
            "toasts": False,
        }
        settings.update(timing)
        self.settings = SupervisorSettings(**settings)
        self.folder = folder
        self.state_dir = state_dir
        self.lines: list[str] = []
        self._stop = asyncio.Event()
        self._task: asyncio.Task[int] | None = None

    def subscribe(self, path: Path) -> None:
        """Subscribe a markdown file the way an editor command would (shared store)."""
        from todo_ls.store import Store
        from todo_ls.workspace import Folder

        store = Store.open(self.state_dir)
        store.subscribe(Folder.from_path(self.folder).key, str(path))
        store.close()

    def start(self) -> Supervisor:
        import io

        from todo_ls.store import Store
        from todo_ls.supervise import supervise

        log = self.lines

        class Out(io.StringIO):
            def write(self, text: str) -> int:
                log.extend(line for line in text.splitlines() if line)
                return len(text)

        store = Store.open(self.state_dir)
        self._task = asyncio.ensure_future(
            supervise(self.settings, self.folder, Out(), store=store, stop=self._stop)
        )
        return self

    def nudges(self, session_id: str | None = None) -> list[str]:
        return [
            line
            for line in self.lines
            if line.startswith("nudged ") and (session_id is None or session_id in line)
        ]

    async def wait_for(self, condition: Callable[[Supervisor], bool], timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while not condition(self):
            if self._task is not None and self._task.done():
                raise AssertionError(f"supervise ended: {self._task.result()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"supervise: condition not met; lines: {self.lines[-15:]}")
            await asyncio.sleep(0.05)

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            await asyncio.wait_for(self._task, 15)
