"""The Stop hook in the real OpenHands CLI, its hooks written by `todo-ls install` into
`.openhands/hooks.json` (Claude Code's shape, read with no trust step) and answered its way
(`{"decision": "deny"}`; OpenHands ignores `block`): one block naming each open `path:line`,
then a free stop once the boxes are ticked; a text-only answer is not blocked again (OpenHands
sends no `stop_hook_active`: todo-ls remembers its own block); a model that works but never
ticks is let go after `maxNoProgressNudges` and a language server shows it `paused`
`no-progress`; the nudge stands alone; OpenHands' own `task_tracker` list counts."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from support.agent_harness import Project
from support.fake_model import text
from support.openhands_agent import FakeOpenHandsModel, OpenHands
from support.session_gate import HOLD_S, SessionEndGate
from support.stop_scenarios import (
    WatchingServer,
    blocks_once_naming_each_then_stops,
    capped_and_shown_paused,
    finish,
    text_only_answer_is_not_blocked_again,
)

from todo_ls.hook.hosts.openhands import TASKS_FILE, conversations_dir, tasks_file
from todo_ls.store import Store

pytestmark = [pytest.mark.agents, pytest.mark.timeout(300)]


@pytest.fixture
def openhands(project: Project) -> Iterator[OpenHands]:
    with FakeOpenHandsModel() as model:
        agent = OpenHands(project, model)
        yield agent
        agent.end_tmux()


def install(agent: OpenHands) -> None:
    """The user's install, in the project (OpenHands reads it with no trust step)."""
    said = agent.project.install(agent.host)
    assert agent.project_settings.is_file(), said


def hold_session_end(agent: OpenHands) -> SessionEndGate:
    """A command of the user's own before todo-ls's `SessionEnd` hook that waits for the gate:
    headless, OpenHands ends the session about 0.1 s after its last Stop, and an ended
    session leaves the editors' list before the language server (which polls the store every
    0.5 s) has shown its pause; in the TUI the session stays open."""
    gate = SessionEndGate(agent.project.tmp)
    settings = json.loads(agent.project_settings.read_text(encoding="utf-8"))
    group = settings["hooks"]["SessionEnd"][0]["hooks"]
    group.insert(0, {"type": "command", "command": gate.command(), "timeout": HOLD_S + 30})
    agent.project_settings.write_text(json.dumps(settings), encoding="utf-8")
    return gate


def test_open_items_block_once_naming_each_and_the_ticked_plan_stops(openhands: OpenHands) -> None:
    install(openhands)
    blocks_once_naming_each_then_stops(openhands)


def test_a_text_only_answer_is_not_blocked_again(openhands: OpenHands) -> None:
    install(openhands)
    text_only_answer_is_not_blocked_again(openhands)


def test_work_without_ticking_is_capped_and_shows_paused_no_progress(
    openhands: OpenHands, watching_server: WatchingServer
) -> None:
    openhands.project.settings({"maxNoProgressNudges": 2})
    install(openhands)
    capped_and_shown_paused(openhands, watching_server, 2, hold_session_end(openhands))


def test_the_nudge_stands_alone_after_the_answer_it_follows(openhands: OpenHands) -> None:
    install(openhands)

    finish(openhands, text("Plan written, stopping here."), text("I need your input."))

    # OpenHands keeps the answer and adds the reason after it, wrapped in its own words: the
    # nudge itself names the items and what to do with them.
    said = [m for m in openhands.model.requests[1]["messages"] if m.get("role") != "system"]
    assert said[-1].get("role") == "user", said
    nudge = str(said[-1].get("content"))
    assert "[Stop hook feedback]" in nudge, nudge
    assert "PLAN.md:3" in nudge and "PLAN.md:5" in nudge and "tick its box" in nudge


def test_its_task_tracker_list_counts_as_the_sessions_own_list(openhands: OpenHands) -> None:
    install(openhands)
    plan = openhands.task_list([("Read the spec", "done"), ("Draft the changelog", "todo")])

    run = finish(openhands, plan, text("Done."), text("I need your input."))

    session = openhands.session_of(run)
    store = Store.open(openhands.project.state)
    try:
        todos = store.session_todos(session)
    finally:
        store.close()
    # Where the host module reads the list at a Stop is where OpenHands wrote it.
    kept = conversations_dir(openhands.env()) / session.replace("-", "") / TASKS_FILE
    assert tasks_file(kept) == todos, f"no task list at {kept}"
    assert todos == [
        {"content": "Read the spec", "status": "completed"},
        {"content": "Draft the changelog", "status": "pending"},
    ]
    # The nudge names the open task beside the open boxes, and not the one that is done.
    nudges = openhands.model.nudges()
    assert len(nudges) == 1 and "Draft the changelog" in nudges[0], nudges
    assert "Read the spec" not in nudges[0], nudges[0]
    assert "PLAN.md:3" in nudges[0] and "update the todo list" in nudges[0], nudges[0]


def test_the_user_scope_install_is_read_with_no_trust_step(openhands: OpenHands) -> None:
    said = openhands.project.install(openhands.host, "--scope", "user")
    assert "no trust step" in said, said
    assert openhands.user_settings.is_file() and not openhands.project_settings.exists()

    finish(openhands, text("Done."), *openhands.tick(), text("All items are ticked."))

    assert len(openhands.model.nudges()) == 1
    assert openhands.project.open_items() == 0
