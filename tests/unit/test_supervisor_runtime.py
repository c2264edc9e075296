"""The supervisor runtime with a FakeClock, the in-memory host and a real Store in tmp."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from support.fake_host import ALL_CAPABILITIES, FakeHost, FakeWorkspace

from todo_ls.checklist.model import FileItem
from todo_ls.core import events as ev
from todo_ls.core.clock import FakeClock
from todo_ls.hosts.base import Capability, Host, HostError
from todo_ls.settings.model import SupervisorSettings
from todo_ls.store import Store
from todo_ls.supervisor.delivery import NudgeSent
from todo_ls.supervisor.runtime import Runtime

S = "ses_a"
TODOS = (
    ev.SessionTodo("Write the parser", "in_progress", "high"),
    ev.SessionTodo("Add unit tests", "pending", "medium"),
)


class Harness:
    """One runtime: its clock, host, store and workspace, plus what it told the user."""

    def __init__(
        self,
        tmp_path: Path,
        settings: SupervisorSettings | None = None,
        clock: FakeClock | None = None,
        capabilities: frozenset[Capability] = ALL_CAPABILITIES,
        connect_errors: int = 0,
        more_folders: tuple[str, ...] = (),
        folder_settings: Callable[[str], SupervisorSettings | None] | None = None,
    ) -> None:
        self.project = str(tmp_path / "project")
        self.clock = clock or FakeClock()
        self.host = FakeHost(capabilities)
        self.store = Store(tmp_path / "state.db")
        self.workspace = FakeWorkspace([self.project, *more_folders])
        self.messages: list[str] = []
        self.nudged: list[NudgeSent] = []
        self.changes = 0
        self.connects = 0
        self._connect_errors = connect_errors
        self.rt = Runtime(
            self._connect,
            self.store,
            settings or SupervisorSettings(),
            self.clock,
            self.workspace,
            on_change=self._changed,
            on_user_message=self.messages.append,
            on_nudge=self.nudged.append,
            folder_settings=folder_settings,
        )

    async def _connect(self) -> Host:
        self.connects += 1
        if self.connects <= self._connect_errors:
            raise HostError("unreachable", "connection refused")
        return self.host

    def _changed(self) -> None:
        self.changes += 1

    async def start(self, busy: dict[str, ev.BusyKind] | None = None) -> None:
        self.rt.start()
        self.host.emit(
            ev.Connected("opencode-v1", "http://127.0.0.1:4096", "1.18.33"),
            ev.Resynced(busy=busy or {}),
        )
        await self.drain()

    async def drain(self) -> None:
        await self.host.drained()
        await self.rt.drain()

    async def emit(self, *events: ev.HostEvent) -> None:
        self.host.emit(*events)
        await self.drain()

    async def advance(self, seconds: float) -> None:
        self.clock.advance(seconds)
        await self.drain()

    async def turn(
        self,
        sid: str = S,
        todos: tuple[ev.SessionTodo, ...] = TODOS,
        end: ev.TurnEnded | None = None,
        prompt: str | None = "m",
        directory: str | None = None,
    ) -> None:
        """A session does one turn: the user prompts, it works, updates todos, ends."""
        events: list[ev.HostEvent] = [
            ev.SessionUpdated(ev.SessionInfo(sid, directory or self.project, None, "plan"))
        ]
        if prompt:
            events.append(ev.UserMessage(sid, False, f"{prompt}-{self.clock.now()}"))
        events += [
            ev.TurnStarted(sid),
            ev.StepStarted(sid, "s1"),
            ev.TodosUpdated(sid, todos),
            ev.StepEnded(sid, "s1", "tool-calls"),
            end or ev.TurnEnded(sid, "idle"),
        ]
        await self.emit(*events)

    def session(self, sid: str = S) -> dict[str, Any]:
        return next(s for s in self.rt.status()["sessions"] if s["id"] == sid)

    async def close(self) -> None:
        await self.rt.stop()
        self.store.close()


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    harness = Harness(tmp_path)
    await harness.start()
    yield harness
    await harness.close()


async def test_exactly_one_nudge_per_opportunity(h: Harness) -> None:
    await h.turn()
    await h.advance(4.9)
    assert h.host.sent == []
    assert h.session()["state"] == "idle"
    await h.advance(0.1)
    assert len(h.host.sent) == 1
    first = h.host.sent[0]
    assert first.session_id == S
    assert first.text.startswith("Idle nudge #1 — the session went idle with 2 of 2 todos left.")
    assert first.description == "todo-ls idle nudge #1"
    assert h.host.toasts and "Idle nudge #1" in h.host.toasts[0][1]
    await h.advance(3600)  # nothing happened since: the same opportunity
    assert len(h.host.sent) == 1
    await h.turn(prompt=None)  # the nudge made the agent work, the set is unchanged
    await h.advance(5)
    assert [s.text.splitlines()[0][:14] for s in h.host.sent] == [
        "Idle nudge #1 ",
        "Idle nudge #2 ",
    ]
    assert [n.number for n in h.store.nudges(S)] == [1, 2]
    assert h.session()["nudges"] == 2


async def test_each_workspace_folder_has_its_own_supervisor_settings(tmp_path: Path) -> None:
    quick, off = str(tmp_path / "quick"), str(tmp_path / "off")
    own = {quick: SupervisorSettings(settle_ms=1000), off: SupervisorSettings(enabled=False)}
    h = Harness(tmp_path, more_folders=(quick, off), folder_settings=own.get)
    await h.start()
    try:
        await h.turn("ses_quick", directory=quick)
        await h.turn("ses_off", directory=off)
        await h.turn(S)  # the first folder has no settings of its own: the runtime's (5 s)
        await h.advance(1.0)
        assert [s.session_id for s in h.host.sent] == ["ses_quick"]
        await h.advance(4.0)
        assert [s.session_id for s in h.host.sent] == ["ses_quick", S]
        await h.advance(120.0)  # the folder with the supervisor off is never nudged
        assert "ses_off" not in {s.session_id for s in h.host.sent}
    finally:
        await h.close()


async def test_rate_limit_between_nudges(h: Harness) -> None:
    await h.turn()
    await h.advance(5)
    await h.advance(1)
    await h.turn(prompt=None)  # the agent answered the nudge within seconds
    await h.advance(43)
    assert len(h.host.sent) == 1
    await h.advance(1)  # 45 s after the first
    assert len(h.host.sent) == 2


async def test_no_nudge_while_a_tool_runs_then_a_stall_nudge(h: Harness) -> None:
    await h.turn()
    await h.advance(5)
    await h.advance(1)
    await h.emit(ev.TurnStarted(S), ev.ToolStarted(S, "c1", "bash", "pytest -x"))
    await h.advance(299)
    assert len(h.host.sent) == 1
    assert h.session()["state"] == "working"
    assert h.session()["detail"] == "1 tool · quiet 4m"
    await h.advance(1)
    assert len(h.host.sent) == 2
    stall = h.host.sent[1].text.splitlines()[0]
    assert stall == (
        'Stall nudge #2 — no activity for ~5.0 min from: tool bash "pytest -x" '
        "(stall threshold 5 min)."
    )
    await h.advance(3600)
    assert len(h.host.sent) == 2  # one stall nudge per quiet period


async def test_output_of_a_running_tool_is_not_quiet(h: Harness) -> None:
    await h.emit(
        ev.SessionUpdated(ev.SessionInfo(S, h.project)),
        ev.TurnStarted(S),
        ev.TodosUpdated(S, TODOS),
        ev.ToolStarted(S, "c1", "bash", "make"),
    )
    for _ in range(10):
        await h.advance(200)
        await h.emit(ev.ToolProgress(S, "c1"))
    assert h.host.sent == []


async def test_second_runtime_on_the_same_store_does_not_double_nudge(tmp_path: Path) -> None:
    clock = FakeClock()
    a = Harness(tmp_path, clock=clock)
    b = Harness(tmp_path, clock=clock)
    b.project = a.project
    b.workspace.roots = [a.project]
    try:
        await a.start()
        await b.start()
        for harness in (a, b):
            await harness.turn()
        clock.advance(5)
        await a.drain()
        await b.drain()
        assert len(a.host.sent) + len(b.host.sent) == 1
        for _ in range(20):
            clock.advance(60)
            await a.drain()
            await b.drain()
        assert len(a.host.sent) + len(b.host.sent) == 1
    finally:
        await a.close()
        await b.close()


async def test_session_deleted_mid_flight(h: Harness, caplog: pytest.LogCaptureFixture) -> None:
    await h.turn()
    h.host.nudge_error = HostError("not-found", "Session not found: ses_a")
    with caplog.at_level(logging.WARNING):
        await h.advance(5)
        await h.advance(600)
    assert h.host.sent == []
    assert h.rt.status()["sessions"] == []
    gone = [r for r in caplog.records if "is gone" in r.getMessage()]
    assert len(gone) == 1
    assert h.store.nudges(S) == []  # the claim was settled as not sent


async def test_failed_delivery_backs_off_and_shows_in_status(h: Harness) -> None:
    await h.turn()
    h.host.nudge_error = HostError("server", "500 Internal Server Error")
    await h.advance(5)
    host = h.rt.status()["host"]
    assert host["error"].startswith("nudge failed")
    attempts = h.store.nudges(S)
    assert attempts == []
    h.host.nudge_error = None
    await h.advance(30)
    assert h.host.sent == []  # held back, no hammering
    await h.advance(20)
    assert len(h.host.sent) == 1


async def test_reconnect_and_resync_do_not_double_nudge(h: Harness) -> None:
    await h.turn()
    await h.advance(5)
    assert len(h.host.sent) == 1
    await h.emit(ev.Disconnected("peer closed connection"))
    assert h.rt.status()["host"]["connected"] is False
    assert h.rt.state_word() == "disconnected"
    await h.advance(60)
    await h.emit(
        ev.Connected("opencode-v1", "http://127.0.0.1:4096", "1.18.33"),
        ev.Resynced(busy={}, sessions=(ev.SessionInfo(S, h.project),), todos={S: TODOS}),
    )
    await h.advance(3600)
    assert len(h.host.sent) == 1
    assert h.rt.status()["host"]["connected"] is True


async def test_a_discovered_server_that_stays_gone_is_looked_for_again(tmp_path: Path) -> None:
    # Without a URL setting the server was found by discovery; one that does not come back may
    # run again elsewhere (a TUI restarted on another port), so `connect` runs again.
    moved = FakeHost()
    hosts = iter([FakeHost(), moved])
    connects: list[FakeHost] = []

    async def connect() -> Host:
        connects.append(next(hosts))
        return connects[-1]

    clock = FakeClock()
    rt = Runtime(
        connect, Store(tmp_path / "state.db"), SupervisorSettings(), clock,
        FakeWorkspace([str(tmp_path)]), rediscover=True,
    )  # fmt: skip
    rt.start()
    await _until(lambda: connects)
    first = connects[0]
    first.emit(ev.Connected("opencode-v1", "http://127.0.0.1:41001", "1.18.33"))
    first.emit(ev.Disconnected("refused"), ev.Connected("opencode-v1", "x", "1.18.33"))
    first.emit(ev.Disconnected("refused"))  # one failed reconnect: maybe a short restart
    await first.drained()
    assert len(connects) == 1 and not first.closed
    first.emit(ev.Disconnected("refused"))  # the second one in a row: gone
    await _until(lambda: first.closed)
    clock.advance(2)  # the runtime's retry delay
    await _until(lambda: len(connects) == 2)
    moved.emit(ev.Connected("opencode-v1", "http://127.0.0.1:41002", "1.18.33"))
    await moved.drained()
    assert rt.connected and rt.host is moved
    await rt.stop()


async def test_a_configured_server_is_only_reconnected(h: Harness) -> None:
    await h.start()
    await h.emit(*[ev.Disconnected("refused") for _ in range(5)])
    await h.advance(60)
    assert h.connects == 1 and not h.host.closed


async def _until(condition: Callable[[], object]) -> None:
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("condition not reached")


async def test_restart_does_not_double_nudge(tmp_path: Path) -> None:
    first = Harness(tmp_path)
    await first.start()
    await first.turn()
    await first.advance(5)
    assert len(first.host.sent) == 1
    await first.close()
    second = Harness(tmp_path, clock=first.clock)
    try:
        await second.start()
        await second.emit(
            ev.Resynced(busy={}, sessions=(ev.SessionInfo(S, second.project),), todos={S: TODOS})
        )
        await second.advance(3600)
        assert second.host.sent == []
    finally:
        await second.close()


async def test_recheck_race_with_a_user_prompt(h: Harness) -> None:
    await h.turn()
    h.host.busy_on_nudge_check = {S: "busy"}  # the user prompted just before we send
    await h.advance(5)
    assert h.host.sent == []
    assert h.session()["state"] == "working"
    assert h.store.nudges(S) == []
    h.host.busy_on_nudge_check = {}
    await h.emit(ev.TurnEnded(S, "idle"))
    await h.advance(5)
    assert len(h.host.sent) == 1


async def test_interrupt_pauses_persistently_and_a_real_prompt_resumes(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    await h.start()
    await h.turn(end=ev.TurnEnded(S, "interrupted", "MessageAbortedError", by_user=True))
    await h.emit(ev.TurnEnded(S, "idle"), ev.TurnEnded(S, "idle"))
    await h.advance(600)
    assert h.host.sent == []
    assert h.session()["state"] == "paused"
    assert h.session()["pausedReason"] == "interrupt"
    assert h.store.pauses()[S].reason == "interrupt"
    await h.close()

    h2 = Harness(tmp_path, clock=h.clock)  # todo-ls restarted: the pause survives
    try:
        await h2.start()
        await h2.emit(ev.UserMessage(S, True, "nudge-from-elsewhere"))
        await h2.turn(prompt=None)
        await h2.advance(600)
        assert h2.host.sent == []
        assert h2.session()["pausedReason"] == "interrupt"
        await h2.turn(prompt="real")  # the user writes again
        assert S not in h2.store.pauses()
        await h2.advance(5)
        assert len(h2.host.sent) == 1
    finally:
        await h2.close()


async def test_interrupt_pause_can_be_switched_off(tmp_path: Path) -> None:
    h = Harness(tmp_path, SupervisorSettings(pause_on_interrupt=False))
    await h.start()
    try:
        await h.turn(end=ev.TurnEnded(S, "interrupted", "MessageAbortedError", by_user=True))
        await h.advance(5)
        assert len(h.host.sent) == 1
    finally:
        await h.close()


async def test_repeated_ends_of_a_decided_turn_are_not_re_decided_and_change_no_nudge(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1.x ends each turn three times (the final step, the idle status, `session.idle`): the
    repeats are not decided again, and the nudge still comes once, `settleMs` after the end."""
    decided: list[str] = []
    decide = h.rt.decide
    monkeypatch.setattr(h.rt, "decide", lambda sid: decided.append(sid) or decide(sid))
    await h.turn(end=ev.StepEnded(S, "s2", "stop"))  # the final step ends the turn
    assert decided and h.session()["state"] == "idle"
    decided.clear()
    await h.advance(3)
    await h.emit(ev.TurnEnded(S, "idle"), ev.TurnEnded(S, "idle"))
    assert decided == []
    await h.advance(1.9)
    assert h.host.sent == []
    await h.advance(0.1)  # settleMs after the first end, not after the repeats
    assert len(h.host.sent) == 1
    await h.emit(ev.TurnEnded(S, "idle"))
    await h.advance(600)
    assert len(h.host.sent) == 1


async def test_an_interrupt_after_the_end_of_the_turn_is_still_decided(h: Harness) -> None:
    await h.turn()
    await h.emit(ev.TurnEnded(S, "idle"))  # a repeat: skipped
    changes = h.changes
    await h.emit(ev.TurnEnded(S, "interrupted", "MessageAbortedError", by_user=True))
    assert h.changes > changes  # the status moved at once, not at the next timer
    assert h.session()["pausedReason"] == "interrupt"
    await h.advance(600)
    assert h.host.sent == []


async def test_a_failed_turn_pauses_until_the_user_writes(h: Harness) -> None:
    # OpenCode retries retryable provider errors itself; what ends a turn as failed (a 400,
    # bad credentials, a context overflow) would fail the nudge's turn the same way.
    failure = ev.TurnEnded(S, "failed", "APIError: bad request (fake)")
    await h.turn(end=failure)
    await h.emit(ev.TurnEnded(S, "idle"), ev.TurnEnded(S, "idle"))  # v1 repeats the idle pair
    await h.advance(600)
    assert h.host.sent == []
    assert h.session()["state"] == "paused"
    assert h.session()["pausedReason"] == "error"
    assert "paused: error (APIError: bad request (fake))" in h.session()["detail"]
    await h.turn(prompt="real")  # the user writes: the next turn ends normally
    assert S not in h.store.pauses()
    await h.advance(5)
    assert len(h.host.sent) == 1


async def test_resume_after_a_failed_turn_sends_one_nudge_and_the_next_failure_pauses_again(
    h: Harness,
) -> None:
    await h.turn(end=ev.TurnEnded(S, "failed", "ProviderAuthError"))
    await h.advance(600)
    assert h.host.sent == []
    h.rt.resume(S)
    await h.advance(5)
    assert len(h.host.sent) == 1
    await h.turn(prompt=None, end=ev.TurnEnded(S, "failed", "ProviderAuthError"))
    await h.advance(600)
    assert len(h.host.sent) == 1
    assert h.session()["pausedReason"] == "error"


async def test_a_failed_child_turn_leaves_its_root_supervised(h: Harness) -> None:
    child = "ses_child"
    await h.emit(ev.SessionUpdated(ev.SessionInfo(child, h.project, S, "Explore")))
    await h.turn(sid=child, prompt=None, end=ev.TurnEnded(child, "failed", "APIError"))
    await h.turn()
    await h.advance(5)
    assert [n.session_id for n in h.host.sent] == [S]
    assert h.store.pauses() == {}


async def test_an_interrupt_or_failure_keeps_the_pause_commands_pause(h: Harness) -> None:
    await h.turn()
    h.rt.pause(S)
    await h.emit(ev.TurnStarted(S))
    await h.emit(ev.TurnEnded(S, "interrupted", "MessageAbortedError", by_user=True))
    await h.turn(prompt=None, end=ev.TurnEnded(S, "failed", "APIError"))
    assert h.store.pauses()[S].reason == "user"  # a prompt would lift the other two
    await h.turn(prompt="real")
    await h.advance(600)
    assert h.host.sent == []
    assert h.session()["pausedReason"] == "user"


async def test_start_forgets_the_history_of_sessions_quiet_for_a_month(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    await h.start()
    await h.turn()
    await h.advance(5)
    assert [n.session_id for n in h.host.sent] == [S]
    await h.close()

    clock = FakeClock(h.clock.now() + 31 * 24 * 3600)
    h2 = Harness(tmp_path, clock=clock)
    try:
        await h2.start()
        assert h2.store.nudges(S) == []
        await h2.turn()
        await h2.advance(5)
        [nudge] = h2.host.sent
        assert nudge.text.startswith("Idle nudge #1")
    finally:
        await h2.close()


async def test_pending_permission_is_waiting_never_nudged(h: Harness) -> None:
    await h.turn()
    await h.emit(ev.TurnStarted(S), ev.PermissionAsked(S, "per_1", "bash rm -rf build"))
    await h.advance(3600)
    assert h.host.sent == []
    assert h.session()["state"] == "waiting"
    assert h.session()["detail"] == "bash rm -rf build"
    assert h.rt.state_word() == "waiting"


async def test_busy_child_keeps_root_working_and_child_is_never_nudged(h: Harness) -> None:
    await h.turn()
    child = "ses_child"
    await h.emit(
        ev.TurnStarted(S),
        ev.SessionUpdated(ev.SessionInfo(child, h.project, S, "Explore")),
        ev.ToolStarted(S, "c1", "task", "Explore", child),
        ev.TodosUpdated(child, TODOS),
        ev.TurnStarted(child),
        ev.TurnEnded(child, "idle"),  # the child idles while the root's tool still runs
    )
    await h.advance(60)
    assert h.host.sent == []
    assert [s["id"] for s in h.rt.status()["sessions"]] == [S]


async def test_no_progress_pause_then_resume_on_change(tmp_path: Path) -> None:
    settings = SupervisorSettings(max_no_progress_nudges=2, min_nudge_interval_ms=0)
    h = Harness(tmp_path, settings)
    await h.start()
    try:
        await h.turn()
        for _ in range(4):
            await h.advance(5)
            await h.turn(prompt=None)  # works, changes nothing
        assert len(h.host.sent) == 2
        assert h.session()["state"] == "paused"
        assert h.session()["pausedReason"] == "no-progress"
        done_one = (ev.SessionTodo("Write the parser", "completed", "high"), TODOS[1])
        await h.turn(todos=done_one, prompt=None)
        await h.advance(5)
        assert len(h.host.sent) == 3
        assert "1 of 2 todos left" in h.host.sent[-1].text
    finally:
        await h.close()


async def test_episode_cap_then_a_real_prompt_starts_a_new_episode(tmp_path: Path) -> None:
    settings = SupervisorSettings(max_nudges_per_episode=2, min_nudge_interval_ms=0)
    h = Harness(tmp_path, settings)
    await h.start()
    try:
        await h.turn()
        for step in range(4):  # the set changes every turn: progress, but the cap holds
            await h.advance(5)
            todos = (*TODOS, ev.SessionTodo(f"new {step}", "pending"))
            await h.turn(todos=todos, prompt=None)
        assert len(h.host.sent) == 2
        assert h.session()["pausedReason"] == "episode-cap"
        await h.turn(prompt="again")
        await h.advance(5)
        assert len(h.host.sent) == 3
        assert h.host.sent[-1].text.startswith("Idle nudge #1")
    finally:
        await h.close()


async def test_manual_nudge_respects_working_and_waiting(h: Harness) -> None:
    await h.turn()
    await h.advance(5)
    assert len(h.host.sent) == 1
    result = await h.rt.nudge(S)  # the automatic one would be deduped: the user insists
    assert result == {"sent": [S], "skipped": []}
    assert h.host.sent[-1].text.startswith("Nudge #2 (sent by the user)")
    await h.emit(ev.TurnStarted(S))
    assert await h.rt.nudge(None) == {
        "sent": [],
        "skipped": [{"sessionID": S, "reason": "the session is working"}],
    }
    await h.emit(ev.PermissionAsked(S, "per_1", "bash"))
    result = await h.rt.nudge(S)
    assert result["skipped"][0]["reason"] == "waiting for the user"
    unknown = await h.rt.nudge("ses_nope")
    assert unknown["skipped"] == [{"sessionID": "ses_nope", "reason": "not a supervised session"}]


async def test_pause_and_resume_commands(h: Harness) -> None:
    await h.turn()
    assert h.rt.pause(None) == {"sessions": [{"id": S, "state": "paused"}]}
    assert h.store.pauses()[S].reason == "user"
    await h.turn(prompt="real")  # a real prompt does not lift a pause made by the command
    await h.advance(600)
    assert h.host.sent == []
    assert h.rt.resume(S) == {"sessions": [{"id": S, "state": "idle"}]}
    await h.advance(5)
    assert len(h.host.sent) == 1


async def test_scope_project_ignores_other_directories(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    await h.start()
    try:
        await h.turn("ses_other", directory=str(tmp_path / "elsewhere"))
        await h.turn("ses_sub", directory=str(Path(h.project) / "pkg"))
        await h.advance(600)
        assert [s.session_id for s in h.host.sent] == ["ses_sub"]
        assert [s["id"] for s in h.rt.status()["sessions"]] == ["ses_sub"]
    finally:
        await h.close()
    everywhere = Harness(tmp_path / "all", SupervisorSettings(scope="all"))
    await everywhere.start()
    try:
        await everywhere.turn("ses_other", directory=str(tmp_path / "elsewhere"))
        await everywhere.advance(5)
        assert [s.session_id for s in everywhere.host.sent] == ["ses_other"]
    finally:
        await everywhere.close()


async def test_markdown_only_nudge_and_files_changed(h: Harness) -> None:
    h.workspace.items[h.project] = [
        FileItem("PLAN.md", 3, "Write the parser", "open"),
        FileItem("PLAN.md", 4, "Ask about the licence", "blocked"),
    ]
    await h.turn(todos=())
    await h.advance(5)
    assert len(h.host.sent) == 1
    text = h.host.sent[0].text
    assert "- Write the parser — PLAN.md:3" in text
    assert "Ask about the licence" not in text
    h.workspace.items[h.project] = [FileItem("PLAN.md", 3, "Write the parser", "done")]
    h.rt.files_changed()
    assert h.session()["state"] == "done"
    assert h.rt.state_word() == "done"


async def test_sessions_due_together_share_one_busy_check(h: Harness) -> None:
    sessions = [f"ses_{n}" for n in range(6)]
    for sid in sessions:
        await h.turn(sid)
    h.host.busy_on_nudge_check = {"ses_3": "busy"}  # the user prompted this one just now
    await h.advance(5)
    assert sorted(s.session_id for s in h.host.sent) == [s for s in sessions if s != "ses_3"]
    # Six nudges due at the same moment asked the host once or twice, not six times.
    assert 1 <= h.host.busy_checks <= 2


async def test_nudges_sent_together_share_a_toast(h: Harness) -> None:
    sessions = [f"ses_{n}" for n in range(6)]
    for sid in sessions:
        await h.turn(sid)
    await h.advance(5)
    assert len(h.host.sent) == 6
    toasts = [message for _, message, _ in h.host.toasts]
    assert 1 <= len(toasts) < 6, toasts
    # Every nudge is told: counted in a shared toast, or in one of its own.
    told = sum(int(t.split(" sessions nudged")[0]) if "sessions nudged" in t else 1 for t in toasts)
    assert told == 6
    shared = next(t for t in toasts if "sessions nudged" in t)
    assert shared.endswith(": plan, plan, plan and 3 more.") or shared.endswith("plan.")


async def test_blocked_only_is_never_nudged(h: Harness) -> None:
    h.workspace.items[h.project] = [FileItem("PLAN.md", 4, "Ask about the licence", "blocked")]
    await h.turn(todos=())
    await h.advance(3600)
    assert h.host.sent == []
    assert h.session()["state"] == "waiting"


async def test_without_toasts_the_editor_is_told(tmp_path: Path) -> None:
    caps = ALL_CAPABILITIES - {Capability.TOAST}
    h = Harness(tmp_path, capabilities=caps)
    await h.start()
    try:
        await h.turn()
        await h.advance(5)
        assert h.host.toasts == []
        assert h.messages == ["plan: Idle nudge #1 — the session went idle with 2 of 2 todos left."]
        assert [n.kind for n in h.nudged] == ["idle"]
    finally:
        await h.close()


async def test_status_shape(h: Harness) -> None:
    await h.turn()
    status = h.rt.status()
    assert status["enabled"] is True
    assert status["host"] == {
        "kind": "opencode-v1",
        "url": "http://127.0.0.1:4096",
        "connected": True,
        "version": "1.18.33",
    }
    assert status["sessions"] == [
        {
            "id": S,
            "host": "opencode-v1",
            "title": "plan",
            "state": "idle",
            "detail": "quiet 0s · nudge in 5s",
            "open": 2,
            "nudges": 0,
            "pausedReason": None,
            # The session's own (todowrite) list: both items still pending.
            "todos": {"open": 2, "total": 2},
        }
    ]
    assert h.changes > 0


async def test_unreachable_host_retries_with_backoff(tmp_path: Path) -> None:
    h = Harness(tmp_path, connect_errors=2)
    try:
        h.rt.start()
        await h.drain()
        status = h.rt.status()["host"]
        assert status["connected"] is False
        assert status["error"] == "connection refused"
        assert h.rt.state_word() == "disconnected"
        await h.advance(2)
        assert h.connects == 2
        await h.advance(4)
        assert h.connects == 3
        h.host.emit(ev.Connected("opencode-v1", "u", "1"), ev.Resynced(busy={}))
        await h.drain()
        assert h.rt.status()["host"]["connected"] is True
        assert "error" not in h.rt.status()["host"]
    finally:
        await h.close()


async def test_a_dropped_stream_is_watched_again(h: Harness) -> None:
    h.host.emit(HostError("protocol", "garbage"))
    await h.drain()
    assert h.rt.status()["host"]["connected"] is False
    await h.advance(2)
    await h.emit(ev.Connected("opencode-v1", "u", "1"), ev.Resynced(busy={}))
    await h.turn()
    await h.advance(5)
    assert len(h.host.sent) == 1


async def test_bad_events_and_failing_sources_do_not_stop_it(
    h: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(folder: str) -> list[FileItem]:
        raise OSError("disk on fire")

    h.workspace.file_items = broken  # type: ignore[method-assign]
    with caplog.at_level(logging.ERROR):
        await h.turn()
        await h.emit(object())  # type: ignore[arg-type]
    assert caplog.records
    h.workspace.file_items = FakeWorkspace([h.project]).file_items  # type: ignore[method-assign]
    await h.turn(prompt=None)
    await h.advance(5)
    assert len(h.host.sent) == 1


async def test_unknown_session_is_looked_up(h: Harness) -> None:
    h.host.sessions["ses_new"] = ev.SessionInfo("ses_new", h.project, None, "late")
    await h.emit(
        ev.TurnStarted("ses_new"),
        ev.TodosUpdated("ses_new", TODOS),
        ev.TurnEnded("ses_new", "idle"),
    )
    await h.advance(5)
    assert [s.session_id for s in h.host.sent] == ["ses_new"]


async def test_a_failed_lookup_is_one_warning_without_traceback(
    h: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    async def refused(session_id: str) -> ev.SessionInfo | None:
        raise HostError("unreachable", f"GET /session/{session_id}: connection refused")

    h.host.session = refused  # type: ignore[method-assign]
    with caplog.at_level(logging.DEBUG, logger="todo_ls.supervisor"):
        await h.emit(ev.TurnStarted("ses_new"))
    [record] = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert "look up ses_new" in record.getMessage()
    assert "connection refused" in record.getMessage()
    assert "Traceback" not in caplog.text


async def test_a_lookup_the_host_did_not_answer_is_asked_again(h: Harness) -> None:
    # The host went down while the session was looked up: its next event asks again, and the
    # session is supervised once its folder is known.
    asked: list[str] = []
    answer = h.host.session

    async def down_once(session_id: str) -> ev.SessionInfo | None:
        asked.append(session_id)
        if len(asked) == 1:
            raise HostError("unreachable", f"GET /session/{session_id}: connection refused")
        return await answer(session_id)

    h.host.session = down_once  # type: ignore[method-assign]
    h.host.sessions["ses_new"] = ev.SessionInfo("ses_new", h.project, None, "late")
    await h.emit(ev.TurnStarted("ses_new"))
    assert asked == ["ses_new"]
    await h.emit(ev.TodosUpdated("ses_new", TODOS), ev.TurnEnded("ses_new", "idle"))
    assert asked == ["ses_new", "ses_new"]
    await h.advance(5)
    assert [s.session_id for s in h.host.sent] == ["ses_new"]


async def test_stop_closes_work_that_had_not_started(h: Harness) -> None:
    # Background work the runtime spawned (a lookup, a toast) and cancelled before it ran is
    # closed, not left for the garbage collector to report as a coroutine never awaited.
    ran: list[str] = []

    async def work() -> None:
        ran.append("ran")

    pending = work()
    h.rt._spawn(pending, "work")
    await h.rt.stop()
    assert ran == []
    assert pending.cr_frame is None  # closed


async def test_stop_during_a_send_leaves_nothing_behind(h: Harness) -> None:
    gate = asyncio.Event()
    deliver = h.host.nudge

    async def slow(session_id: str, text: str, description: str) -> None:
        await gate.wait()
        await deliver(session_id, text, description)

    h.host.nudge = slow  # type: ignore[method-assign]
    await h.turn()
    h.clock.advance(5)
    for _ in range(5):
        await asyncio.sleep(0)
    await h.rt.stop()
    assert h.host.sent == [] and h.host.closed
    assert h.clock.pending == []
    assert h.store.nudges(S) == []


async def test_status_and_commands_per_workspace_folder(tmp_path: Path) -> None:
    """Each folder's status lists its own sessions; a command scoped to a folder leaves the
    other folder's sessions alone."""
    h = Harness(tmp_path)
    other = str(tmp_path / "other")
    h.workspace.roots = [h.project, other]
    await h.start()
    try:
        await h.turn("ses_a")
        await h.turn("ses_b", directory=other)
        assert [s["id"] for s in h.rt.status(h.project)["sessions"]] == ["ses_a"]
        assert [s["id"] for s in h.rt.status(other)["sessions"]] == ["ses_b"]
        assert [s["id"] for s in h.rt.status()["sessions"]] == ["ses_a", "ses_b"]
        assert h.rt.pause(None, other) == {"sessions": [{"id": "ses_b", "state": "paused"}]}
        assert h.rt.state_word(other) == "paused"
        assert h.rt.state_word(h.project) == "idle"
        assert h.rt.resume(None, h.project) == {"sessions": [{"id": "ses_a", "state": "idle"}]}
        assert h.store.paused("ses_b") is not None  # resuming the first folder kept this pause
    finally:
        await h.close()


async def test_scope_all_lists_a_session_outside_every_folder_in_the_first(
    tmp_path: Path,
) -> None:
    h = Harness(tmp_path, SupervisorSettings(scope="all"))
    h.workspace.roots = [h.project, str(tmp_path / "other")]
    await h.start()
    try:
        await h.turn(directory=str(tmp_path / "elsewhere"))
        assert [s["id"] for s in h.rt.status(h.project)["sessions"]] == [S]
        assert h.rt.status(str(tmp_path / "other"))["sessions"] == []
    finally:
        await h.close()


async def test_the_store_list_follows_the_host_list_in_status_items_and_open_set(
    h: Harness,
) -> None:
    """The store's list (the MCP tools') first, then OpenCode's own: one list for the status
    summary, `todoLs.list` and the items a nudge names."""
    h.store.set_session_todos(
        S, [{"content": "Store item", "status": "pending"}, "not an item"], h.clock.now()
    )
    await h.turn()
    assert h.session()["todos"] == {"open": 3, "total": 3}
    assert h.session()["open"] == 3
    items = h.rt.session_list_items()
    assert [(i["index"], i["content"], i["status"]) for i in items] == [
        (0, "Store item", "pending"),
        (1, "Write the parser", "in_progress"),
        (2, "Add unit tests", "pending"),
    ]
    assert [(t.source, t.position) for t in h.rt.listed_todos(S)] == [
        ("store", 0),
        ("host", 0),
        ("host", 1),
    ]
