"""Issue 3 scenarios: the supervisor (`todo-ls supervise`, in-process, real clock, small timing
settings) against a real OpenCode 1.18.33 and the scripted fake model."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from conftest import PASSWORD
from fake_model import FakeModel, bash, text, todowrite
from scenarios import OpencodeServer, Supervisor

pytestmark = pytest.mark.opencode

OPEN_TODOS = todowrite(("Write the parser", "in_progress"), ("Add tests", "pending"))
DONE_TODOS = todowrite(("Write the parser", "completed"), ("Add tests", "completed"))


async def test_idle_nudge_from_session_todos_then_done(
    opencode: OpencodeServer, fake_model: FakeModel, tmp_path: Path
) -> None:
    sup = Supervisor(opencode.project, opencode.url, tmp_path / "state").start()
    await sup.wait_for(lambda s: any(line.startswith("connected") for line in s.lines))
    sid = opencode.create_session("Plan")
    fake_model.script(OPEN_TODOS, text("I stop here."), DONE_TODOS, text("All done."))
    opencode.prompt(sid, "Plan and do it.")
    await sup.wait_for(lambda s: len(s.nudges(sid)) == 1)
    fake_model.wait_requests(4)
    nudge = fake_model.user_texts(fake_model.requests[2])[-1]
    assert "Idle nudge #1" in nudge
    assert "Add tests" in nudge
    await sup.wait_for(lambda s: any(f"{sid} done" in line for line in s.lines))
    assert len(sup.nudges(sid)) == 1  # the list is done: nothing more
    await sup.stop()


async def test_markdown_only_nudge_names_path_and_line(
    opencode: OpencodeServer, fake_model: FakeModel, tmp_path: Path
) -> None:
    plan = opencode.project / "PLAN.md"
    plan.write_text("# Plan\n\n- [x] Set up\n- [ ] Ship the parser\n")
    sup = Supervisor(opencode.project, opencode.url, tmp_path / "state")
    sup.subscribe(plan)
    sup.start()
    await sup.wait_for(lambda s: any(line.startswith("connected") for line in s.lines))
    sid = opencode.create_session("Markdown")
    fake_model.script(text("Stopping without todos."))
    opencode.prompt(sid, "Work on PLAN.md.")
    await sup.wait_for(lambda s: len(s.nudges(sid)) == 1)
    fake_model.wait_requests(2)
    nudge = fake_model.user_texts(fake_model.requests[1])[-1]
    assert "PLAN.md:4" in nudge
    assert "Ship the parser" in nudge
    await sup.stop()


async def test_no_nudge_while_a_tool_runs(
    opencode: OpencodeServer, fake_model: FakeModel, tmp_path: Path
) -> None:
    sup = Supervisor(opencode.project, opencode.url, tmp_path / "state", stall_minutes=1).start()
    await sup.wait_for(lambda s: any(line.startswith("connected") for line in s.lines))
    sid = opencode.create_session("Tool")
    fake_model.script(OPEN_TODOS, bash("sleep 3; echo built"), text("Built; stopping."))
    opencode.prompt(sid, "Build.")
    await sup.wait_for(lambda s: any(f"{sid} working · 1 tool" in line
                                     for line in s.lines))  # fmt: skip
    assert sup.nudges(sid) == []  # the tool runs: quiet, not idle
    await sup.wait_for(lambda s: len(s.nudges(sid)) == 1, timeout=40)
    fake_model.wait_requests(4)
    # the nudge came after the tool's result reached the model, never during the tool
    assert "Idle nudge" in fake_model.user_texts(fake_model.requests[3])[-1]
    await sup.stop()


async def test_user_abort_pauses_and_a_real_prompt_resumes(
    opencode: OpencodeServer, fake_model: FakeModel, tmp_path: Path
) -> None:
    sup = Supervisor(opencode.project, opencode.url, tmp_path / "state", stall_minutes=1).start()
    await sup.wait_for(lambda s: any(line.startswith("connected") for line in s.lines))
    sid = opencode.create_session("Abort")
    fake_model.script(OPEN_TODOS, bash("sleep 30"))
    opencode.prompt(sid, "Start.")
    await sup.wait_for(lambda s: any(f"{sid} working · 1 tool" in line
                                     for line in s.lines))  # fmt: skip
    opencode.abort(sid)
    await sup.wait_for(lambda s: any(f"{sid} paused" in line for line in s.lines))
    requests = len(fake_model.requests)
    await asyncio.sleep(1.5)  # asserting an absence: give a wrong nudge time to show (settle 0.3 s)
    assert sup.nudges(sid) == []
    fake_model.script(text("Resuming, then stopping again."))
    opencode.prompt(sid, "Carry on.")  # a real user prompt lifts the interrupt pause
    await sup.wait_for(lambda s: len(s.nudges(sid)) == 1, timeout=30)
    assert len(fake_model.requests) > requests
    await sup.stop()


async def test_restart_reconnects_and_nudges_exactly_once(
    opencode_pw: OpencodeServer,
    fake_model: FakeModel,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OPENCODE_SERVER_PASSWORD", PASSWORD)
    sup = Supervisor(
        opencode_pw.project, opencode_pw.url, tmp_path / "state", min_nudge_interval_ms=60000
    ).start()
    await sup.wait_for(lambda s: any(line.startswith("connected") for line in s.lines))
    sid = opencode_pw.create_session("Restart")
    fake_model.script(OPEN_TODOS, text("Stopping."), text("Still stopping."))
    opencode_pw.prompt(sid, "Plan.")
    await sup.wait_for(lambda s: len(s.nudges(sid)) == 1)
    fake_model.wait_requests(3)
    opencode_pw.restart()
    await sup.wait_for(lambda s: sum(line.startswith("connected") for line in s.lines) >= 2,
                       timeout=60)  # fmt: skip
    await asyncio.sleep(2)  # asserting an absence: a duplicate would follow the resync at once
    assert len(sup.nudges(sid)) == 1  # no duplicate after the reconnect
    assert len(fake_model.requests) == 3
    await sup.stop()
    assert PASSWORD not in caplog.text
    assert all(PASSWORD not in line for line in sup.lines + opencode_pw.output)
