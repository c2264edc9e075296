"""The Stop hook in the real agents: a turn that ends with open items in PLAN.md is continued
once with the nudge; the agent stops by itself once the boxes are ticked; a model that keeps
working without progress is let go after `maxNoProgressNudges`; two registrations of the hook
block once; a model that answers a nudge in words only is let go. Each test runs with Claude Code,
Codex and Gemini CLI."""

from __future__ import annotations

import json
import shlex

import pytest
from support.agent_harness import OPEN_LINES, ClaudeCode, HookAgent, hook_responses
from support.fake_agent_models import tick_all
from support.fake_model import text

pytestmark = [pytest.mark.agents, pytest.mark.timeout(180)]


@pytest.fixture
def agent(hook_agent: HookAgent) -> HookAgent:
    """Every hook host in turn: these tests need one prompt run, no conversation."""
    return hook_agent


def test_open_items_block_once_and_the_ticked_plan_lets_the_agent_stop(agent: HookAgent) -> None:
    agent.project.install(agent.host)
    # 1: ends the turn with the plan open → blocked; 2: ticks every box; 3: ends the turn.
    agent.model.script(text("Done."), agent.shell(tick_all()), text("All items are ticked."))

    run = agent.run()

    assert agent.finished(run), f"{agent.host} did not end normally: {run.stderr[-2000:]}"
    nudges = agent.model.nudges()
    assert len(nudges) == 1, f"expected one block, the model received {len(nudges)}: {nudges}"
    nudge = nudges[0]
    assert nudge.startswith("todo-ls"), f"the nudge does not say it is todo-ls's: {nudge}"
    assert "nudge #1" in nudge.split("\n", 1)[0]
    for line in OPEN_LINES:
        assert f"PLAN.md:{line}" in nudge, f"PLAN.md:{line} missing from the nudge: {nudge}"
    assert "PLAN.md:4" not in nudge, "the nudge names the item that is done"
    # The second request is the continued turn carrying the nudge; after the tick, the third
    # request ended the turn and the hook let the agent stop: no fourth request.
    assert agent.model.nudges(agent.model.requests[1]) == nudges
    assert agent.project.open_items() == 0
    assert len(agent.model.requests) == 3


def test_a_turn_that_ends_with_nothing_open_is_not_blocked(agent: HookAgent) -> None:
    agent.project.install(agent.host)
    agent.project.plan_path.write_text("# Plan\n\n- [x] all done\n", encoding="utf-8")

    run = agent.run()

    assert agent.finished(run)
    assert agent.model.nudges() == []
    assert len(agent.model.requests) == 1


def test_work_without_progress_is_nudged_at_most_max_no_progress_times(agent: HookAgent) -> None:
    agent.project.settings({"maxNoProgressNudges": 2})
    agent.project.install(agent.host)
    # Works (a command) and ends its turn, again and again, never ticking a box.
    busy = [agent.shell("ls"), text("Still working on it.")]
    agent.model.script(*busy * 8)

    run = agent.run()

    assert agent.finished(run), f"{agent.host} did not end normally: {run.stderr[-2000:]}"
    nudges = agent.model.nudges()
    assert 1 <= len(nudges) <= 2, f"{len(nudges)} blocks for a capped session: {nudges}"
    assert agent.project.open_items() == 2
    # The agent got away while the script still had work to do.
    assert agent.model.pending() > 0


def test_user_and_project_registrations_block_once(agent: HookAgent) -> None:
    # Two install paths (the script and `python -m todo_ls`) give two command strings, which
    # the agents run side by side at each Stop. The project's one starts half a second later
    # (a slower start on a busy machine), while the agent goes on writing its transcript.
    agent.project.install(agent.host, "--scope", "user")
    agent.project.install(agent.host, "--scope", "project", module=True)
    settings = json.loads(agent.project_settings.read_text(encoding="utf-8"))
    for group in settings["hooks"][agent.stop_event]:
        for handler in group["hooks"]:
            handler["command"] = f"sleep 0.5; {handler['command']}"
    agent.project_settings.write_text(json.dumps(settings), encoding="utf-8")
    agent.model.script(text("Done."), agent.shell(tick_all()), text("All items are ticked."))

    run = agent.run()

    assert agent.finished(run)
    nudges = agent.model.nudges()
    assert len(nudges) == 1, f"two registrations gave {len(nudges)} blocks: {nudges}"
    if isinstance(agent, ClaudeCode):  # both ran at the first Stop; one of them blocked
        first_stop = hook_responses(run.events)[:2]
        answered = sorted(bool(r.get("stdout", "").strip()) for r in first_stop)
        assert answered == [False, True], first_stop


def test_a_text_only_answer_gets_no_second_block_and_the_agent_stops(agent: HookAgent) -> None:
    agent.project.install(agent.host)
    # Blocked once; the model answers the nudge in words only, then would go on talking.
    agent.model.script(
        text("Done."), text("I need your input on the schema first."), text("Still waiting.")
    )

    run = agent.run()

    assert agent.finished(run), f"{agent.host} did not end normally: {run.stderr[-2000:]}"
    nudges = agent.model.nudges()
    assert len(nudges) == 1, f"a text-only answer was blocked again: {nudges}"
    assert len(agent.model.requests) == 2, "the agent did not stop after its text-only answer"
    assert agent.project.open_items() == 2


def test_three_registrations_block_once(agent: HookAgent) -> None:
    # The user's own, the project's (another install path: another command string) and a
    # command of the project that wraps todo-ls's: the agents run all three at each Stop.
    agent.project.install(agent.host, "--scope", "user")
    agent.project.install(agent.host, "--scope", "project", module=True)
    settings = json.loads(agent.project_settings.read_text(encoding="utf-8"))
    (group,) = settings["hooks"][agent.stop_event]
    wrapped = {**group["hooks"][0], "command": f"sh -c {shlex.quote(group['hooks'][0]['command'])}"}
    settings["hooks"][agent.stop_event].append({"hooks": [wrapped]})
    agent.project_settings.write_text(json.dumps(settings), encoding="utf-8")
    # The answer to the nudge is words only: nothing may block it again, whichever process.
    agent.model.script(text("Done."), text("I need your input first."), text("Still waiting."))

    run = agent.run()

    assert agent.finished(run)
    nudges = agent.model.nudges()
    assert len(nudges) == 1, f"three registrations gave {len(nudges)} blocks: {nudges}"
    assert len(agent.model.requests) == 2
    if isinstance(agent, ClaudeCode):  # all three ran at the first Stop; one of them blocked
        first_stop = hook_responses(run.events)[:3]
        answered = sorted(bool(r.get("stdout", "").strip()) for r in first_stop)
        assert answered == [False, False, True], first_stop
