"""The real pi 0.73.1 with todo-ls's extension, written by `todo-ls install pi`, as its hook
(pi has no command hooks): in print mode the extension continues the run from its last
`turn_end`, in RPC mode it sends the nudge once pi is idle after `agent_end`. One block naming
each open `path:line`, then a free stop once the boxes are ticked; a text-only answer is not
blocked again (the nudge comes back as an `input` from the extension, not a user prompt); a
model that works but never ticks is let go after `maxNoProgressNudges` and a language server
shows it `paused` `no-progress` (in both modes); an abort (`stop_reason: aborted`) and an
error are never nudged and pause the session; a missing or slow todo-ls lets pi stop."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator

import pytest
from support.agent_harness import Project
from support.fake_agent_models import FakeChatCompletionsAPI
from support.fake_model import http_error, stall, text
from support.pi_agent import Pi
from support.stop_scenarios import (
    WatchingServer,
    blocks_once_naming_each_then_stops,
    busy,
    capped_and_shown_paused,
    finish,
    text_only_answer_is_not_blocked_again,
)

from todo_ls.install.pi import COMMAND_LINE
from todo_ls.store import Store

pytestmark = [pytest.mark.agents, pytest.mark.timeout(300)]
WAIT = 10.0  # seconds the extension waits for todo-ls (TIMEOUT_MS in editors/pi/todo-ls.ts)


@pytest.fixture
def pi(project: Project) -> Iterator[Pi]:
    with FakeChatCompletionsAPI() as model:
        yield Pi(project, model)


def test_open_items_block_once_naming_each_and_the_ticked_plan_stops(pi: Pi) -> None:
    said = pi.project.install(pi.host)
    assert "without asking" in said, f"install does not say pi trusts no one: {said}"
    run = blocks_once_naming_each_then_stops(pi)
    # Print mode: the nudge continued the same run (one agent_end), it did not start another.
    assert len(run.of_type("agent_end")) == 1


def test_a_text_only_answer_is_not_blocked_again(pi: Pi) -> None:
    pi.project.install(pi.host)
    text_only_answer_is_not_blocked_again(pi)


def test_work_without_ticking_is_capped_and_shows_paused_no_progress(
    pi: Pi, watching_server: WatchingServer
) -> None:
    pi.project.settings({"maxNoProgressNudges": 2})
    pi.project.install(pi.host, "--scope", "user")
    # Print mode ends the session 0.15 s after the last turn's pause, within one poll of the
    # language server: held open, as an interactive pi stays, until the pause was shown.
    gate = pi.hold_shutdown()

    capped_and_shown_paused(pi, watching_server, 2, gate)


def test_rpc_mode_caps_work_without_ticking_and_shows_paused_no_progress_while_open(
    pi: Pi, watching_server: WatchingServer
) -> None:
    # The interactive route (agent_end, the nudge once idle): the session stays open, so the
    # editor shows the pause with no hold.
    pi.project.settings({"maxNoProgressNudges": 2})
    pi.project.install(pi.host)
    pi.model.script(*busy(pi))
    rpc = pi.rpc()
    try:
        rpc.prompt("Work through PLAN.md.")
        rpc.wait_agent_ends(3)
        paused = watching_server.wait_shown(pi.session_of(), "paused", "no-progress")
        rpc.quiet()
    finally:
        rpc.stop()

    assert len(rpc.agent_ends()) == 3, "a run after the cap"
    assert len(pi.model.nudges()) == 2
    assert pi.model.pending() > 0, "the agent was not let go while it still had work"
    assert paused.get("host") == "pi"
    assert paused.get("nudges") == 2


def test_rpc_mode_nudges_once_idle_and_the_nudge_is_no_user_prompt(pi: Pi) -> None:
    pi.project.install(pi.host)
    pi.model.script(text("Done."), text("I need your input on the schema first."))
    rpc = pi.rpc()
    try:
        rpc.prompt("Work through PLAN.md.")
        # agent_end → todo-ls blocks → the extension sends the nudge once pi is idle: a second
        # run. Had the nudge counted as a user prompt, its words-only answer would be blocked
        # again (a new episode), and again.
        rpc.wait_agent_ends(2)
        rpc.quiet()
    finally:
        rpc.stop()

    assert len(rpc.agent_ends()) == 2
    assert len(pi.model.nudges()) == 1
    second = [m for m in pi.model.requests[1]["messages"] if m.get("role") != "system"]
    assert [m.get("role") for m in second] == ["user", "assistant", "user"], second
    assert len(pi.model.requests) == 2


def test_an_abort_is_not_nudged_and_pauses_the_session(
    pi: Pi, watching_server: WatchingServer
) -> None:
    pi.project.install(pi.host)
    pi.model.script(stall(60, "Working"))
    rpc = pi.rpc()
    try:
        rpc.prompt("Work through PLAN.md.")
        pi.model.wait_requests(1)
        time.sleep(0.3)  # the first chunk reached pi
        rpc.abort()
        rpc.wait_agent_ends(1)
        session = pi.session_of()
        paused = watching_server.wait_shown(session, "paused", "interrupt")
        rpc.quiet()
    finally:
        pi.model.release()
        rpc.stop()

    assert paused.get("host") == "pi"
    assert pi.model.nudges() == [], "pi was nudged after the user aborted it"
    assert len(pi.model.requests) == 1


def test_a_run_that_ends_in_an_error_is_not_nudged_and_pauses_the_session(pi: Pi) -> None:
    pi.project.install(pi.host)
    pi.model.script(http_error(400))

    run = pi.run()

    assert pi.model.nudges() == [], f"pi was nudged after a failed run: {run.stderr[-1000:]}"
    assert len(pi.model.requests) == 1
    # Read from the store: print mode ends the session a moment later (session_shutdown).
    store = Store.open(pi.project.state)
    try:
        pause = store.paused(pi.session_of(run))
    finally:
        store.close()
    assert pause is not None and pause.reason == "error"


@pytest.mark.parametrize("todo_ls", ["missing", "slow"])
def test_pi_stops_when_todo_ls_is_missing_or_slow(pi: Pi, todo_ls: str) -> None:
    pi.project.install(pi.host)
    # The command the install wrote into the extension, replaced by one that is not there or
    # by a todo-ls that answers later than the extension waits (10 s a call).
    slow = [sys.executable, "-c", "import time; time.sleep(60)"]
    argv = ["/nonexistent/todo-ls"] if todo_ls == "missing" else slow
    source = pi.project_settings.read_text(encoding="utf-8")
    line = next(x for x in source.splitlines() if x.startswith(COMMAND_LINE))
    changed = f"{COMMAND_LINE}{json.dumps([*argv, 'hook', '--host', 'pi'])};"
    pi.project_settings.write_text(source.replace(line, changed), encoding="utf-8")
    started = time.monotonic()

    finish(pi, text("Done."))

    took = time.monotonic() - started
    assert pi.model.nudges() == []
    assert len(pi.model.requests) == 1
    # A missing todo-ls is never waited for; a slow one once (the extension then gives up on
    # it), not at every event (session start, prompt, last turn, shutdown: 40 s before).
    limit = WAIT if todo_ls == "missing" else 2 * WAIT
    assert took < limit, f"pi waited {took:.1f} s for todo-ls"
