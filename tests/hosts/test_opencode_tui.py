"""The real OpenCode 1.18.33 TUI, started the way people start it (in a terminal, here tmux),
found by a language server that has no `supervisor.url`.

With `--port N` the TUI process itself serves the HTTP API on 127.0.0.1:N: todo-ls finds the
process, confirms it by its API, matches its directory to the workspace folder, connects and
nudges an idle session of the project. Without `--port` the TUI listens nowhere, and the
status detail tells the user what to run. Ports are always free ones picked here (never
OpenCode's 4096, where a developer's own OpenCode may listen).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.fake_model import FakeModel
from support.lsp_harness import Editor
from support.scenarios import OpencodeServer, discovering_editor, free_port

from todo_ls.hosts.local_servers import scan_proc

pytestmark = [pytest.mark.opencode, pytest.mark.timeout(180)]

PLAN = "# Plan\n\n- [ ] ship the release\n- [x] write the notes\n"
UP_S = 60.0  # the TUI needs 6-10 s on an idle 2-core machine; much more under load


class OpencodeTui(OpencodeServer):
    """`opencode [--port N]` in a tmux pane, in the project folder, HOME and XDG_* in `root`."""

    def __init__(self, root: Path, model: FakeModel, *, port: int | None) -> None:
        super().__init__(root, model)
        if shutil.which("tmux") is None:
            raise AssertionError("tmux is not installed: run scripts/setup-opencode.sh")
        self.port = port or 0
        self.url = f"http://127.0.0.1:{port}" if port else ""
        # Its own tmux server, gone with the folder; one per TUI started, so a restarted TUI never
        # talks to the previous server while that one is still shutting down.
        self.socket = str(root / f"tmux-{self.port}.sock")
        self.pid: int | None = None

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-S", self.socket, *args], capture_output=True, text=True, timeout=10
        )
        return done.stdout

    def start(self, timeout: float = UP_S) -> OpencodeTui:
        env = {**self.env(), "TERM": "xterm-256color"}
        argv = [str(self.binary), *(["--port", str(self.port)] if self.port else [])]
        # `env -i`: the pane runs with exactly this environment, not the tmux server's.
        command = shlex.join(["env", "-i", *(f"{k}={v}" for k, v in env.items()), *argv])
        started = self._tmux(
            "new-session",
            "-d",
            "-P",
            "-F",
            "#{pane_pid}",
            "-x",
            "120",
            "-y",
            "40",
            "-c",
            str(self.project),
            command,
        )  # -P prints the new pane's pid: no second call that could race the server's start
        if not started.strip().isdigit():
            raise AssertionError(f"tmux did not start the OpenCode TUI: {started!r}")
        self.pid = int(started)
        deadline = time.monotonic() + timeout
        while not self._ready():
            if time.monotonic() > deadline:
                screen = self._tmux("capture-pane", "-p")
                self.stop()
                raise AssertionError(f"the OpenCode TUI did not come up in {timeout} s:\n{screen}")
            time.sleep(0.3)
        return self

    def _ready(self) -> bool:
        if "Ask anything" not in self._tmux("capture-pane", "-p"):
            return False
        if not self.port:
            return True
        try:  # short timeouts: a request in the first moments of the port can go unanswered
            return httpx.get(f"{self.url}/global/health", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def stop(self) -> None:
        """End the TUI by its pid (its process group), then the tmux server."""
        pid, self.pid = self.pid, None
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGTERM)
            deadline = time.monotonic() + 10
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            if _alive(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
        self._tmux("kill-server")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (ended, not yet reaped by tmux) counts as gone.
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")


@pytest.fixture
def model() -> Iterator[FakeModel]:
    with FakeModel() as fake:
        yield fake


@pytest.fixture
def tui(request: pytest.FixtureRequest, tmp_path: Path, model: FakeModel) -> Iterator[OpencodeTui]:
    port = free_port() if request.param == "with-port" else None
    server = OpencodeTui(tmp_path / "opencode", model, port=port)
    (server.project / "PLAN.md").write_text(PLAN)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def editor(tmp_path: Path, tui: OpencodeTui) -> AsyncIterator[Editor]:
    """A language server in the TUI's project, with no `supervisor.url`."""
    async with discovering_editor(tui.project, tmp_path / "state") as started:
        yield started


async def status_where(editor: Editor, predicate: Callable[[Any], bool], what: str) -> Any:
    """The first `todoLs/status` satisfying `predicate`, waiting up to `UP_S` seconds."""
    deadline = time.monotonic() + UP_S
    while time.monotonic() < deadline:
        for status in reversed(editor.statuses):
            if predicate(status):
                return status
        await asyncio.sleep(0.1)
    last = editor.statuses[-1].supervisor if editor.statuses else None
    raise AssertionError(f"no status with {what} in {UP_S} s; last: {last}")


def _host(status: Any) -> Any:
    return status.supervisor.host


def _error(status: Any) -> str:
    return str(getattr(_host(status), "error", None) or "")


@pytest.mark.parametrize("tui", ["with-port"], indirect=True)
async def test_a_tui_started_with_port_is_found_and_nudges_its_idle_session(
    tui: OpencodeTui, model: FakeModel, editor: Editor
) -> None:
    status = await status_where(
        editor, lambda s: _host(s) is not None and _host(s).connected, "the host connected"
    )
    assert (_host(status).kind, _host(status).url) == ("opencode-v1", tui.url)
    assert _host(status).version == "1.18.33"
    session = tui.create_session("release")  # through the TUI's own HTTP API
    tui.prompt(session, "Ship it.")
    # The model answers the prompt; the session goes idle with an open item in PLAN.md and
    # todo-ls nudges it through the TUI's server: the nudge reaches the model as user input.
    await asyncio.to_thread(
        model.wait_for,
        lambda m: any("Idle nudge #1" in t for r in m.requests for t in m.user_texts(r)),
        UP_S,
    )
    nudge = next(t for t in tui.synthetic_texts(session) if "Idle nudge #1" in t)
    assert "ship the release" in nudge
    # Quit the TUI and start it again on another port: todo-ls finds it there too.
    tui.stop()
    again = OpencodeTui(tui.root, model, port=free_port())
    again.start()
    try:
        await status_where(
            editor,
            lambda s: _host(s) is not None and _host(s).connected and _host(s).url == again.url,
            "the host connected at the new port",
        )
    finally:
        again.stop()


@pytest.mark.parametrize("tui", ["no-port"], indirect=True)
async def test_a_tui_without_port_gets_a_status_that_says_what_to_run(
    tui: OpencodeTui, editor: Editor
) -> None:
    # The premise, seen from /proc: the running TUI holds no listening socket.
    assert tui.pid is not None
    assert [x for x in scan_proc() if x.pid == tui.pid] == []
    status = await status_where(
        editor,
        lambda s: _host(s) is not None and "opencode --port 4096" in _error(s),
        "the advice in the host error",
    )
    assert _host(status).connected is False
    assert "`opencode serve`" in _error(status) and "opencode attach" in _error(status)
