"""The OpenCode 2.x adapter against the fake 2.x server (tests/support/fake_v2.py).

Both build variants of the reference appendix run every stream test: the newer build
(`/api/info`, bare `data:` frames) and the OpenAPI build (`/api/health`, Effect SSE items).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from support.fake_v2 import NEWER, OPENAPI_BUILD, FakeV2Server, Variant

from todo_ls.core import events as ev
from todo_ls.hosts.base import Capability, HostError
from todo_ls.hosts.http import Backoff, HostHttp
from todo_ls.hosts.opencode_v2.adapter import OpenCodeV2Host
from todo_ls.hosts.opencode_v2.identity import identify

pytestmark = pytest.mark.timeout(30)

VARIANTS = pytest.mark.parametrize("variant", [NEWER, OPENAPI_BUILD], ids=["newer", "openapi"])
FAST = Backoff(initial=0.02, cap=0.1)
SID = "ses_main"


async def _server(variant: Variant = NEWER, **kw: object) -> FakeV2Server:
    fake = FakeV2Server(variant=variant, **kw)  # type: ignore[arg-type]
    await fake.start()
    fake.add_session(SID, "/proj")
    return fake


def _host(fake: FakeV2Server, *, password: str | None = None, **kw: object) -> OpenCodeV2Host:
    http = HostHttp(fake.url, password=fake.password if password is None else password)
    return OpenCodeV2Host(http, backoff=FAST, **kw)  # type: ignore[arg-type]


class Events:
    """Pulls from `watch()` on demand, so a test can also leave the stream unread.

    A wait that times out leaves the pending read in place (cancelling it would end the
    adapter's generator), so the next wait picks it up.
    """

    def __init__(self, host: OpenCodeV2Host) -> None:
        self._stream: AsyncIterator[ev.HostEvent] = host.watch()
        self._next: asyncio.Future[ev.HostEvent] | None = None
        self.seen: list[ev.HostEvent] = []

    async def until(
        self, match: Callable[[ev.HostEvent], bool], timeout: float = 5.0
    ) -> list[ev.HostEvent]:
        """Events up to and including the first one that matches."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        got: list[ev.HostEvent] = []
        while True:
            if self._next is None:
                self._next = asyncio.ensure_future(self._stream.__anext__())
            done, _ = await asyncio.wait({self._next}, timeout=max(0, deadline - loop.time()))
            if not done:
                raise asyncio.TimeoutError(f"no match; got {got}")
            event = self._next.result()
            self._next = None
            got.append(event)
            self.seen.append(event)
            if match(event):
                return got

    async def of(self, kind: type, timeout: float = 5.0) -> list[ev.HostEvent]:
        return await self.until(lambda e: isinstance(e, kind), timeout)

    async def aclose(self) -> None:
        if self._next is not None:
            self._next.cancel()
            with contextlib.suppress(BaseException):
                await self._next
        await self._stream.aclose()  # type: ignore[attr-defined]


@contextlib.asynccontextmanager
async def _watching(
    fake: FakeV2Server, **kw: object
) -> AsyncIterator[tuple[OpenCodeV2Host, Events]]:
    """A host on `fake` (`kw` as `_host` takes them) with its event stream; the stream, the
    host and the fake server are closed on the way out, whatever the test did."""
    host = _host(fake, **kw)  # type: ignore[arg-type]
    events = Events(host)
    try:
        yield host, events
    finally:
        await events.aclose()
        await host.aclose()
        await fake.stop()


def _is(kind: type, **fields: object) -> Callable[[ev.HostEvent], bool]:
    return lambda e: isinstance(e, kind) and all(getattr(e, k) == v for k, v in fields.items())


# --- identity, reads, nudge --------------------------------------------------------------


@VARIANTS
async def test_identity_reads_and_capabilities(variant: Variant) -> None:
    fake = await _server(variant)
    fake.add_session("ses_child", "/proj", parent_id=SID, title="sub")
    fake.set_active("ses_child")
    host = _host(fake)
    try:
        found = await identify(host._http)
        assert found is not None and found.version == "2.0.17" and found.pid == fake.pid
        assert await host.session("ses_child") == ev.SessionInfo("ses_child", "/proj", SID, "sub")
        assert await host.session("ses_gone") is None
        assert await host.busy_sessions() == {"ses_child": "busy"}
        assert await host.toast("t", "m", "info") is False
        assert host.capabilities == {Capability.SESSION_INFO, Capability.BUSY_SNAPSHOT}
        assert host.info.kind == "opencode-v2"
    finally:
        await host.aclose()
        await fake.stop()


async def test_nudge_posts_synthetic_input_with_a_visible_description() -> None:
    fake = await _server()
    host = _host(fake)
    try:
        await host.nudge(SID, "Idle nudge #1 — 3 todos left.", "todo-ls: nudge #1")
        await host.nudge(SID, "again", "   ")
        assert fake.synthetic_requests == [
            (
                SID,
                {"text": "Idle nudge #1 — 3 todos left.", "description": "todo-ls: nudge #1"},
            ),
            (SID, {"text": "again", "description": "todo-ls nudge"}),
        ]
        with pytest.raises(HostError) as gone:
            await host.nudge("ses_deleted", "x", "y")
        assert gone.value.kind == "not-found"
        # An id from the wire stays one path segment: it cannot reach another route.
        with pytest.raises(HostError) as odd:
            await host.nudge(f"{SID}/synthetic?x=", "x", "y")
        assert odd.value.kind == "not-found" and len(fake.synthetic_requests) == 2
    finally:
        await host.aclose()
        await fake.stop()


async def test_wrong_password_is_unauthorized_and_never_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    fake = await _server()
    async with _watching(fake, password="wrong-secret-value") as (host, events):
        with pytest.raises(HostError) as denied:
            await host.busy_sessions()
        assert denied.value.kind == "unauthorized"
        dropped = await events.of(ev.Disconnected)
        assert "401" in dropped[-1].error  # type: ignore[union-attr]
        assert all("wrong-secret-value" not in r.getMessage() for r in caplog.records)
        assert not any(isinstance(e, ev.Connected) for e in events.seen)


# --- the stream ----------------------------------------------------------------------------


@VARIANTS
async def test_connect_resync_and_a_turn(variant: Variant) -> None:
    fake = await _server(variant)
    fake.add_session("ses_child", "/proj", parent_id=SID)
    fake.set_active("ses_child")
    async with _watching(fake) as (_, events):
        first = await events.of(ev.Resynced)
        connected, resynced = first
        assert isinstance(connected, ev.Connected) and connected.kind == "opencode-v2"
        assert connected.version == "2.0.17"
        assert isinstance(resynced, ev.Resynced)
        assert resynced.busy == {"ses_child": "busy"}
        # The busy child and its root, so the root counts as working.
        assert {s.id for s in resynced.sessions} == {"ses_child", SID}
        await fake.run_turn(SID, steps=2)
        got = await events.until(_is(ev.TurnEnded))
        assert got[0] == ev.TurnStarted(SID)
        assert [type(e).__name__ for e in got].count("StepEnded") == 2
        assert got[-1] == ev.TurnEnded(SID, "completed")


async def test_session_created_is_completed_from_the_session_route() -> None:
    fake = await _server()
    async with _watching(fake) as (_, events):
        await events.of(ev.Resynced)
        fake.add_session("ses_new", "/proj/sub", parent_id=SID, title="child")
        # The newest shape has no parentID here and an older one no location at all.
        fake.emit("session.created", {"sessionID": "ses_new", "info": {"id": "ses_new"}})
        got = await events.of(ev.SessionUpdated)
        assert got[-1] == ev.SessionUpdated(ev.SessionInfo("ses_new", "/proj/sub", SID, "child"))


async def test_a_slow_session_read_does_not_hold_the_stream() -> None:
    fake = await _server()
    async with _watching(fake) as (_, events):
        await events.of(ev.Resynced)
        fake.add_session("ses_new", "/proj/sub", parent_id=SID, title="child")
        fake.session_read_gate = asyncio.Event()
        fake.emit("session.created", {"sessionID": "ses_new", "info": {"id": "ses_new"}})
        fake.emit("session.execution.started", {"sessionID": SID})
        # The other session's events go on while the read waits for the host.
        got = await events.of(ev.TurnStarted)
        assert not any(isinstance(e, ev.SessionUpdated) for e in got)
        fake.session_read_gate.set()
        got = await events.of(ev.SessionUpdated)
        assert got[-1] == ev.SessionUpdated(ev.SessionInfo("ses_new", "/proj/sub", SID, "child"))


async def test_a_session_created_with_its_location_is_not_read_again() -> None:
    fake = await _server()
    async with _watching(fake) as (_, events):
        await events.of(ev.Resynced)
        fake.add_session("ses_new", "/proj/sub", parent_id=SID, title="child")
        data = {"sessionID": "ses_new", "id": "ses_new", "title": "child", "parentID": SID}
        fake.emit("session.created", {**data, "location": {"directory": "/proj/sub"}})
        got = await events.of(ev.SessionUpdated)
        assert got[-1] == ev.SessionUpdated(ev.SessionInfo("ses_new", "/proj/sub", SID, "child"))
        assert ("GET", "/api/session/ses_new") not in fake.requests


@VARIANTS
async def test_drop_reconnect_resync_and_seq_dedupe(variant: Variant) -> None:
    fake = await _server(variant)
    async with _watching(fake) as (_, events):
        await events.of(ev.Resynced)
        fake.emit("session.execution.started", {"sessionID": SID})
        await events.until(_is(ev.TurnStarted))
        fake.set_active(SID)
        fake.drop_streams()
        # Lost while we were away: the turn finished; the snapshot says so.
        await events.of(ev.Disconnected)
        fake.active.clear()
        got = await events.of(ev.Resynced)
        assert isinstance(got[0], ev.Connected)
        assert got[-1].busy == {}  # type: ignore[union-attr]
        # A replayed durable event (seq 1 again) is dropped; the next seq passes.
        fake.emit("session.execution.started", {"sessionID": SID}, seq=1)
        fake.emit("session.step.started", {"sessionID": SID, "assistantMessageID": "msg_x"})
        got = await events.of(ev.StepStarted)
        assert ev.TurnStarted(SID) not in got
        assert sum(isinstance(e, ev.Connected) for e in events.seen) == 2


async def test_server_restart_on_the_same_port_reconnects() -> None:
    fake = await _server()
    async with _watching(fake) as (host, events):
        await events.of(ev.Resynced)
        await fake.stop()
        await events.of(ev.Disconnected)
        fake.version = "2.0.18"
        await fake.start()
        got = await events.of(ev.Resynced)
        connected = next(e for e in got if isinstance(e, ev.Connected))
        assert connected.version == "2.0.18" and host.info.version == "2.0.18"


async def test_a_server_that_stays_down_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    fake = await _server()
    host = _host(fake)
    events = Events(host)
    caplog.set_level(logging.DEBUG, logger="todo_ls.hosts.opencode_v2.adapter")

    def lines(level: int, words: str) -> list[str]:
        return [
            r.getMessage()
            for r in caplog.records
            if r.name == "todo_ls.hosts.opencode_v2.adapter" and r.levelno == level
            if words in r.getMessage()
        ]

    try:
        await events.of(ev.Resynced)
        await fake.stop()
        for _ in range(4):  # the drop, then three refused reconnects
            await events.of(ev.Disconnected)
        await fake.start()
        await events.of(ev.Resynced)
        assert len(lines(logging.INFO, "lost")) == 1
        assert len(lines(logging.DEBUG, "still unavailable")) >= 3
        assert lines(logging.INFO, "reconnected") == ["opencode-v2 event stream reconnected"]
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    finally:
        await events.aclose()
        await host.aclose()
        await fake.stop()


async def test_a_slow_reader_is_dropped_and_resyncs() -> None:
    # A tiny queue and socket buffer: an adapter that stops reading overflows fast.
    fake = await _server(queue_size=4, send_buffer=4096)
    async with _watching(fake) as (_, events):
        await events.of(ev.Resynced)
        big = "x" * 65536
        for n in range(400):  # the adapter is not pulling: it is a slow reader now
            fake.emit("session.text.delta", {"sessionID": SID, "delta": big, "n": n}, durable=False)
            if fake.streams_dropped_slow:
                break
            await asyncio.sleep(0)
        assert fake.streams_dropped_slow == 1
        fake.set_active(SID)
        got = await events.of(ev.Resynced, timeout=10)
        assert any(isinstance(e, ev.Disconnected) for e in got)
        assert got[-1].busy == {SID: "busy"}  # type: ignore[union-attr]


async def test_a_silent_stream_is_ended_by_the_watchdog() -> None:
    fake = await _server(heartbeat_s=0.05)
    async with _watching(fake, idle_timeout=0.5) as (_, events):
        await events.of(ev.Resynced)
        # Heartbeats alone keep the stream alive well past the idle timeout.
        with pytest.raises(asyncio.TimeoutError):
            await events.of(ev.Disconnected, timeout=1.0)
        fake.go_silent()
        dropped = await events.of(ev.Disconnected, timeout=3)
        assert "nothing received" in dropped[-1].error  # type: ignore[union-attr]
        await events.of(ev.Resynced)


async def test_garbage_frames_and_unknown_events_are_skipped() -> None:
    fake = await _server()
    async with _watching(fake) as (_, events):
        await events.of(ev.Resynced)
        fake.emit_raw("data: {not json\n\n")
        fake.emit_raw("event: weird\nretry: x\nnonsense line\n\n")
        fake.emit_raw('data: ["a"]\n\n')
        fake.emit("mcp.status.changed", {"server": "x"}, durable=False)
        fake.emit("session.execution.started", {"sessionID": SID})
        got = await events.of(ev.TurnStarted)
        assert [type(e) for e in got] == [ev.TurnStarted]


# --- shells and queued input across a lossy stream --------------------------------------------


async def test_a_growing_capture_file_counts_as_activity(tmp_path: Path) -> None:
    fake = await _server()
    async with _watching(fake, shell_poll_s=0.05) as (_, events):
        await events.of(ev.Resynced)
        out = tmp_path / "sh.out"
        shell_id = fake.start_shell(SID, out, "npm run build")
        started = (await events.of(ev.ShellStarted))[-1]
        assert started == ev.ShellStarted(SID, shell_id, "npm run build", str(out))
        # Quiet file: no progress reported.
        with pytest.raises(asyncio.TimeoutError):
            await events.of(ev.ToolProgress, timeout=0.3)
        with out.open("a") as f:
            f.write("compiling…\n")
        assert (await events.of(ev.ToolProgress))[-1] == ev.ToolProgress(SID, shell_id)
        fake.end_shell(shell_id)
        assert (await events.of(ev.ShellEnded))[-1] == ev.ShellEnded(SID, shell_id)
        with out.open("a") as f:
            f.write("more\n")  # an ended shell is no longer watched
        with pytest.raises(asyncio.TimeoutError):
            await events.of(ev.ToolProgress, timeout=0.3)


async def test_shell_exit_and_delivery_lost_in_a_drop_are_healed_on_resync(
    tmp_path: Path,
) -> None:
    fake = await _server()
    async with _watching(fake) as (_, events):
        await events.of(ev.Resynced)
        kept = fake.start_shell(SID, tmp_path / "a.out", "sleep 600")
        lost = fake.start_shell(SID, tmp_path / "b.out", "make")
        inbox_id = fake.user_prompt(SID, "please continue", deliver=False)
        got = await events.until(_is(ev.UserMessage))
        assert got[-1] == ev.UserMessage(SID, synthetic=False, message_id=inbox_id)
        fake.drop_streams()
        await events.of(ev.Disconnected)
        fake.end_shell(lost, emit=False)
        fake.deliver(SID, inbox_id, emit=False)
        got = await events.until(_is(ev.InputDelivered))
        resync_at = next(i for i, e in enumerate(got) if isinstance(e, ev.Resynced))
        healed = got[resync_at + 1 :]
        assert ev.ShellEnded(SID, lost) in healed
        assert ev.ShellEnded(SID, kept) not in healed
        assert healed[-1] == ev.InputDelivered(SID, inbox_id)


# --- synthetic input wakes the session, like a real host ----------------------------------------


async def test_a_nudge_wakes_the_session() -> None:
    fake = await _server()
    fake.on_synthetic = lambda sid, body: fake.run_turn(sid)
    async with _watching(fake) as (host, events):
        await events.of(ev.Resynced)
        await host.nudge(SID, "continue", "todo-ls: idle nudge #1")
        got = await events.until(_is(ev.TurnEnded))
        kinds = [type(e) for e in got]
        assert kinds[:3] == [ev.InputQueued, ev.InputDelivered, ev.UserMessage]
        assert got[2] == ev.UserMessage(SID, synthetic=True, message_id=got[2].message_id)  # type: ignore[union-attr]
        assert ev.TurnStarted(SID) in got and got[-1] == ev.TurnEnded(SID, "completed")
