"""The supervisor scenarios both host lines share, run once per host.

`todo-ls supervise` runs in-process with the real clock and small timing settings against
`opencode-v1` (the real OpenCode 1.18.33 and the scripted fake model) and `opencode-v2` (the fake
2.x server, scripted through `V2Driver` to act the same way). What a test asserts is what a user
would notice: the nudges the session received and the states the status line showed. Behaviour
only one host line has stays in test_opencode_v1_supervisor.py / test_opencode_v2_supervisor.py.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from support.fake_v2 import FakeV2Server
from support.scenarios import HostDriver, Supervisor, V1Driver, V2Driver, until

PLAN = "# Plan\n\n- [x] Set up\n- [ ] Ship the parser\n"
StartSupervisor = Callable[..., Supervisor]


@pytest.fixture(
    params=[pytest.param("opencode-v1", marks=pytest.mark.opencode), "opencode-v2"],
)
async def host(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[HostDriver]:
    """Either host line, with auth on and its password where todo-ls looks for it."""
    # No registration file of this machine's own OpenCode 2.x may be discovered.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    if request.param == "opencode-v1":
        v1 = V1Driver(request.getfixturevalue("opencode_pw"))
        monkeypatch.setenv(v1.password_env, v1.password)
        yield v1
        return
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    fake = FakeV2Server(password="pw-v2-Zr8-not-in-logs")
    await fake.start()
    v2 = V2Driver(fake, project)
    monkeypatch.setenv(v2.password_env, v2.password)
    yield v2
    await v2.close()
    await fake.stop()


@pytest.fixture
async def supervise(host: HostDriver, tmp_path: Path) -> AsyncIterator[StartSupervisor]:
    """Start `todo-ls supervise` on the project with PLAN.md (one open item) subscribed."""
    started: list[Supervisor] = []
    plan = host.project / "PLAN.md"
    plan.write_text(PLAN)

    def start(**timing: Any) -> Supervisor:
        sup = Supervisor(host.project, host.url, tmp_path / "state", **timing)
        sup.subscribe(plan)
        started.append(sup.start())
        return sup

    yield start
    for sup in started:
        await sup.stop()


async def connected(sup: Supervisor, times: int = 1) -> None:
    await sup.wait_for(lambda s: sum(line.startswith("connected") for line in s.lines) >= times)


async def paused_until_the_user_writes(
    host: HostDriver, sup: Supervisor, sid: str, shown: str
) -> None:
    """The session shows `shown`, gets no nudge meanwhile, and a real prompt lifts the pause."""
    await sup.wait_for(lambda s: s.saw(sid, shown))
    # The paused decision arms no timer: with none armed the supervisor stays quiet until the
    # next host event, and every later event meets the stored pause.
    await until(lambda: sup.clock.live == 0, 10, "no decision timer armed")
    assert sup.session_lines(sid)[-1].startswith(f"{sid} paused")
    assert sup.nudges(sid) == []
    assert await host.received_nudges(sid) == []
    await host.user_prompt(sid, "Carry on.")  # a real user prompt lifts the pause
    await sup.wait_for(lambda s: len(s.nudges(sid)) == 1)
    [nudge] = await host.received_nudges(sid)
    assert nudge.startswith("Idle nudge #1")


async def test_idle_nudge_names_the_open_markdown_items_by_path_and_line(
    host: HostDriver, supervise: StartSupervisor
) -> None:
    sup = supervise()
    await connected(sup)
    sid = await host.create_session("Markdown")
    await host.work_then_stop(sid)
    await sup.wait_for(lambda s: len(s.nudges(sid)) == 1)
    received = await host.received_nudges(sid)
    [nudge] = received
    assert nudge.startswith("Idle nudge #1")
    assert "PLAN.md:4" in nudge and "Ship the parser" in nudge
    assert "Set up" not in nudge  # done items are not the agent's business any more
    assert sup.saw(sid, f"{sid} idle")


async def test_no_nudge_while_a_tool_runs(host: HostDriver, supervise: StartSupervisor) -> None:
    # A stall needs 1 min of quiet, an idle nudge 0.3 s after the turn ends: while the tool
    # runs neither may come, and the idle nudge must follow the end of the turn.
    sup = supervise(stall_minutes=1)
    await connected(sup)
    sid = await host.create_session("Tool")
    await host.start_tool(sid, 2, "echo built")
    await sup.wait_for(lambda s: s.saw(sid, "working · 1 tool"))
    await sup.wait_for(lambda s: len(s.nudges(sid)) == 1, timeout=20)
    [nudge] = await host.received_nudges(sid)
    assert nudge.startswith("Idle nudge #1")
    # For the whole run of the tool (2 s, well past the 0.3 s settle) the session was working,
    # never idle, and the nudge came only after the tool had ended.
    lines = sup.session_lines(sid)
    with_tool = [i for i, line in enumerate(lines) if "1 tool" in line]
    first_tool, last_tool = with_tool[0], with_tool[-1]
    assert all(" working" in line for line in lines[first_tool : last_tool + 1])
    assert sup.lines.index(f"nudged {sid} (idle #1)") > sup.lines.index(lines[last_tool])


async def test_user_interrupt_pauses_and_a_real_prompt_resumes(
    host: HostDriver, supervise: StartSupervisor
) -> None:
    sup = supervise(stall_minutes=1)
    await connected(sup)
    sid = await host.create_session("Interrupt")
    await host.start_tool(sid, 30, "echo never")
    await sup.wait_for(lambda s: s.saw(sid, "working · 1 tool"))
    await host.interrupt(sid)
    await paused_until_the_user_writes(host, sup, sid, "paused: interrupt")


async def test_a_turn_that_fails_pauses_until_the_user_writes(
    host: HostDriver, supervise: StartSupervisor
) -> None:
    sup = supervise()
    await connected(sup)
    sid = await host.create_session("Provider error")
    await host.fail_turn(sid)
    await paused_until_the_user_writes(host, sup, sid, "paused: error (")


async def test_a_session_of_another_directory_is_ignored(
    host: HostDriver, supervise: StartSupervisor
) -> None:
    elsewhere = host.project.parent / "elsewhere"
    elsewhere.mkdir()
    sup = supervise()
    await connected(sup)
    other = await host.create_session("Other project", elsewhere)
    await host.work_then_stop(other, elsewhere)
    mine = await host.create_session("This project")
    await host.work_then_stop(mine)
    await sup.wait_for(lambda s: len(s.nudges(mine)) == 1)
    # The stream is ordered: the other session's events were all handled before this one's.
    # Had it been in scope, it would have been listed then (a line is printed at once).
    assert await host.received_nudges(other) == []
    assert not any(other in line for line in sup.lines)  # not supervised, not even listed


async def test_restart_reconnects_and_nudges_exactly_once(
    host: HostDriver, supervise: StartSupervisor, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    sup = supervise(min_nudge_interval_ms=60000)
    await connected(sup)
    sid = await host.create_session("Restart")
    await host.work_then_stop(sid)
    await sup.wait_for(lambda s: len(s.nudges(sid)) == 1)
    await until(lambda: not sup.session_lines(sid)[-1].startswith(f"{sid} working"), 20)
    armed = len(sup.clock.armed)
    await host.restart()
    await sup.wait_for(lambda s: any(line.startswith("not connected") for line in s.lines))
    await connected(sup, times=2)
    # The resync's decision: wait out the 60 s rate limit (a timer that far ahead), not send.
    await until(
        lambda: any(w > time.time() + 30 for w in sup.clock.armed[armed:]),
        20,
        "a decision after the restart to wait for the rate limit",
    )
    assert len(sup.nudges(sid)) == 1
    assert len(await host.received_nudges(sid)) == 1
    await sup.stop()
    assert host.password not in caplog.text
    assert all(host.password not in line for line in sup.lines + host.output())
