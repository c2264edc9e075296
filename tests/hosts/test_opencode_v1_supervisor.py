"""Issue 3 scenarios only OpenCode 1.x has: the supervisor (`todo-ls supervise`, in-process, real
clock, small timing settings) against a real OpenCode 1.18.33 and the scripted fake model.

Session todo lists, stalls, the no-progress pause, `task` child sessions and permissions are
driven here through the real server. The scenarios both host lines share (markdown refs, a
running tool, interrupt and resume, other directories, restart) are in
test_supervisor_scenarios.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from support.fake_model import FakeModel, bash, task, text, todowrite
from support.scenarios import OpencodeServer, Supervisor, until

pytestmark = [pytest.mark.opencode, pytest.mark.timeout(120)]

OPEN_TODOS = todowrite(("Write the parser", "in_progress"), ("Add tests", "pending"))
DONE_TODOS = todowrite(("Write the parser", "completed"), ("Add tests", "completed"))
StartSupervisor = Callable[..., Supervisor]


@pytest.fixture
async def supervise(opencode: OpencodeServer, tmp_path: Path) -> AsyncIterator[StartSupervisor]:
    """Start `todo-ls supervise` on the project; stopped (and required to stop) at teardown."""
    started: list[Supervisor] = []

    async def start(**timing: Any) -> Supervisor:
        sup = Supervisor(opencode.project, opencode.url, tmp_path / "state", **timing).start()
        started.append(sup)
        await sup.wait_for(lambda s: any(line.startswith("connected") for line in s.lines))
        return sup

    yield start
    for sup in started:
        await sup.stop()


async def test_idle_nudge_from_session_todos_then_done(
    opencode: OpencodeServer, fake_model: FakeModel, supervise: StartSupervisor
) -> None:
    sup = await supervise()
    sid = opencode.create_session("Plan")
    fake_model.script(OPEN_TODOS, text("I stop here."), DONE_TODOS, text("All done."))
    opencode.prompt(sid, "Plan and do it.")
    await sup.wait_for(lambda s: len(s.nudges(sid)) == 1)
    [nudge] = await asyncio.to_thread(opencode.synthetic_texts, sid)
    assert nudge.startswith("Idle nudge #1")
    assert "Add tests" in nudge and "Write the parser" in nudge
    nudged_at = sup.lines.index(f"nudged {sid} (idle #1)")
    # The nudged agent finished its list: the session shows done, and nothing more is sent.
    await sup.wait_for(lambda s: any(f"{sid} done" in line for line in s.lines[nudged_at:]))
    await asyncio.sleep(1.2)  # asserting an absence: rate limit 1 s, settle 0.3 s
    assert len(sup.nudges(sid)) == 1


async def test_stall_nudge_names_the_quiet_tool(
    opencode: OpencodeServer, fake_model: FakeModel, supervise: StartSupervisor
) -> None:
    sup = await supervise(stall_minutes=0.05)  # 3 s of quiet with work in flight
    sid = opencode.create_session("Stall")
    fake_model.script(OPEN_TODOS, bash("sleep 6", "Long build"), text("Built; stopping."))
    opencode.prompt(sid, "Build it.")
    await sup.wait_for(lambda s: s.saw(sid, "working · 1 tool"))
    await sup.wait_for(lambda s: len(s.nudges(sid)) == 1, timeout=15)
    assert sup.nudges(sid) == [f"nudged {sid} (stall #1)"]
    assert sup.saw(sid, f"{sid} stalled · 1 tool")
    # OpenCode queues the nudge while the tool runs; the agent reads it once the tool is done.
    await until(lambda: opencode.synthetic_texts(sid), 20, "the stall nudge in the transcript")
    [nudge] = opencode.synthetic_texts(sid)
    assert nudge.startswith("Stall nudge #1")
    assert 'tool bash "sleep 6"' in nudge and "stall threshold" in nudge


async def test_no_progress_pauses_after_max_nudges(
    opencode: OpencodeServer, fake_model: FakeModel, supervise: StartSupervisor
) -> None:
    # The model never touches its todo list again: every nudge is answered with "Done.".
    sup = await supervise(max_no_progress_nudges=2)
    sid = opencode.create_session("Stuck")
    fake_model.script(OPEN_TODOS, text("Stopping."))
    opencode.prompt(sid, "Plan.")
    await sup.wait_for(lambda s: s.saw(sid, "paused: no-progress"), timeout=30)
    assert sup.nudges(sid) == [f"nudged {sid} (idle #1)", f"nudged {sid} (idle #2)"]
    # Model requests: the plan, "Stopping.", one answer per nudge; then the agent is left alone.
    await until(lambda: len(fake_model.requests) == 4, 20, "the answer to nudge #2")
    await asyncio.sleep(2.5)  # asserting an absence: twice the rate limit plus the settle
    assert len(sup.nudges(sid)) == 2
    assert len(await asyncio.to_thread(opencode.synthetic_texts, sid)) == 2
    assert len(fake_model.requests) == 4
    assert sup.session_lines(sid)[-1].startswith(f"{sid} paused")
    # Writing to the agent lifts the pause: the next idle is nudged again.
    opencode.prompt(sid, "Please go on.")
    await sup.wait_for(lambda s: len(s.nudges(sid)) == 3)


async def test_child_session_keeps_the_root_working_and_is_never_nudged(
    opencode: OpencodeServer, fake_model: FakeModel, supervise: StartSupervisor
) -> None:
    sup = await supervise(stall_minutes=1)
    sid = opencode.create_session("Parent")
    fake_model.script(
        OPEN_TODOS,
        task("Run the tests", "Run the test suite."),
        bash("sleep 2; echo ok", "Run tests"),  # the child's first step
        text("Tests pass."),  # the child ends idle, its parent's task tool returns
        text("Stopping."),  # the parent stops with open todos
    )
    opencode.prompt(sid, "Plan and delegate.")
    await sup.wait_for(lambda s: s.saw(sid, "1 subagent"))
    [child] = await asyncio.to_thread(opencode.children, sid)
    await sup.wait_for(lambda s: len(s.nudges(sid)) == 1, timeout=30)
    # The root was never idle while its child worked, and the nudge came after the child ended.
    first_subagent = next(i for i, line in enumerate(sup.lines) if "1 subagent" in line)
    last_subagent = max(i for i, line in enumerate(sup.lines) if "1 subagent" in line)
    root_lines = sup.lines[first_subagent:last_subagent]
    assert all(" working" in line for line in root_lines if line.startswith(sid))
    assert sup.lines.index(f"nudged {sid} (idle #1)") > last_subagent
    assert fake_model.pending() == 0  # every scripted step ran: the child did end idle
    assert not any(child in line for line in sup.lines)  # never listed, never nudged
    assert await asyncio.to_thread(opencode.synthetic_texts, child) == []


async def test_pending_permission_is_waiting_and_never_nudged(
    opencode: OpencodeServer, fake_model: FakeModel, supervise: StartSupervisor
) -> None:
    sup = await supervise(stall_minutes=0.05)  # a stall would be due after 3 s
    ask = [{"permission": "bash", "pattern": "*", "action": "ask"}]
    sid = opencode.create_session("Permission", permission=ask)
    fake_model.script(OPEN_TODOS, bash("echo deploy", "Deploy"), text("Deployed; stopping."))
    opencode.prompt(sid, "Deploy.")
    await sup.wait_for(lambda s: s.saw(sid, f"{sid} waiting · bash"))
    await asyncio.sleep(4)  # asserting an absence: past the 3 s stall threshold
    assert sup.nudges(sid) == []
    assert sup.session_lines(sid)[-1].startswith(f"{sid} waiting")
    [request] = await asyncio.to_thread(opencode.pending_permissions)
    await asyncio.to_thread(opencode.reply_permission, request["id"], "once")
    # Answered: the turn goes on, ends, and only then is the session nudged.
    await sup.wait_for(lambda s: len(s.nudges(sid)) == 1, timeout=20)
    [nudge] = await asyncio.to_thread(opencode.synthetic_texts, sid)
    assert nudge.startswith("Idle nudge #1")
