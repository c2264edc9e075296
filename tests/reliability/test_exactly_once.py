"""Exactly one nudge per opportunity from several real todo-ls processes watching one server.

Four processes share one TODO_LS_STATE_DIR, as on a machine with two editor windows and two
headless supervisors: two `todo-ls supervise` and two language servers over stdio (a minimal
JSON-RPC client). Against (a) the fake OpenCode 2.x server and (b) a real OpenCode 1.18.33,
each opportunity (a session of the project that ends its turn with open items) must get
exactly one nudge: with every process up, after one was killed with SIGKILL, and across a
server restart. Against the fake server every process settles for `SETTLE_S` (a project file):
they all arm their timer on the same end of turn, so they race for the claim at any settle. The
pause between nudges of a session is the default (45 s), so every phase uses its own session.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonrpc_frames
import pytest
from support.fake_model import FakeModel
from support.fake_v2 import FakeV2Server
from support.reliability_support import ServerThread, initialize_over_stdio, read_message
from support.scenarios import OpencodeServer

from todo_ls.store import Store

pytestmark = pytest.mark.timeout(240)

TODO_LS = [sys.executable, "-m", "todo_ls"]
PLAN = "# Plan\n\n- [ ] ship the release\n- [x] write the notes\n"
WAIT = 20.0  # generous upper bound for one settle (5 s) plus reconnects on a busy machine
SETTLE_S = 1.0
# Once every process has shown the session idle, each one's settle timer falls due within
# SETTLE_S; a second nudge would reach the server a claim and a request later. Every phase
# waits this long after the first nudge for one.
QUIET_S = SETTLE_S + 2.0


class Member:
    """One todo-ls process of the fleet; a reader thread drains its output and notes when its
    supervisor is connected (a status line of `supervise`, `todoLs/status` of a server)."""

    def __init__(self, kind: str, proc: subprocess.Popen[bytes]) -> None:
        self.kind = kind
        self.proc = proc
        self.connected = False
        self.output: list[str] = []
        self.idle_seen: set[str] = set()  # sessions it has shown idle
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        try:
            if self.kind == "supervise":
                assert self.proc.stdout is not None
                for raw in self.proc.stdout:
                    line = raw.decode(errors="replace").rstrip()
                    self.output.append(line)
                    if line.partition(" ")[2].startswith("idle"):  # `ses_x idle · …`
                        self.idle_seen.add(line.partition(" ")[0])
                    if line.startswith("connected to"):
                        self.connected = True
                    elif line.startswith("not connected"):
                        self.connected = False
                return
            while self.proc.poll() is None:
                message = read_message(self.proc)
                if message.get("method") == "todoLs/status":
                    supervisor = message["params"]["supervisor"]
                    host = supervisor.get("host") or {}
                    self.connected = bool(host.get("connected"))
                    for session in supervisor["sessions"]:
                        if session["state"] == "idle":
                            self.idle_seen.add(session["id"])
                elif "id" in message and "method" in message:  # a request: answer null
                    self._reply(message["id"])
        except (AssertionError, OSError, ValueError):
            return

    def _reply(self, request_id: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(jsonrpc_frames.encode({"id": request_id, "result": None}))
        self.proc.stdin.flush()

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.connected = False


class Fleet:
    """The todo-ls processes of one test."""

    def __init__(self, folder: Path, state: Path, url: str, env: dict[str, str]) -> None:
        self.folder = folder
        self.members: list[Member] = []
        self._url = url
        self._env = {**os.environ, **env, "TODO_LS_STATE_DIR": str(state)}
        # Headless processes read their subscriptions from the shared store.
        store = Store.open(state)
        store.subscribe(str(folder), str(folder / "PLAN.md"))
        store.close()

    def supervise(self) -> Member:
        args = [*TODO_LS, "supervise", "--url", self._url, "--directory", str(self.folder)]
        proc = subprocess.Popen(
            args, env=self._env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        return self._add(Member("supervise", proc))

    def language_server(self) -> Member:
        proc = subprocess.Popen(
            [*TODO_LS, "serve", "--log-level", "WARNING"],
            env=self._env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        options = {"markdownFiles": ["PLAN.md"], "supervisor": {"url": self._url}}
        initialize_over_stdio(proc, self.folder, options)
        return self._add(Member("lsp", proc))

    def _add(self, member: Member) -> Member:
        self.members.append(member)
        return member

    def wait_connected(self, timeout: float = WAIT) -> None:
        live = [m for m in self.members if m.proc.poll() is None]
        wait_for(lambda: all(m.connected for m in live), timeout, "every process connected")

    def wait_seen(self, session_id: str) -> None:
        """Until every live headless member has printed a line about `session_id`."""
        live = [m for m in self.members if m.kind == "supervise" and m.proc.poll() is None]
        wait_for(
            lambda: all(any(session_id in line for line in m.output) for m in live),
            WAIT,
            f"{session_id} seen by every headless process",
        )

    def wait_idle_seen(self, session_id: str) -> None:
        """Until every live member has shown `session_id` idle: each one's settle has begun."""
        live = [m for m in self.members if m.proc.poll() is None]
        wait_for(
            lambda: all(session_id in m.idle_seen for m in live),
            WAIT,
            f"{session_id} idle in every process",
        )

    def stop(self) -> None:
        for member in self.members:
            if member.proc.poll() is None:
                member.proc.send_signal(signal.SIGTERM)
        for member in self.members:
            try:
                member.proc.wait(10)
            except subprocess.TimeoutExpired:
                member.proc.kill()
                member.proc.wait(10)


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.05)


def exactly_one(count: Callable[[], int], what: str, quiet: float = 8.0) -> None:
    """One arrives within WAIT, and no second one in the `quiet` seconds after it."""
    wait_for(lambda: count() >= 1, WAIT, f"a nudge for {what}")
    deadline = time.monotonic() + quiet
    while time.monotonic() < deadline:  # a second one fails at once, not after the quiet
        assert count() == 1, f"{count()} nudges for {what}"
        time.sleep(0.05)
    assert count() == 1, f"{count()} nudges for {what}"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "PLAN.md").write_text(PLAN, encoding="utf-8")
    return project


@pytest.fixture
def fleet_factory(tmp_path: Path) -> Iterator[Callable[..., Fleet]]:
    fleets: list[Fleet] = []

    def make(folder: Path, url: str, env: dict[str, str]) -> Fleet:
        fleet = Fleet(folder, tmp_path / "state", url, env)
        fleets.append(fleet)
        return fleet

    yield make
    for fleet in fleets:
        fleet.stop()


def start_four(fleet: Fleet) -> None:
    """Two headless supervisors and two language servers."""
    fleet.supervise()
    fleet.language_server()
    fleet.supervise()
    fleet.language_server()
    fleet.wait_connected()


# --- (a) the fake OpenCode 2.x server ---------------------------------------------------------


def test_fake_v2_one_nudge_per_opportunity_through_kill_and_restart(
    folder: Path, fleet_factory: Callable[..., Fleet]
) -> None:
    fake = FakeV2Server(password="fleet-pw", heartbeat_s=2.0)
    server = ServerThread(fake)
    settle_ms = int(SETTLE_S * 1000)
    (folder / "todo-ls.toml").write_text(f"[supervisor]\nsettleMs = {settle_ms}\n", "utf-8")
    try:
        fleet = fleet_factory(folder, fake.url, {"OPENCODE_PASSWORD": fake.password})
        start_four(fleet)
        assert fake.streams_opened >= 4

        def nudges(session_id: str) -> Callable[[], int]:
            return lambda: sum(sid == session_id for sid, _ in fake.synthetic_requests)

        def opportunity(session_id: str) -> None:
            server.call(fake.add_session, session_id, str(folder))
            server.run(fake.run_turn(session_id))

        # Every process up: one nudge.
        opportunity("ses_all")
        fleet.wait_idle_seen("ses_all")
        exactly_one(nudges("ses_all"), "ses_all with 4 processes", QUIET_S)
        # The headless ones saw it too (and lost the claim): the single nudge is not luck.
        for member in fleet.members:
            if member.kind == "supervise":
                assert any("ses_all" in line for line in member.output), member.output

        # One killed mid-run, just as the next opportunity arises: the others send one.
        opportunity("ses_kill")
        fleet.members[0].kill()
        fleet.wait_idle_seen("ses_kill")
        exactly_one(nudges("ses_kill"), "ses_kill after a SIGKILL", QUIET_S)

        # The server restarts between the end of the turn and the nudge: one after reconnect.
        opened = fake.streams_opened
        opportunity("ses_restart")
        fleet.wait_seen("ses_restart")  # the stream is lossy: the turn's end must have arrived
        server.run(fake.stop())
        server.run(fake.start())
        wait_for(lambda: fake.streams_opened >= opened + 3, WAIT, "3 processes reconnected")
        exactly_one(nudges("ses_restart"), "ses_restart across a server restart", QUIET_S)
        # Nothing earlier was nudged again by the reconnects.
        assert nudges("ses_all")() == 1 and nudges("ses_kill")() == 1
    finally:
        server.stop()


# --- (b) the real OpenCode 1.18.33 ------------------------------------------------------------


@pytest.mark.opencode
def test_real_opencode_one_nudge_per_opportunity_through_kill_and_restart(
    tmp_path: Path, fleet_factory: Callable[..., Fleet]
) -> None:
    with FakeModel() as model:
        opencode = OpencodeServer(tmp_path / "oc", model).start()
        try:
            folder = opencode.project
            (folder / "PLAN.md").write_text(PLAN, encoding="utf-8")
            # The fake model answers a nudge with a turn, and the item stays open: once
            # `minNudgeIntervalMs` has passed, a second nudge is what the policy asks for (the
            # agent worked since). With an hour between nudges, however slow the machine, any
            # second nudge of a session here is a duplicate, so the verdict does not depend on
            # how long the phases take. Every process reads the folder's project file.
            (folder / "todo-ls.toml").write_text(
                "[supervisor]\nminNudgeIntervalMs = 3600000\n", encoding="utf-8"
            )
            fleet = fleet_factory(folder, opencode.url, {})
            start_four(fleet)

            def nudges(session_id: str) -> Callable[[], int]:
                """Synthetic nudge messages OpenCode stored for the session."""

                def count() -> int:
                    messages = opencode.get(f"/session/{session_id}/message")
                    return sum(
                        1
                        for message in messages
                        for part in message.get("parts", [])
                        if part.get("type") == "text"
                        and part.get("synthetic") is True
                        and "nudge #" in part.get("text", "")
                    )

                return count

            def opportunity(title: str) -> str:
                """A session whose turn (the model answers "Done.") has ended."""
                session_id = opencode.create_session(title)
                before = len(model.requests)
                opencode.prompt(session_id, f"work on {title}")
                model.wait_requests(before + 1)
                wait_for(
                    lambda: session_id not in opencode.get("/session/status"),
                    WAIT,
                    "the turn ended",
                )
                return session_id

            ses_all = opportunity("all")
            exactly_one(nudges(ses_all), "a session with 4 processes")
            ses_kill = opportunity("kill")
            fleet.members[0].kill()
            exactly_one(nudges(ses_kill), "a session after a SIGKILL")
            ses_restart = opportunity("restart")
            fleet.wait_seen(ses_restart)
            opencode.restart()
            fleet.wait_connected(60)
            exactly_one(nudges(ses_restart), "a session across a server restart")
            assert nudges(ses_all)() == 1 and nudges(ses_kill)() == 1
            # The shared ledger agrees with what OpenCode received: one sent nudge each, #1.
            store = Store.open(tmp_path / "state")
            try:
                for sid in (ses_all, ses_kill, ses_restart):
                    assert [n.number for n in store.nudges(sid)] == [1], store.nudges(sid)
            finally:
                store.close()
        finally:
            opencode.stop()
