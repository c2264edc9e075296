"""Shared helpers for tests against a real host server: start / stop / restart it, create a
session, make the (fake) model do something, collect normalized events.

`OpencodeServer` is the real 1.x line (`KiloServer`: Kilo's `kilo serve`, the same API).
`HostDriver` is the small surface the shared scenarios (test_supervisor_scenarios.py) use on
either host: `V1Driver` over the real 1.x with the fake model, `V2Driver` over the fake 2.x
server scripted to act the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Any, Protocol

import httpx

from support.fake_model import FakeModel, http_error
from support.fake_model import bash as bash_reply
from support.fake_model import text as text_reply
from support.fake_v2 import FakeV2Server
from todo_ls.core.clock import SystemClock, Timer
from todo_ls.core.events import HostEvent

OPENCODE_VERSION = "1.18.33"
READY = re.compile(r"opencode server listening on (http://127\.0\.0\.1:(\d+))")
KILO_VERSION = "7.7.9"


def _cache() -> Path:
    return Path(os.environ.get("TODO_LS_CACHE") or Path.home() / ".cache" / "todo-ls")


def opencode_binary() -> Path:
    """The platform binary installed by scripts/setup-opencode.sh."""
    return _cache() / "opencode" / "node_modules" / "opencode-linux-x64" / "bin" / "opencode"


def kilo_binary() -> Path:
    """The Kilo Code CLI installed by scripts/setup-kilo.sh."""
    return _cache() / "kilo" / "node_modules" / "@kilocode" / "cli-linux-x64" / "bin" / "kilo"


def free_port() -> int:
    """A loopback port free a moment ago (the OS hands ephemeral ports out in turn)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def closed_port() -> int:
    """A loopback port nothing listens on (free a moment ago; nothing here binds it again)."""
    return free_port()


class OpencodeServer:
    """A real `opencode serve` on loopback with HOME and XDG_* in `root`, its model the fake."""

    name, version, setup = "OpenCode", OPENCODE_VERSION, "scripts/setup-opencode.sh"
    ready = READY
    env_prefix = "OPENCODE"  # of its settings: _CONFIG_CONTENT, _SERVER_PASSWORD, ...
    username = "opencode"  # the server's default Basic auth user

    def __init__(self, root: Path, model: FakeModel, password: str | None = None) -> None:
        binary = self.installed_binary()
        if not binary.exists():
            raise AssertionError(
                f"{self.name} {self.version} is not installed ({binary} missing): run {self.setup}"
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

    def installed_binary(self) -> Path:
        return opencode_binary()

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
            f"{self.env_prefix}_DISABLE_MODELS_FETCH": "1",
            f"{self.env_prefix}_CONFIG_CONTENT": json.dumps(config),
            # The background install of the plugin package must not reach out: a closed port.
            "npm_config_registry": f"http://127.0.0.1:{closed_port()}/",
        }
        if self.password:
            env[f"{self.env_prefix}_SERVER_PASSWORD"] = self.password
        return env

    def start(self, timeout: float = 60.0) -> OpencodeServer:
        """Spawn it and wait for the ready line (requests before it can hang forever)."""
        # An explicit port: `--port 0` means "4096 if free" in 1.18, OpenCode's default, where
        # a developer's own todo-ls would find this test server.
        self.port = self.port or free_port()
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
                match = self.ready.search(line)
                if match and not ready.is_set():
                    self.url, self.port = match.group(1), int(match.group(2))
                    ready.set()

        threading.Thread(target=pump, daemon=True).start()
        if not ready.wait(timeout):
            self.stop()
            raise AssertionError(f"{self.name} did not start in {timeout} s: {self.output[-20:]}")
        return self

    def stop(self) -> None:
        """End the whole process group (OpenCode's children too): TERM, then KILL."""
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
        auth = httpx.BasicAuth(self.username, self.password) if self.password else None
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

    def synthetic_texts(self, session_id: str) -> list[str]:
        """The synthetic user texts (todo-ls nudges) in the session's transcript, oldest first."""
        texts = []
        for message in self.get(f"/session/{session_id}/message"):
            if message.get("info", {}).get("role") != "user":
                continue
            texts += [
                part.get("text", "")
                for part in message.get("parts", [])
                if part.get("type") == "text" and part.get("synthetic") is True
            ]
        return texts

    def children(self, session_id: str) -> list[str]:
        return [str(child["id"]) for child in self.get(f"/session/{session_id}/children")]

    def pending_permissions(self) -> list[dict[str, Any]]:
        return list(self.get("/permission"))

    def reply_permission(self, request_id: str, reply: str) -> None:
        with self.client() as client:
            client.post(f"/permission/{request_id}/reply", json={"reply": reply}).raise_for_status()


class KiloServer(OpencodeServer):
    """A real `kilo serve` (Kilo Code CLI): OpenCode 1.x's API and config, `KILO_*` names."""

    name, version, setup = "Kilo", KILO_VERSION, "scripts/setup-kilo.sh"
    ready = re.compile(r"kilo server listening on (http://127\.0\.0\.1:(\d+))")
    env_prefix = "KILO"
    username = "kilo"  # the server refuses `opencode`

    def installed_binary(self) -> Path:
        return kilo_binary()

    def env(self) -> dict[str, str]:
        return {**super().env(), "KILO_DISABLE_AUTOUPDATE": "1"}


@contextlib.asynccontextmanager
async def discovering_editor(project: Path, state_dir: Path) -> AsyncIterator[Any]:
    """A language server (the LSP suite's test editor) in `project` with PLAN.md subscribed
    and no `supervisor.url`: it has to find the server on its own."""
    from support.lsp_harness import start_editor

    settings = {"markdownFiles": ["PLAN.md"], "supervisor": {"url": None, "settleMs": 300}}
    started = await start_editor(
        project, "neovim", None, state_dir, init_options={"todoLs": settings}
    )
    try:
        yield started
    finally:
        await asyncio.wait_for(started.client.shutdown_session(), 10)


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
                raise AssertionError(
                    f"events: not reached in {timeout} s: {described(condition)}; last: {kinds}"
                )
            await asyncio.sleep(0.05)

    async def close(self) -> None:
        """Stop collecting; a stream that ignores the cancel fails the test instead of hanging."""
        self._task.cancel()
        done, _ = await asyncio.wait({self._task}, timeout=5)
        if not done:
            raise AssertionError("the event stream did not stop within 5 s of being cancelled")


class WatchedClock(SystemClock):
    """Real time that also knows the supervisor's armed decision timers: with none armed and
    no host event arriving, the supervisor will do nothing more (a barrier for the tests that
    assert an absence, instead of sleeping past the settle and the rate limit)."""

    def __init__(self) -> None:
        self.armed: list[float] = []  # when each timer ever armed falls due, in arming order
        self._live: set[object] = set()

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        clock = self

        class Watched:
            def cancel(self) -> None:
                clock._live.discard(self)
                handle.cancel()

        watched = Watched()

        def run() -> None:
            self._live.discard(watched)
            callback()

        handle = super().call_at(when, run)
        self._live.add(watched)
        self.armed.append(when)
        return watched

    @property
    def live(self) -> int:
        """Timers armed and not yet run or cancelled."""
        return len(self._live)


class Supervisor:
    """`todo-ls supervise` run in-process (real clock, small timing settings) on a folder.

    Its stdout lines (one per session state change, one per nudge) are collected in `lines`.
    """

    def __init__(self, folder: Path, url: str, state_dir: Path, **timing: Any) -> None:
        from todo_ls.settings.model import SupervisorSettings

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
        self.clock = WatchedClock()
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

        from todo_ls.commands.supervise import supervise
        from todo_ls.store import Store

        log = self.lines

        class Out(io.StringIO):
            def write(self, text: str) -> int:
                log.extend(line for line in text.splitlines() if line)
                return len(text)

        store = Store.open(self.state_dir)
        self._task = asyncio.ensure_future(
            supervise(
                self.settings, self.folder, Out(), store=store, stop=self._stop, clock=self.clock
            )
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
                raise AssertionError(
                    f"supervise: not reached in {timeout} s: {described(condition)}; "
                    f"lines: {self.lines[-15:]}"
                )
            await asyncio.sleep(0.05)

    def session_lines(self, session_id: str) -> list[str]:
        """The status lines of one session (`<id> <state> · <detail> · <n> open`)."""
        return [line for line in self.lines if line.startswith(f"{session_id} ")]

    def saw(self, session_id: str, fragment: str) -> bool:
        return any(fragment in line for line in self.session_lines(session_id))

    async def stop(self) -> None:
        """Stop it; a supervisor that does not stop at once is a bug (it fails the test)."""
        self._stop.set()
        task, self._task = self._task, None
        if task is None:
            return
        done, _ = await asyncio.wait({task}, timeout=5)
        if not done:
            task.cancel()
            raise AssertionError("todo-ls supervise did not stop within 5 s of being asked")
        assert task.result() == 0


def described(condition: Callable[..., object]) -> str:
    """The source line of a condition (usually a lambda), for a timeout's message."""
    try:
        return " ".join(inspect.getsource(condition).split())
    except (OSError, TypeError):
        return repr(condition)


async def until(condition: Callable[[], object], timeout: float = 30.0, what: str = "") -> None:
    """Poll `condition()` in real time on the running loop (never blocking it) until true:
    the tests' sockets and servers are real even where the supervisor's clock is not. A timeout
    names the condition: `what`, else its source."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not reached in {timeout} s: {what or described(condition)}")
        await asyncio.sleep(0.01)


class HostDriver(Protocol):
    """What the shared scenarios do to a host, whichever line it is. Every call returns once
    the host has accepted the action; the effects show up in the host's events later."""

    kind: str
    url: str
    project: Path
    password: str
    password_env: str

    async def create_session(self, title: str, directory: Path | None = None) -> str:
        """A new root session in `directory` (default: the project folder)."""
        ...

    async def work_then_stop(self, session_id: str, directory: Path | None = None) -> None:
        """A real user prompt; the agent works one turn and stops (open items stay open)."""
        ...

    async def user_prompt(self, session_id: str, text: str) -> None:
        """A real user prompt; the agent answers with one turn."""
        ...

    async def start_tool(self, session_id: str, seconds: float, command: str) -> None:
        """A user prompt whose turn runs one silent tool for `seconds`, then stops."""
        ...

    async def fail_turn(self, session_id: str) -> None:
        """A real user prompt whose turn ends in an error the host does not retry."""
        ...

    async def interrupt(self, session_id: str) -> None:
        """The user interrupts the running turn (Esc in the TUI)."""
        ...

    async def restart(self) -> None:
        """The server process restarts on the same port; sessions persist."""
        ...

    async def received_nudges(self, session_id: str) -> list[str]:
        """The nudge texts the session received, oldest first."""
        ...

    def output(self) -> list[str]:
        """What the host printed (to check that no secret leaks)."""
        ...


class V1Driver:
    """The real OpenCode 1.x with the scripted fake model. Blocking calls run in a thread so
    the supervisor on the test's loop keeps reading events meanwhile."""

    kind = "opencode-v1"
    password_env = "OPENCODE_SERVER_PASSWORD"

    def __init__(self, server: OpencodeServer) -> None:
        assert server.password, "the shared scenarios run with auth on"
        self.server = server
        self.model = server.model
        self.url = server.url
        self.project = server.project
        self.password = server.password

    async def create_session(self, title: str, directory: Path | None = None) -> str:
        return await asyncio.to_thread(self.server.create_session, title, directory)

    async def work_then_stop(self, session_id: str, directory: Path | None = None) -> None:
        self.model.script(text_reply("Stopping here; the rest can wait."))
        await asyncio.to_thread(self.server.prompt, session_id, "Work on the plan.", directory)

    async def user_prompt(self, session_id: str, text: str) -> None:
        await asyncio.to_thread(self.server.prompt, session_id, text)

    async def start_tool(self, session_id: str, seconds: float, command: str) -> None:
        self.model.script(bash_reply(f"sleep {seconds:g}; {command}"), text_reply("Ran it."))
        await asyncio.to_thread(self.server.prompt, session_id, "Run the build.")

    async def fail_turn(self, session_id: str) -> None:
        self.model.script(http_error(400))  # OpenCode does not retry a 400
        await asyncio.to_thread(self.server.prompt, session_id, "Work on the plan.")

    async def interrupt(self, session_id: str) -> None:
        await asyncio.to_thread(self.server.abort, session_id)

    async def restart(self) -> None:
        await asyncio.to_thread(self.server.restart)
        self.url = self.server.url

    async def received_nudges(self, session_id: str) -> list[str]:
        return await asyncio.to_thread(self.server.synthetic_texts, session_id)

    def output(self) -> list[str]:
        return self.server.output


class V2Driver:
    """The fake OpenCode 2.x, scripted to act like the real 1.x above: a user prompt or a
    nudge runs one turn (steps, text) and ends it; a tool turn runs until it ends or the user
    interrupts it."""

    kind = "opencode-v2"
    password_env = "OPENCODE_PASSWORD"

    def __init__(self, fake: FakeV2Server, project: Path) -> None:
        self.fake = fake
        self.url = fake.url
        self.project = project
        self.password = fake.password
        self._ids = itertools.count(1)
        self._turns: dict[str, asyncio.Task[None]] = {}

        async def answer(session_id: str, body: dict[str, Any]) -> None:
            await fake.run_turn(session_id, pause_s=0.05)

        fake.on_synthetic = answer

    async def create_session(self, title: str, directory: Path | None = None) -> str:
        sid = f"ses_v2fake{next(self._ids):04d}"
        info = self.fake.add_session(sid, str(directory or self.project), title=title)
        self.fake.emit("session.created", {"sessionID": sid, "info": info})
        return sid

    async def work_then_stop(self, session_id: str, directory: Path | None = None) -> None:
        await self.user_prompt(session_id, "Work on the plan.")

    async def user_prompt(self, session_id: str, text: str) -> None:
        self.fake.user_prompt(session_id, text)
        self._spawn(session_id, self.fake.run_turn(session_id, steps=2, pause_s=0.05))

    async def start_tool(self, session_id: str, seconds: float, command: str) -> None:
        self.fake.user_prompt(session_id, "Run the build.")
        self._spawn(session_id, self._tool_turn(session_id, seconds, command))

    async def fail_turn(self, session_id: str) -> None:
        self.fake.user_prompt(session_id, "Work on the plan.")
        self._spawn(session_id, self.fake.run_turn(session_id, outcome="failed", pause_s=0.05))

    def _spawn(self, session_id: str, work: Coroutine[Any, Any, None]) -> None:
        self._turns[session_id] = asyncio.ensure_future(work)

    async def _tool_turn(self, session_id: str, seconds: float, command: str) -> None:
        fake = self.fake
        step = f"msg_tool{next(self._ids):04d}"
        call = f"call_{next(self._ids):04d}"
        base = {"sessionID": session_id, "assistantMessageID": step}
        fake.active[session_id] = {"type": "running"}
        fake.emit("session.execution.started", {"sessionID": session_id})
        fake.emit("session.step.started", {**base, "agent": "build", "started": 0})
        fake.emit("session.tool.input.started", {**base, "id": call, "name": "bash"})
        called = {**base, "id": call, "name": "bash", "input": {"command": command}}
        fake.emit("session.tool.called", {**called, "executed": True})
        try:
            await asyncio.sleep(seconds)  # a silent tool: no progress events
        except asyncio.CancelledError:
            fake.emit("session.tool.failed", {**base, "id": call, "error": "aborted"})
            fake.active.pop(session_id, None)
            fake.emit("session.execution.interrupted", {"sessionID": session_id, "reason": "user"})
            raise
        fake.emit("session.tool.success", {**base, "id": call, "content": [], "executed": True})
        fake.emit("session.step.ended", {**base, "finish": "tool-calls", "cost": 0})
        fake.active.pop(session_id, None)
        await fake.run_turn(session_id)

    async def interrupt(self, session_id: str) -> None:
        turn = self._turns.get(session_id)
        assert turn is not None and not turn.done(), "no turn to interrupt"
        turn.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await turn

    async def restart(self) -> None:
        await self.fake.stop()
        await self.fake.start()

    async def received_nudges(self, session_id: str) -> list[str]:
        return [
            str(body["text"]) for sid, body in self.fake.synthetic_requests if sid == session_id
        ]

    def output(self) -> list[str]:
        return []  # the fake prints nothing

    async def close(self) -> None:
        """Cancel the turns still running (a test that failed midway)."""
        for turn in self._turns.values():
            turn.cancel()
        await asyncio.gather(*self._turns.values(), return_exceptions=True)
