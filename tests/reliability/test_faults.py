"""Faults between todo-ls and its host, through the real supervisor runtime and the real 2.x
adapter against the fake 2.x server: refused connections, 401, 500 / 404 / no answer on the
nudge, a stream that goes silent, a slow reader dropped by the server, and clock jumps.

Each fault must show in the supervisor status (`connected: false` or an error detail), be
logged once however long it lasts, never cost a duplicate nudge, and heal when the fault goes.
The runtime's time is a FakeClock; only the sockets use real (short) time. The tests never
count on real time passing: they wait (bounded) for conditions on the fake server, the runtime
and the tracker, and move the clock only once what the host sent has been handled.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support import lsp_harness as lsp
from support.fake_host import FakeHost, FakeWorkspace
from support.fake_v2 import FakeV2Server
from support.reliability_support import ServerThread
from support.scenarios import closed_port, until

from todo_ls.checklist.model import FileItem
from todo_ls.core import events as ev
from todo_ls.core.clock import FakeClock
from todo_ls.hosts.base import Host
from todo_ls.hosts.discovery import connect_host
from todo_ls.hosts.http import Backoff, HostHttp
from todo_ls.hosts.opencode_v2.adapter import OpenCodeV2Host
from todo_ls.settings.model import SupervisorSettings
from todo_ls.store import DB_NAME, Store
from todo_ls.supervisor.runtime import Runtime

pytestmark = pytest.mark.timeout(60)

SID = "ses_fault"
FAST = Backoff(initial=0.02, cap=0.1)
SETTINGS = SupervisorSettings(settle_ms=2000, min_nudge_interval_ms=45_000, stall_minutes=5)
ITEMS = [FileItem("PLAN.md", 3, "write the parser", "open")]


# --- harness ------------------------------------------------------------------------------


class Logged(logging.Handler):
    """WARNING and above of todo-ls, as formatted text."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())

    def count(self, text: str) -> int:
        return sum(text in line for line in self.lines)


@contextlib.contextmanager
def logged() -> Iterator[Logged]:
    handler = Logged()
    logger = logging.getLogger("todo_ls")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


@dataclass
class Rig:
    runtime: Runtime
    clock: FakeClock
    statuses: list[dict[str, Any]]  # every status the editor would have been sent
    fake: FakeV2Server | None = None

    async def advance(self, seconds: float, step: float = 5.0) -> None:
        """Move the runtime's time forward in steps. Before each next step, background work
        (a nudge being sent) has finished and the runtime has handled the host's events for
        every nudge delivered so far: they carry the time they arrive at."""
        left = seconds
        while left > 0:
            self.clock.advance(min(step, left))
            left -= step
            await self.runtime.drain()
            await self.deliveries_seen()

    async def deliveries_seen(self) -> None:
        """Wait until the tracker saw every delivered nudge reach its session."""
        fake = self.fake
        if fake is None:
            return
        tracker = self.runtime.tracker

        def seen() -> bool:
            sessions = tracker.sessions.values()
            delivered = sum(len(s.seen_messages) for s in sessions)
            queued = any(s.queued for s in sessions)
            return delivered >= len(fake.synthetic_requests) and not queued

        await until(seen, 10, "the events of the delivered nudges handled")

    async def retry_after_backoff(self) -> None:
        """Wait for the failed attempt to arm its back-off timer, then let it expire."""
        await until(lambda: self.clock.pending, what="back-off armed")
        await self.advance(31.0)

    @property
    def host_status(self) -> dict[str, Any]:
        return dict(self.runtime.status()["host"])

    def sessions(self) -> dict[str, dict[str, Any]]:
        return {s["id"]: s for s in self.runtime.status()["sessions"]}


@contextlib.asynccontextmanager
async def rig(
    tmp_path: Path,
    connect: Callable[[], Any],
    settings: SupervisorSettings = SETTINGS,
    fake: FakeV2Server | None = None,
) -> AsyncIterator[Rig]:
    store = Store(tmp_path / "state" / DB_NAME)
    clock = FakeClock(start=time.time())
    statuses: list[dict[str, Any]] = []
    holder: list[Runtime] = []

    def changed() -> None:
        if holder:
            statuses.append(holder[0].status())

    runtime = Runtime(
        connect, store, settings, clock, FakeWorkspace([str(tmp_path)], {str(tmp_path): ITEMS}),
        on_change=changed,
    )  # fmt: skip
    holder.append(runtime)
    runtime.start()
    try:
        yield Rig(runtime, clock, statuses, fake)
    finally:
        await runtime.stop()
        store.close()


def v2_connect(fake: FakeV2Server, idle_timeout: float = 60.0, **http: Any) -> Callable[[], Any]:
    """Build the real 2.x adapter for `fake` (short timeouts, fast reconnects). The stream
    watchdog (`idle_timeout`, real seconds) stays out of the way unless a test is about it:
    a reconnect in the middle would replace the error a test checks."""

    async def connect() -> Host:
        client = HostHttp(fake.url, password=fake.password, **{"timeout": 3.0, **http})
        return OpenCodeV2Host(client, version=fake.version, backoff=FAST, idle_timeout=idle_timeout)

    return connect


async def idle_with_open_items(fake: FakeV2Server, r: Rig, folder: Path) -> None:
    """A session of the folder works one turn and ends it: a nudge is due after settling."""
    fake.add_session(SID, str(folder), title="fault test")
    await until(lambda: r.runtime.connected, what="connected")
    await fake.run_turn(SID)
    session = lambda: r.runtime.tracker.sessions.get(SID)  # noqa: E731
    await until(lambda: session() is not None and session().ended_confirmed, what="turn ended")
    await until(lambda: session().directory is not None, what="session info")


# --- connecting -----------------------------------------------------------------------------


async def test_connection_refused_shows_in_status_is_logged_once_and_heals(
    tmp_path: Path,
) -> None:
    port = closed_port()
    settings = SupervisorSettings(url=f"http://127.0.0.1:{port}", host="opencode-v2")
    attempts = 0

    async def connect() -> Host:
        nonlocal attempts
        attempts += 1
        env = {"OPENCODE_PASSWORD": "pw", "XDG_STATE_HOME": str(tmp_path / "xdg")}
        return await connect_host(settings, env)

    with logged() as log:
        async with rig(tmp_path, connect) as r:
            await until(lambda: r.runtime.error is not None)
            assert r.host_status["connected"] is False
            assert "unreachable" in r.host_status["error"]
            assert r.runtime.state_word() == "disconnected"
            for n in range(2, 6):  # four more attempts, backing off on the runtime's clock
                await r.retry_after_backoff()
                await until(lambda n=n: attempts >= n)
            assert log.count("unreachable") == 1, log.lines
            # The server comes up on that port: the next attempt connects.
            fake = FakeV2Server(password="pw", port=port)
            await fake.start()
            try:
                # (the attempt in flight may already reach it; else the next one does)
                await until(lambda: r.runtime.connected or r.clock.pending)
                await r.advance(31.0)
                await until(lambda: r.runtime.connected)
                assert "error" not in r.host_status
            finally:
                await fake.stop()


async def test_wrong_password_shows_401_in_status_and_is_logged_once(tmp_path: Path) -> None:
    fake = FakeV2Server(password="right-password")
    await fake.start()
    settings = SupervisorSettings(url=fake.url, host="opencode-v2")
    attempts = 0

    async def connect() -> Host:
        nonlocal attempts
        attempts += 1
        env = {"OPENCODE_PASSWORD": "wrong", "XDG_STATE_HOME": str(tmp_path / "xdg")}
        return await connect_host(settings, env)

    try:
        with logged() as log:
            async with rig(tmp_path, connect) as r:
                await until(lambda: r.runtime.error is not None)
                assert r.host_status["connected"] is False
                assert "401" in r.host_status["error"]
                assert "OPENCODE_PASSWORD" in r.host_status["error"]  # says what to fix
                for n in range(2, 5):
                    await r.retry_after_backoff()
                    await until(lambda n=n: attempts >= n)
                assert log.count("401") == 1, log.lines
    finally:
        await fake.stop()


# --- the nudge ----------------------------------------------------------------------------


async def test_500_on_the_nudge_is_shown_retried_later_and_sent_once(tmp_path: Path) -> None:
    fake = FakeV2Server(nudge_fault=500)
    await fake.start()
    try:
        with logged() as log:
            async with rig(tmp_path, v2_connect(fake), fake=fake) as r:
                await idle_with_open_items(fake, r, tmp_path)
                await r.advance(3.0, step=1.0)  # the settle: the POST is answered 500
                assert fake.nudge_posts == 1
                assert "500" in r.host_status.get("error", ""), r.host_status
                assert log.count("500") == 1, log.lines
                await r.advance(30.0)  # the failed delivery is held back, not hammered
                assert fake.nudge_posts == 1
                fake.nudge_fault = None
                await r.advance(60.0)  # past the hold: sent again, delivered this time
                assert len(fake.synthetic_requests) == 1
                assert "error" not in r.host_status, r.host_status  # healed
                await r.advance(120.0)  # nothing changed since: no second nudge
                assert len(fake.synthetic_requests) == 1
    finally:
        await fake.stop()


async def test_404_on_the_nudge_drops_the_deleted_session(tmp_path: Path) -> None:
    fake = FakeV2Server(nudge_fault=404)
    await fake.start()
    try:
        with logged() as log:
            async with rig(tmp_path, v2_connect(fake), fake=fake) as r:
                await idle_with_open_items(fake, r, tmp_path)
                assert SID in r.sessions()
                await r.advance(3.0, step=1.0)
                assert fake.nudge_posts == 1
                assert SID not in r.sessions()  # gone from the status
                await r.advance(600.0, step=30.0)
                assert fake.nudge_posts == 1  # never retried
                assert log.count(SID) == 1, log.lines
                assert r.runtime.connected  # a gone session is no connection problem
    finally:
        await fake.stop()


async def test_a_nudge_without_an_answer_is_never_sent_twice(tmp_path: Path) -> None:
    """The POST timed out: it may have reached the agent, so it counts as sent. Resending it
    after the hold-off would nudge twice for one opportunity."""
    fake = FakeV2Server(nudge_fault="hang")
    await fake.start()
    try:
        with logged() as log:
            async with rig(tmp_path, v2_connect(fake, timeout=0.5), fake=fake) as r:
                await idle_with_open_items(fake, r, tmp_path)
                await r.advance(3.0, step=1.0)  # the POST is taken and never answered
                assert fake.nudge_posts == 1
                assert r.runtime.error is not None
                assert "nudge" in r.host_status["error"]
                fake.nudge_fault = None
                await r.advance(600.0, step=30.0)
                assert fake.nudge_posts == 1, "the unanswered nudge was sent again"
                assert log.count("nudge") == 1, log.lines
    finally:
        await fake.stop()


# --- the stream ---------------------------------------------------------------------------


async def test_a_silent_stream_reconnects_and_the_nudge_still_goes_once(tmp_path: Path) -> None:
    fake = FakeV2Server(heartbeat_s=0.1)
    await fake.start()
    try:
        async with rig(tmp_path, v2_connect(fake, idle_timeout=1.0), fake=fake) as r:
            await until(lambda: r.runtime.connected)
            # Heartbeats alone keep it connected past the watchdog (10x its margin).
            await until(lambda: fake.heartbeats_sent >= 15, what="1.5 s of heartbeats")
            assert fake.streams_opened == 1
            fake.go_silent()  # open, but not a byte more: > 2 heartbeat intervals
            await until(lambda: fake.streams_opened == 2, what="reconnect")
            await until(lambda: r.runtime.connected)
            dropped = [s["host"] for s in r.statuses if not s["host"]["connected"]]
            assert dropped and "nothing received" in dropped[-1]["error"]
            await idle_with_open_items(fake, r, tmp_path)
            await r.advance(120.0)
            assert len(fake.synthetic_requests) == 1
    finally:
        await fake.stop()


async def test_server_restart_resyncs_and_nudges_once(tmp_path: Path) -> None:
    fake = FakeV2Server()
    await fake.start()
    try:
        async with rig(tmp_path, v2_connect(fake), fake=fake) as r:
            fake.add_session(SID, str(tmp_path))
            await until(lambda: r.runtime.connected)
            await fake.run_turn(SID)  # busy, then idle
            session = lambda: r.runtime.tracker.sessions.get(SID)  # noqa: E731
            # The end of the turn reached us before the kill (else this is the lost-end case:
            # the nudge waits stallMinutes, see test_lossy_stream_gives_exactly_one_nudge).
            await until(lambda: session() is not None and session().ended_confirmed, what="end")
            await fake.stop()  # killed ...
            await until(lambda: not r.runtime.connected)
            assert r.runtime.state_word() == "disconnected"
            await fake.start()  # ... and back on the same port
            await until(lambda: r.runtime.connected, what="reconnected")
            await r.advance(300.0, step=10.0)
            assert len(fake.synthetic_requests) == 1
    finally:
        await fake.stop()


async def test_a_slow_reader_is_dropped_and_the_supervisor_recovers(tmp_path: Path) -> None:
    """The server drops a reader that falls behind (2.x by design). The runtime is made slow
    by blocking its loop while the server, in its own thread, floods the stream."""
    fake = FakeV2Server(queue_size=4, send_buffer=4096)
    server = ServerThread(fake)
    try:
        fake_url_ready = server.call(fake.add_session, SID, str(tmp_path))
        assert fake_url_ready["id"] == SID
        async with rig(tmp_path, v2_connect(fake), fake=fake) as r:
            await until(lambda: r.runtime.connected)
            server.call(fake.set_active, SID)
            big = "x" * 65536
            for n in range(400):  # the runtime's loop is blocked: it cannot read
                server.call(
                    fake.emit,
                    "session.text.delta",
                    {"sessionID": SID, "delta": big, "n": n},
                    durable=False,
                )
                if fake.streams_dropped_slow:
                    break
            assert fake.streams_dropped_slow == 1
            await until(lambda: fake.streams_opened == 2, what="reconnect")
            await until(lambda: r.runtime.connected)
            # The resync trusted the snapshot: the session is busy, so no nudge.
            await until(lambda: SID in r.sessions())
            assert r.sessions()[SID]["state"] == "working"
            assert any(not s["host"]["connected"] for s in r.statuses)
            server.call(fake.active.clear)
            server.call(fake.emit, "session.execution.succeeded", {"sessionID": SID})
            await until(lambda: r.sessions()[SID]["state"] != "working", what="idle")
            await r.advance(120.0)
            await until(lambda: len(fake.synthetic_requests) == 1)
            await r.advance(120.0)
            assert len(fake.synthetic_requests) == 1
    finally:
        server.stop()


# --- the clock ----------------------------------------------------------------------------


SID = "ses_set_back"


class JumpingClock(FakeClock):
    """A wall clock that can be set (NTP, suspend / resume, a user changing the time): timers
    keep their loop-relative deadlines, the wall time just reads differently."""

    def jump(self, seconds: float) -> None:
        self._now += seconds  # no timer runs on the jump itself


def _jumping_runtime(tmp_path: Path) -> tuple[FakeHost, JumpingClock, Store, Runtime]:
    """A started runtime on a clock the test can set back or forward, over a fake 2.x host:
    settle 1 s, at most one nudge a minute."""
    host = FakeHost(kind="opencode-v2")
    clock = JumpingClock()
    store = Store(tmp_path / DB_NAME)

    async def connect() -> FakeHost:
        return host

    settings = SupervisorSettings(settle_ms=1000, min_nudge_interval_ms=60_000, stall_minutes=5)
    workspace = FakeWorkspace([str(tmp_path)], {str(tmp_path): ITEMS})
    runtime = Runtime(connect, store, settings, clock, workspace)
    runtime.start()
    return host, clock, store, runtime


@pytest.mark.parametrize("jump", [10 * 3600.0, -3600.0, -30.0], ids=["+10h", "-1h", "-30s"])
async def test_clock_jumps_cause_no_burst_and_no_crash(tmp_path: Path, jump: float) -> None:
    sessions = [f"ses_{n}" for n in range(3)]
    host, clock, store, runtime = _jumping_runtime(tmp_path)
    try:
        host.emit(ev.Connected("opencode-v2", "http://127.0.0.1:1", "2"), ev.Resynced(busy={}))
        for sid in sessions:
            host.emit(
                ev.SessionUpdated(ev.SessionInfo(sid, str(tmp_path))),
                ev.TurnStarted(sid),
                ev.StepStarted(sid, "m1"),
                ev.StepEnded(sid, "m1", "stop"),
            )
        await host.drained()
        clock.advance(2.0)
        await runtime.drain()
        assert sorted(s.session_id for s in host.sent) == sessions  # one each
        clock.advance(1.0)
        for sid in sessions:  # the agent works again: a later nudge is legitimate
            host.emit(
                ev.TurnStarted(sid), ev.StepStarted(sid, "m2"), ev.StepEnded(sid, "m2", "stop")
            )
        await host.drained()
        with logged() as log:
            clock.jump(jump)
            for _ in range(30):  # timers fire at their own pace after the jump
                clock.advance(1.0)
                await runtime.drain()
            assert not log.lines, log.lines
        # No burst: at most one more nudge per session, and only once the minimum interval
        # has passed on the clock as it now reads (a forward jump), never several at once.
        counts = {sid: sum(s.session_id == sid for s in host.sent) for sid in sessions}
        expected = 2 if jump > 0 else 1
        assert counts == dict.fromkeys(sessions, expected), counts
        statuses = runtime.status()["sessions"]
        assert {s["id"] for s in statuses} == set(sessions)
    finally:
        await runtime.stop()
        store.close()


async def test_after_the_clock_is_set_back_an_hour_the_next_nudge_waits_the_interval_not_the_hour(
    tmp_path: Path,
) -> None:
    """The last nudge now reads an hour in the future. How long ago it really was is unknown,
    so, as in the store, it no longer holds the next nudge back (measured against it, the
    minimum interval would last about an hour); the nudge after it is measured as usual."""
    host, clock, store, runtime = _jumping_runtime(tmp_path)

    async def turn(step: str) -> None:
        host.emit(ev.TurnStarted(SID), ev.StepStarted(SID, step), ev.StepEnded(SID, step, "stop"))
        await host.drained()

    try:
        host.emit(ev.Connected("opencode-v2", "http://127.0.0.1:1", "2"), ev.Resynced(busy={}))
        host.emit(ev.SessionUpdated(ev.SessionInfo(SID, str(tmp_path))))
        await turn("m1")
        clock.advance(2.0)
        await runtime.drain()
        assert len(host.sent) == 1
        clock.jump(-3600.0)
        await turn("m2")  # the agent worked on after the nudge: the next one is legitimate
        for _ in range(5):  # the settle (1 s) and a margin: far inside the hour
            clock.advance(1.0)
            await runtime.drain()
        assert len(host.sent) == 2
        for _ in range(120):  # no work since: the new nudge holds the next one back again
            clock.advance(1.0)
            await runtime.drain()
        assert len(host.sent) == 2
    finally:
        await runtime.stop()
        store.close()


# --- the editor side while the host is down -----------------------------------------------


async def test_editor_features_keep_working_while_the_host_is_unreachable(
    tmp_path: Path,
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "PLAN.md").write_text(lsp.PLAN, encoding="utf-8")
    url = f"http://127.0.0.1:{closed_port()}"
    settings = {"markdownFiles": ["PLAN.md"], "supervisor": {"url": url}}
    editor = await lsp.start_editor(root, "neovim", settings, tmp_path / "state")
    try:
        status = await editor.wait_status(
            lambda s: s.supervisor.host is not None and getattr(s.supervisor.host, "error", None)
        )
        assert status.supervisor.host.connected is False
        assert "unreachable" in status.supervisor.host.error
        uri = editor.open("PLAN.md")
        for _ in range(3):  # again and again while the supervisor keeps retrying
            diagnostics = await editor.pull(uri)
            listed = await editor.command("todoLs.list", {})
            assert len(diagnostics) == listed["open"] > 0
            await asyncio.sleep(0.5)
        result = await editor.command("todoLs.toggle", {"uri": uri, "line": 6})
        assert result["applied"] is True
    finally:
        await asyncio.wait_for(editor.client.shutdown_session(), 10)
        await editor.client.stop()
