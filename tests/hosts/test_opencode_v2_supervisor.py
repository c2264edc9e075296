"""The supervisor runtime on OpenCode 2.x: the real adapter over HTTP against the fake server.

Supervisor time is a `FakeClock` the tests advance; only the HTTP round trips take real time.
2.x has no session todo list, so every nudge here comes from the markdown items alone. Only what
is 2.x's own is here; the scenarios both hosts share (idle nudge with path:line refs, no nudge
while a tool runs, user interrupt and resume, other directories, restart) are in
test_supervisor_scenarios.py.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from support.fake_v2 import FakeV2Server
from support.scenarios import until

from todo_ls.checklist.model import FileItem
from todo_ls.core.clock import FakeClock
from todo_ls.hosts.base import Host
from todo_ls.hosts.http import Backoff, HostHttp
from todo_ls.hosts.opencode_v2.adapter import OpenCodeV2Host
from todo_ls.settings.model import SupervisorSettings
from todo_ls.store import Store
from todo_ls.supervisor.activity import SessionActivity
from todo_ls.supervisor.runtime import Runtime

pytestmark = pytest.mark.timeout(30)

SID = "ses_work"
SETTLE_S = 5.0


@dataclass
class Plan:
    """A workspace whose folder has one subscribed PLAN.md."""

    folder: str
    items: list[FileItem] = field(
        default_factory=lambda: [
            FileItem("PLAN.md", 2, "write the parser", "done"),
            FileItem("PLAN.md", 3, "write the tests", "open"),
            FileItem("PLAN.md", 4, "update the README", "open"),
        ]
    )

    def folders(self) -> list[str]:
        return [self.folder]

    def file_items(self, folder: str) -> list[FileItem]:
        return list(self.items) if folder == self.folder else []


@dataclass
class World:
    fake: FakeV2Server
    runtime: Runtime
    clock: FakeClock
    store: Store
    project: Path
    told_editor: list[str]  # what the runtime shows in the editor (2.x has no toast route)

    @property
    def nudges(self) -> list[dict[str, object]]:
        return [body for sid, body in self.fake.synthetic_requests if sid == SID]

    def seen(self, check: Callable[[SessionActivity], object]) -> Callable[[], bool]:
        """A condition on the tracker's record of the session (false while it has none)."""

        def condition() -> bool:
            session = self.runtime.tracker.sessions.get(SID)
            return session is not None and bool(check(session))

        return condition


async def drain(world: World) -> None:
    """Let in-flight HTTP (a nudge POST, its events) finish."""
    await asyncio.sleep(0.1)
    await world.runtime.drain()
    await asyncio.sleep(0.05)


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    project = tmp_path / "project"
    project.mkdir()
    fake = FakeV2Server()
    await fake.start()
    fake.add_session(SID, str(project), title="build the thing")
    clock = FakeClock(start=time.time())
    store = Store(tmp_path / "state" / "state.db")

    async def connect() -> Host:
        http = HostHttp(fake.url, password=fake.password)
        return OpenCodeV2Host(http, backoff=Backoff(initial=0.02, cap=0.1), shell_poll_s=0.05)

    told: list[str] = []
    runtime = Runtime(
        connect, store, SupervisorSettings(), clock, Plan(str(project)), on_user_message=told.append
    )
    runtime.start()
    await until(lambda: runtime.connected)
    yield World(fake, runtime, clock, store, project, told)
    await runtime.stop()
    await fake.stop()


async def caught_up(world: World, mark: str) -> None:
    """A barrier: rename the session and wait until the runtime sees the new title. The stream
    is ordered, so every event the host sent before has been handled by then."""
    info = world.fake.sessions[SID]
    info["title"] = mark
    world.fake.emit("session.updated", {"sessionID": SID, "info": info})
    await until(world.seen(lambda s: s.title == mark), what=f"the title {mark!r} seen")


async def finished_turn(world: World, **turn: object) -> None:
    """Run one turn on the host and wait until the runtime has seen it end."""
    await world.fake.run_turn(SID, **turn)  # type: ignore[arg-type]
    await until(world.seen(lambda s: s.busy is None and s.last_outcome))


async def test_nudge_after_the_settle_has_a_visible_description_and_tells_the_editor(
    world: World,
) -> None:
    await finished_turn(world)
    world.clock.advance(SETTLE_S - 1)
    await drain(world)
    assert world.nudges == []  # still settling
    world.clock.advance(1.5)
    await until(lambda: world.nudges)
    await drain(world)
    [nudge] = world.nudges
    assert str(nudge["description"]).strip()
    # No toast over HTTP on 2.x: the editor is told instead.
    assert len(world.told_editor) == 1 and "build the thing" in world.told_editor[0]
    status = world.runtime.status()
    assert status["host"]["kind"] == "opencode-v2" and status["host"]["version"] == "2.0.17"
    assert status["host"]["connected"] is True


async def test_shutdown_interrupt_is_not_a_user_interrupt(world: World) -> None:
    world.fake.emit("session.execution.started", {"sessionID": SID})
    await until(world.seen(lambda s: s.busy))
    world.fake.emit("session.execution.interrupted", {"sessionID": SID, "reason": "shutdown"})
    await world.fake.stop()
    world.fake.set_active(SID)  # the claim survived: the turn resumes on the next start
    await until(lambda: not world.runtime.connected)
    world.clock.advance(SETTLE_S * 2)
    await drain(world)
    assert SID not in world.store.pauses()
    assert world.nudges == []
    await world.fake.start()
    await until(lambda: world.runtime.connected)
    await finished_turn(world)
    world.clock.advance(SETTLE_S + 1)
    await until(lambda: world.nudges)
    assert len(world.nudges) == 1


async def test_a_background_shell_keeps_the_session_working(world: World) -> None:
    shell = world.fake.start_shell(SID, world.project / "build.out", "npm run build")
    await finished_turn(world)
    world.clock.advance(SETTLE_S * 4)
    await drain(world)
    assert world.nudges == []
    [session] = world.runtime.status()["sessions"]
    assert session["state"] == "working"
    world.fake.end_shell(shell)
    await until(world.seen(lambda s: not s.shells))
    world.clock.advance(SETTLE_S + 1)
    await until(lambda: world.nudges)
    assert len(world.nudges) == 1


async def test_a_printing_background_shell_defers_the_stall_nudge(world: World) -> None:
    # The adapter watches the capture file; the runtime only sees its ToolProgress events.
    out = world.project / "build.out"
    world.fake.start_shell(SID, out, "npm run build")
    await finished_turn(world)
    # Whatever the turn sent after its end is handled now, at the turn's time: from here the
    # only event that can move the quiet clock is the output written below.
    await caught_up(world, "after the turn")
    stall_s = SupervisorSettings().stall_minutes * 60
    world.clock.advance(stall_s - 30)
    await drain(world)
    before = world.runtime.tracker.sessions[SID].last_activity
    with out.open("a", encoding="utf-8") as f:
        f.write("compiling…\n")
    await until(world.seen(lambda s: s.last_activity > before), what="the output seen")
    world.clock.advance(60)  # past the threshold from the turn's end, not from the output
    await drain(world)
    assert world.nudges == []
    world.clock.advance(stall_s)
    await until(lambda: world.nudges)
    [nudge] = world.nudges
    assert str(nudge["text"]).startswith("Stall nudge #1")
    assert 'background shell "npm run build"' in str(nudge["text"])


async def test_lossy_stream_gives_exactly_one_nudge(world: World) -> None:
    world.fake.emit("session.execution.started", {"sessionID": SID})
    world.fake.set_active(SID)
    await until(world.seen(lambda s: s.busy))
    # The stream drops; the turn ends while we are away (its end event is lost).
    world.fake.drop_streams()
    world.fake.active.clear()
    await until(lambda: world.fake.streams_opened == 2 and world.runtime.connected)
    await until(world.seen(lambda s: not s.in_flight))
    world.clock.advance(SupervisorSettings().stall_minutes * 60 + 1)
    await until(lambda: world.nudges)
    # More drops and resyncs right after: they must not produce a second nudge.
    for n in (3, 4):
        world.fake.drop_streams()
        await until(lambda n=n: world.fake.streams_opened == n and world.runtime.connected)  # type: ignore[misc]
        world.clock.advance(SETTLE_S + 1)
        await drain(world)
    assert len(world.nudges) == 1


async def test_our_nudge_delivered_without_a_turn_is_not_agent_activity(world: World) -> None:
    # The host admits and delivers the nudge (inbox enqueued / delivered, session.synthetic)
    # a moment after the POST, and starts no turn: rule 4 holds, so one nudge, not one per
    # interval until the no-progress pause.
    world.runtime.settings = SupervisorSettings(settle_ms=200, min_nudge_interval_ms=1000)
    gate = world.fake.synthetic_events_gate = asyncio.Event()
    await finished_turn(world)
    world.clock.advance(0.3)
    await until(lambda: world.runtime.store.last_sent(SID), 5, "nudge #1 recorded as sent")
    world.clock.advance(0.05)  # the host's events come after the POST left
    gate.set()
    await until(world.seen(lambda s: s.seen_messages and not s.queued), 5, "nudge delivered")
    for _ in range(6):
        world.clock.advance(1.0)
        await drain(world)
    assert len(world.nudges) == 1
    [session] = world.runtime.status()["sessions"]
    assert (session["state"], session["pausedReason"]) == ("idle", None)
    # The agent's own turn is activity: the next opportunity gets nudge #2.
    turns = world.runtime.tracker.sessions[SID].turn_seq
    await world.fake.run_turn(SID)
    await until(world.seen(lambda s: s.ended_seq > turns and not s.in_flight), 5, "turn 2 ended")
    world.clock.advance(1.0)
    await until(lambda: len(world.nudges) == 2, 5, "nudge #2")
    assert str(world.nudges[1]["text"]).startswith("Idle nudge #2")
