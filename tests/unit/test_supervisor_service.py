"""The supervisor service (`todo_ls.supervisor.service`) over a fake host process, and headless
`todo-ls supervise`, which builds the same service."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from support.fake_host import ALL_CAPABILITIES, FakeHost

from todo_ls.commands.supervise import headless_settings, run_supervise, supervise
from todo_ls.core import events as ev
from todo_ls.core.clock import FakeClock
from todo_ls.hosts.base import Capability, Host
from todo_ls.settings.model import Settings, SupervisorSettings
from todo_ls.store import Store
from todo_ls.supervisor.delivery import NudgeSent
from todo_ls.supervisor.service import SupervisorService
from todo_ls.supervisor.workspace_items import IndexWorkspace
from todo_ls.workspace import Folder, WorkspaceIndex

S = "ses_a"
PLAN = "# Plan\n\n- [x] Set up\n- [ ] Write the parser\n- [?] Ask about the licence\n"


class FakeProcess:
    """The process the service runs in (a `ServiceHost`), with what it was told recorded."""

    def __init__(self, tmp_path: Path, settings: Settings | None = None) -> None:
        self.project = tmp_path / "project"
        self.project.mkdir()
        self.settings = settings or Settings(markdown_files=["PLAN.md"])
        self.store: Store | None = Store(tmp_path / "state.db")
        self.workspace_index = WorkspaceIndex(self.store)
        self.workspace_index.set_folders([Folder.from_path(self.project)])
        self.workspace_index.configure(self.settings.markdown_files, self._registry())
        self.workspace = IndexWorkspace(self.workspace_index)
        self.status_calls = 0
        self.messages: list[str] = []
        self.nudges: list[NudgeSent] = []

    def _registry(self) -> Any:
        from todo_ls.checklist import StateRegistry

        return StateRegistry.from_settings(self.settings.states)

    def supervisor_settings(self) -> SupervisorSettings:
        return self.settings.supervisor

    def supervisor_enabled(self) -> bool:
        return self.settings.supervisor.enabled

    def folder_settings(self, folder: str) -> SupervisorSettings | None:
        return None

    def shared_store(self) -> Store | None:
        return self.store

    def state_dir(self) -> Path | None:
        return None

    def status_changed(self) -> None:
        self.status_calls += 1

    def show_message(self, text: str) -> None:
        self.messages.append(text)

    def nudged(self, sent: NudgeSent) -> None:
        self.nudges.append(sent)


class Bridge:
    def __init__(self, tmp_path: Path, capabilities: frozenset[Capability] = ALL_CAPABILITIES):
        self.process = FakeProcess(tmp_path)
        self.clock = FakeClock()
        self.hosts: list[FakeHost] = []
        self.capabilities = capabilities
        self.sup = SupervisorService(self.process, connect=self._connect, clock=self.clock)

    async def _connect(self, settings: SupervisorSettings, folders: list[str]) -> Host:
        assert folders == [str(self.process.project)]
        host = FakeHost(self.capabilities, directories=folders)
        host.emit(ev.Connected("opencode-v1", "http://127.0.0.1:4096", "1.18.33"))
        host.emit(ev.Resynced(busy={}))
        self.hosts.append(host)
        return host

    async def drain(self) -> None:
        for _ in range(5):
            await asyncio.sleep(0)
        if self.hosts:
            await self.hosts[-1].drained()
        runtime = self.sup._runtime
        if runtime is not None:
            await runtime.drain()

    async def turn(self) -> None:
        host = self.hosts[-1]
        host.emit(
            ev.SessionUpdated(ev.SessionInfo(S, str(self.process.project), None, "plan")),
            ev.UserMessage(S, False, f"m{self.clock.now()}"),
            ev.TurnStarted(S),
            ev.TodosUpdated(S, (ev.SessionTodo("Add tests", "pending", "high"),)),
            ev.TurnEnded(S, "idle"),
        )
        await self.drain()


async def test_not_running_answers(tmp_path: Path) -> None:
    sup = SupervisorService(FakeProcess(tmp_path, Settings()))
    assert sup.status() == {"enabled": True, "host": None, "sessions": []}
    assert sup.state_word() is None
    assert await sup.nudge(None) == {
        "sent": [],
        "skipped": [{"sessionID": None, "reason": "supervisor not running"}],
    }
    assert await sup.pause("x") == {"sessions": [], "reason": "supervisor not running"}
    assert await sup.resume(None) == {"sessions": [], "reason": "supervisor not running"}
    sup.files_changed()
    sup.settings_changed()  # before start: nothing to restart


async def test_disabled_never_starts(tmp_path: Path) -> None:
    b = Bridge(tmp_path)
    b.process.settings = Settings(supervisor=SupervisorSettings(enabled=False))
    b.sup.start()
    await b.drain()
    assert b.hosts == []
    assert b.sup.status() == {"enabled": False, "host": None, "sessions": []}


async def test_runs_nudges_with_file_refs_and_tells_the_editor(tmp_path: Path) -> None:
    b = Bridge(tmp_path, ALL_CAPABILITIES - {Capability.TOAST})
    (b.process.project / "PLAN.md").write_text(PLAN)
    b.sup.start()
    await b.drain()
    assert b.sup.status()["host"]["connected"] is True
    await b.turn()
    assert b.sup.state_word() == "idle"
    b.clock.advance(5)
    await b.drain()
    sent = b.hosts[-1].sent
    assert len(sent) == 1
    assert sent[0].text.startswith("Idle nudge #1 — the session went idle with 3 of 4 todos left.")
    assert "- Write the parser — PLAN.md:4" in sent[0].text
    assert [n.session_id for n in b.process.nudges] == [S]
    assert b.process.messages == [
        "plan: Idle nudge #1 — the session went idle with 3 of 4 todos left."
    ]
    session = b.sup.status()["sessions"][0]
    assert (session["id"], session["open"], session["nudges"]) == (S, 3, 1)
    assert b.process.status_calls > 0
    (b.process.project / "PLAN.md").write_text(PLAN.replace("- [ ] Write", "- [x] Write"))
    b.sup.files_changed()
    assert b.sup.status()["sessions"][0]["open"] == 2
    assert (await b.sup.pause(S))["sessions"] == [{"id": S, "state": "paused"}]
    assert b.sup.state_word() == "paused"
    assert (await b.sup.resume(None))["sessions"] == [{"id": S, "state": "idle"}]
    await b.sup.stop()
    assert b.hosts[-1].closed
    assert b.sup.status()["host"] is None


HOOK = "7f3c2a10-hook-session"


async def test_an_opencode_and_a_hook_hosts_session_are_listed_and_commanded_together(
    tmp_path: Path,
) -> None:
    """Both sources of sessions in one workspace: the status lists the OpenCode session, then
    the Claude Code one; the status word is the most urgent of both (and not `disconnected`
    while a hook session is seen); a command without a session reaches both, one naming a
    session only its owner."""
    b = Bridge(tmp_path)
    assert b.process.store is not None
    b.process.store.record_hook_session(
        HOOK, "claude-code", str(b.process.project), "working", b.clock.now(), detail="tool Bash"
    )
    b.process.store.set_session_todos(
        HOOK, [{"content": "Port it", "status": "pending"}], b.clock.now()
    )
    b.sup.start()
    await b.drain()
    await b.turn()
    sessions = b.sup.status()["sessions"]
    assert [(s["id"], s["host"], s["state"]) for s in sessions] == [
        (S, "opencode-v1", "idle"),
        (HOOK, "claude-code", "working"),
    ]
    assert sessions[1]["detail"] == "tool Bash" and sessions[1]["todos"] == {"open": 1, "total": 1}
    assert b.sup.state_word() == "working"
    assert [i["sessionID"] for i in b.sup.session_items()] == [S, HOOK]
    nudged = await b.sup.nudge(None)
    assert nudged["sent"] == [S]
    assert [skip["sessionID"] for skip in nudged["skipped"]] == [HOOK]
    only_hook = await b.sup.nudge(HOOK)
    assert only_hook["sent"] == [] and "cannot be prompted" in only_hook["skipped"][0]["reason"]
    refused = b.sup.toggle_todo(HOOK, 0, "Port it")
    assert refused["applied"] is False and "claude-code's own todo list" in refused["reason"]
    paused = await b.sup.pause(None)
    assert paused["sessions"] == [{"id": S, "state": "paused"}, {"id": HOOK, "state": "paused"}]
    assert (await b.sup.resume(HOOK))["sessions"] == [{"id": HOOK, "state": "working"}]
    assert b.process.store.paused(S) is not None  # resuming the hook session left the other paused
    b.hosts[-1].emit(ev.Disconnected("gone"))
    await b.drain()
    assert b.sup.state_word() == "working"  # the hook session is still seen
    await b.sup.stop()


async def test_a_source_that_fails_leaves_the_others_sessions_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    b = Bridge(tmp_path)
    assert b.process.store is not None
    b.sup.start()
    await b.drain()
    await b.turn()

    def broken(since: float) -> Any:
        raise ValueError("the hook sessions table is unreadable")

    monkeypatch.setattr(b.process.store, "hook_sessions", broken)
    assert [s["id"] for s in b.sup.status()["sessions"]] == [S]
    assert b.sup.state_word() == "idle"
    assert [i["sessionID"] for i in b.sup.session_items()] == [S]
    await b.sup.stop()


async def test_a_folder_added_later_counts_in_the_busy_check_before_a_nudge(tmp_path: Path) -> None:
    # 1.x answers the busy snapshot per directory: a session working in a folder the host was
    # never told about must not be nudged because the snapshot did not list it.
    b = Bridge(tmp_path)
    b.sup.start()
    await b.drain()
    second = tmp_path / "second"
    second.mkdir()
    b.process.workspace_index.set_folders(
        [Folder.from_path(b.process.project), Folder.from_path(second)]
    )
    b.sup.files_changed()  # what the server does after didChangeWorkspaceFolders
    host = b.hosts[-1]
    assert host.directories == [str(b.process.project), str(second)]
    other = "ses_b"
    host.emit(
        ev.SessionUpdated(ev.SessionInfo(other, str(second), None, "second")),
        ev.UserMessage(other, False, "m1"),
        ev.TurnStarted(other),
        ev.TodosUpdated(other, (ev.SessionTodo("Add tests", "pending", "high"),)),
        ev.TurnEnded(other, "idle"),
    )
    await b.drain()
    host.busy_in[str(second)] = {other: "busy"}  # the idle event was stale: it works again
    b.clock.advance(5)
    await b.drain()
    assert host.sent == []
    host.busy_in.clear()
    host.emit(ev.TurnEnded(other, "idle"))  # really idle now: the session in it is nudged
    await b.drain()
    b.clock.advance(5)
    await b.drain()
    assert [s.session_id for s in host.sent] == [other]
    await b.sup.stop()


async def test_restarts_only_when_supervisor_settings_change(tmp_path: Path) -> None:
    b = Bridge(tmp_path)
    b.sup.start()
    await b.drain()
    first = b.sup._runtime
    b.process.settings = b.process.settings.model_copy(update={"markdown_files": ["TODO.md"]})
    b.sup.settings_changed()
    await b.drain()
    assert b.sup._runtime is first
    changed = b.process.settings.supervisor.model_copy(update={"settle_ms": 1000})
    b.process.settings = b.process.settings.model_copy(update={"supervisor": changed})
    b.sup.settings_changed()
    await b.drain()
    assert b.sup._runtime is not first
    assert b.sup._runtime is not None and b.sup._runtime.settings.settle_ms == 1000
    assert len(b.hosts) == 2 and b.hosts[0].closed
    off = changed.model_copy(update={"enabled": False})
    b.process.settings = b.process.settings.model_copy(update={"supervisor": off})
    b.sup.settings_changed()
    await b.drain()
    assert b.sup._runtime is None
    assert b.sup.status() == {"enabled": False, "host": None, "sessions": []}
    await b.sup.stop()


async def test_without_a_shared_store_it_opens_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TODO_LS_STATE_DIR", str(tmp_path / "state"))
    b = Bridge(tmp_path)
    b.process.store = None
    b.sup.start()
    await b.drain()
    assert (tmp_path / "state").is_dir()
    await b.sup.stop()


# --- headless ---------------------------------------------------------------------------------


async def test_headless_prints_state_changes_and_nudges(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "PLAN.md").write_text(PLAN)
    store = Store(tmp_path / "state.db")
    store.subscribe(str(project), str(project / "PLAN.md"))  # subscribed from an editor
    host = FakeHost()
    clock = FakeClock()
    out = io.StringIO()
    stop = asyncio.Event()

    async def connect(settings: SupervisorSettings, folders: list[str]) -> Host:
        return host

    task = asyncio.ensure_future(
        supervise(
            SupervisorSettings(), project, out, connect=connect, clock=clock, store=store, stop=stop
        )
    )
    for _ in range(5):
        await asyncio.sleep(0)
    host.emit(
        ev.Connected("opencode-v1", "http://127.0.0.1:4096", "1.18.33"),
        ev.Resynced(busy={}),
        ev.SessionUpdated(ev.SessionInfo(S, str(project), None, "plan")),
        ev.UserMessage(S, False, "m1"),
        ev.TurnStarted(S),
        ev.ToolStarted(S, "c1", "bash", "make"),
    )
    await host.drained()
    for _ in range(3):
        host.emit(ev.ToolProgress(S, "c1"))  # output: only the quiet clock moves
        await host.drained()
        clock.advance(1)
    host.emit(ev.ToolEnded(S, "c1"), ev.TurnEnded(S, "idle"))
    await host.drained()
    clock.advance(5)
    for _ in range(20):
        await asyncio.sleep(0)
    stop.set()
    assert await task == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == "connected to opencode-v1 1.18.33 at http://127.0.0.1:4096"
    assert f"{S} working · 1 tool · quiet 0s · 2 open" in lines
    # output of the running tool moved only the quiet clock: no new line for it
    assert len([line for line in lines if line.startswith(f"{S} working · 1 tool")]) == 1
    assert f"{S} idle · quiet 0s · nudge in 5s · 2 open" in lines
    assert f"nudged {S} (idle #1)" in lines
    assert "- Write the parser — PLAN.md:4" in host.sent[0].text
    store.close()


def test_bad_arguments_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_supervise("localhost:4096", str(tmp_path)) == 2
    assert capsys.readouterr().err == (
        "todo-ls supervise: --url must be an http(s) URL, got 'localhost:4096'\n"
    )
    assert run_supervise(None, str(tmp_path / "nope")) == 2
    err = capsys.readouterr().err
    assert err.startswith("todo-ls supervise: --directory") and err.endswith("is not a directory\n")


def test_settings_come_inline_or_from_a_json_file(tmp_path: Path) -> None:
    inline = headless_settings('{"supervisor": {"settleMs": 1234}}', None, tmp_path)
    assert not isinstance(inline, str) and inline.supervisor.settle_ms == 1234
    file = tmp_path / "todo-ls.json"
    file.write_text('{"supervisor": {"settleMs": 4321, "scope": "all"}}', encoding="utf-8")
    loaded = headless_settings(str(file), "http://127.0.0.1:9", tmp_path)
    assert not isinstance(loaded, str)
    from_file = loaded.supervisor
    assert (from_file.settle_ms, from_file.scope, from_file.url) == (
        4321,
        "all",
        "http://127.0.0.1:9",
    )


def test_bad_settings_say_whether_they_were_read_as_a_file_or_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "settings.json")
    assert run_supervise(None, str(tmp_path), missing) == 2
    err = capsys.readouterr().err
    assert err.startswith("todo-ls supervise: --settings is neither a JSON file nor inline JSON")
    assert err.endswith(f"{missing!r}\n") and err.count("\n") == 1
    broken = tmp_path / "broken.json"
    broken.write_text("{supervisor: 1}", encoding="utf-8")
    assert run_supervise(None, str(tmp_path), str(broken)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"todo-ls supervise: --settings file {str(broken)!r} is not JSON: ")
    assert run_supervise(None, str(tmp_path), "[1, 2]") == 2
    assert capsys.readouterr().err == "todo-ls supervise: --settings must be a JSON object\n"


class SupervisingProcess:
    """A real `todo-ls supervise` started in `folder`, its stdout lines read as they come."""

    def __init__(self, folder: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "todo_ls", "supervise", "--url", "http://127.0.0.1:9"],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self._lines: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line.rstrip("\n"))

    def next_line(self, prefix: str, timeout: float = 10) -> str:
        """The first line from now on that starts with `prefix`; fails after `timeout`."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            with contextlib.suppress(queue.Empty):
                line = self._lines.get(timeout=left)
                if line.startswith(prefix):
                    return line
        raise AssertionError(f"supervise printed no line starting with {prefix!r}")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(timeout=5)
        if self.proc.stdout:
            self.proc.stdout.close()


@pytest.fixture
def state_env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "TODO_LS_STATE_DIR": str(tmp_path / "state"), "HOME": str(tmp_path)}


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_headless_exits_cleanly_on_signals(
    tmp_path: Path, state_env: dict[str, str], signum: int
) -> None:
    supervising = SupervisingProcess(tmp_path, state_env)
    try:
        # Nothing listens there: it says so and keeps retrying.
        assert supervising.next_line("not connected: ")
        supervising.proc.send_signal(signum)
        assert supervising.proc.wait(timeout=20) == 0
    finally:
        supervising.close()


HOOK_AGENT = "claude-session-headless"


def test_headless_lists_a_hook_agents_session(tmp_path: Path, state_env: dict[str, str]) -> None:
    """A real `todo-ls supervise` and a real `todo-ls hook` (as Claude Code runs it) on one
    state folder: the session the hook wrote to the store is printed with its state and the
    open items of the folder's plan, as the editor lists it, though no OpenCode runs."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "PLAN.md").write_text(PLAN, encoding="utf-8")
    (project / "todo-ls.toml").write_text('markdownFiles = ["PLAN.md"]\n', encoding="utf-8")
    supervising = SupervisingProcess(project, state_env)
    try:
        assert supervising.next_line("not connected: ")  # started; no OpenCode at that URL
        prompt = {
            "session_id": HOOK_AGENT,
            "cwd": str(project),
            "hook_event_name": "UserPromptSubmit",
            "prompt": "build it",
            "prompt_id": "p1",
        }
        hook = subprocess.run(
            [sys.executable, "-m", "todo_ls", "hook", "--host", "claude-code"],
            input=json.dumps(prompt),
            env=state_env,
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert (hook.returncode, hook.stderr) == (0, "")
        # The plan's 2 open items (the asked one counts): listed as the editor lists it.
        line = supervising.next_line(f"{HOOK_AGENT} ")
        assert line == f"{HOOK_AGENT} working · 2 open"
        supervising.proc.send_signal(signal.SIGTERM)
        assert supervising.proc.wait(timeout=20) == 0
    finally:
        supervising.close()


def test_a_bad_value_from_the_project_file_is_named_with_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "todo-ls.toml"
    project.write_text("[supervisor]\nsettleMs = -1\nstallMinutes = 0\n", encoding="utf-8")
    loaded = headless_settings('{"supervisor": {"stallMinutes": 0}}', None, tmp_path)
    assert isinstance(loaded, Settings) and loaded.supervisor.settle_ms == 5000
    lines = capsys.readouterr().err.splitlines()
    (from_file,) = [line for line in lines if "settleMs" in line]
    assert from_file.startswith(
        f"todo-ls supervise: Invalid setting todoLs.supervisor.settleMs in {project}:"
    )
    (from_flag,) = [line for line in lines if "stallMinutes" in line]
    assert str(project) not in from_flag  # --settings set that one


async def test_toggle_refuses_an_item_of_the_hosts_own_list_and_flips_a_store_item(
    tmp_path: Path,
) -> None:
    """OpenCode 1.x keeps its `todowrite` list itself and has no route to write it: toggling
    such an item is refused with a reason; an item of the store's list flips."""
    b = Bridge(tmp_path)
    assert b.process.store is not None
    b.process.store.set_session_todos(
        S, [{"content": "Ship it", "status": "pending"}], b.clock.now()
    )
    b.sup.start()
    await b.drain()
    await b.turn()
    before = b.process.status_calls
    refused = b.sup.toggle_todo(S, 1, None)  # after the store's item: OpenCode's "Add tests"
    assert refused["applied"] is False and refused["state"] == "pending"
    assert "only the agent can change" in refused["reason"]
    assert b.sup.toggle_todo(S, 0, "Ship it") == {"applied": True, "state": "completed"}
    assert b.process.store.session_todos(S) == [{"content": "Ship it", "status": "completed"}]
    assert b.sup.status()["sessions"][0]["todos"] == {"open": 1, "total": 2}
    assert b.process.status_calls > before
    await b.sup.stop()


async def test_toggle_without_a_runtime_uses_the_store(tmp_path: Path) -> None:
    """Sessions known only from the store (a hook host's) can be toggled with the supervisor
    off."""
    b = Bridge(tmp_path)
    assert b.process.store is not None
    b.process.store.set_session_todos("ses_hook", [{"content": "a", "status": "completed"}], 1.0)
    assert b.sup.toggle_todo("ses_hook", 0, None) == {"applied": True, "state": "pending"}
    assert b.process.store.session_todos("ses_hook") == [{"content": "a", "status": "pending"}]
    b.process.store = None
    assert b.sup.toggle_todo("ses_hook", 0, None)["reason"] == "the state store is unavailable"


async def test_headless_without_opencode_says_what_to_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Real discovery: this machine's processes are listed, and none serves this new folder.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))  # no 2.x registration
    project = tmp_path / "project"
    project.mkdir()
    out = io.StringIO()
    stop = asyncio.Event()
    store = Store(tmp_path / "state.db")
    task = asyncio.ensure_future(
        supervise(SupervisorSettings(), project, out, clock=FakeClock(), store=store, stop=stop)
    )
    for _ in range(400):
        if "not connected" in out.getvalue():
            break
        await asyncio.sleep(0.05)
    stop.set()
    assert await task == 0
    [line] = [x for x in out.getvalue().splitlines() if x.startswith("not connected")]
    assert "`opencode --port 4096`" in line
    assert "`opencode serve`" in line and "opencode attach" in line
