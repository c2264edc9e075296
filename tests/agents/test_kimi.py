"""The real Kimi Code 2.1.0 with the hooks `todo-ls install kimi-code` wrote into the user's
`~/.kimi-code/config.toml` (its only hook file; `HOME` is the test's), blocked its way (exit 2,
the reason on stderr; Kimi Code ignores `{"decision": "block"}`): one block naming each open
`path:line`, then a free stop once the boxes are ticked; a text-only answer is not blocked
again. Kimi Code allows one continuation per turn and runs no Stop hook after it, so a model
that works but never ticks gets one block per prompt whatever `maxNoProgressNudges` says (the
no-progress pause needs a second Stop in the turn, which never comes). Esc runs its Interrupt
hook: no nudge, the session paused until the next prompt; a failed turn (`StopFailure`) is
paused `error`. Its own list is the `TodoList` tool. (With one continuation a turn, "a text-only
answer is not blocked again" holds by Kimi Code's rule as much as by todo-ls's.)"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.agent_harness import Project
from support.fake_agent_models import FakeChatCompletionsAPI
from support.fake_model import Reply, http_error, stall, text
from support.kimi_agent import KimiCode
from support.reliability_support import wait_until
from support.stop_scenarios import (
    WatchingServer,
    blocks_once_naming_each_then_stops,
    busy,
    finish,
    text_only_answer_is_not_blocked_again,
)

from todo_ls.store import Store

pytestmark = [pytest.mark.agents, pytest.mark.timeout(300)]


@pytest.fixture
def kimi(project: Project) -> Iterator[KimiCode]:
    with FakeChatCompletionsAPI() as model:
        yield KimiCode(project, model)


def install(kimi: KimiCode) -> None:
    said = kimi.project.install(kimi.host)
    assert "user's config" in said, f"install does not say where the hooks went: {said}"


def test_open_items_block_once_naming_each_and_the_ticked_plan_stops(kimi: KimiCode) -> None:
    install(kimi)
    blocks_once_naming_each_then_stops(kimi)
    # The reason follows the answer it blocked, as a user message of the same turn.
    said = [m for m in kimi.model.requests[1]["messages"] if m.get("role") != "system"]
    assert said[-2].get("role") == "assistant" and said[-1].get("role") == "user", said


def test_a_text_only_answer_is_not_blocked_again(kimi: KimiCode) -> None:
    install(kimi)
    text_only_answer_is_not_blocked_again(kimi)


def test_work_without_ticking_gets_one_block_a_prompt_kimi_code_s_own_cap(
    kimi: KimiCode,
) -> None:
    kimi.project.settings({"maxNoProgressNudges": 2})
    install(kimi)

    run = finish(kimi, *busy(kimi))

    # Kimi Code ran no Stop hook after its one continuation: todo-ls never saw the turn end,
    # so it blocked once and could not reach its own cap of 2.
    assert len(kimi.model.nudges()) == 1
    assert kimi.model.pending() > 0
    store = Store.open(kimi.project.state)
    try:
        session = store.hook_session(kimi.session_of(run))
    finally:
        store.close()
    assert session is not None and session.paused == ""


def test_esc_runs_the_interrupt_hook_no_nudge_and_a_pause_until_the_next_prompt(
    kimi: KimiCode, watching_server: WatchingServer
) -> None:
    install(kimi)
    kimi.model.script(stall(60, "Working"))
    tui = kimi.conversation()
    try:
        tui.trust_folder()
        tui.prompt("Work through PLAN.md.")
        kimi.model.wait_requests(1)
        tui.interrupt()
        session = kimi.session_of()
        paused = watching_server.wait_shown(session, "paused", "interrupt")
        assert paused.get("host") == "kimi-code"
        assert kimi.model.nudges() == [], "Kimi Code was nudged after Esc"
        kimi.model.release()

        # The next prompt is supervised again: its Stop is blocked once.
        kimi.model.script(text("Done."), text("I need your input."))
        tui.prompt("Go on.")
        try:
            kimi.model.wait_requests(3)
        except AssertionError:
            raise AssertionError(f"{len(kimi.model.requests)} requests:\n{tui.screen()}") from None
        wait_until(lambda: len(kimi.model.nudges()) == 1, 30.0, "one nudge after the prompt")
    finally:
        kimi.model.release()
        tui.stop()


def test_a_failed_turn_is_not_nudged_and_pauses_the_session(
    kimi: KimiCode, watching_server: WatchingServer
) -> None:
    install(kimi)
    kimi.model.script(http_error(400))

    run = kimi.run()

    assert kimi.model.nudges() == [], f"Kimi Code was nudged after a failure: {run.stderr[-1000:]}"
    paused = watching_server.wait_shown(kimi.session_of(run), "paused", "error")
    assert paused.get("host") == "kimi-code"


def test_the_todo_list_tool_is_its_own_list(kimi: KimiCode) -> None:
    install(kimi)
    todos = [
        {"title": "write the parser", "status": "done"},
        {"title": "ship", "status": "pending"},
    ]

    # Kimi Code runs PostToolUse without waiting for it, and print mode exits when the turn
    # ends: the list reaches todo-ls when the turn goes on a while after the call (here a
    # command of 2 s), not when the process exits right after it.
    listing = Reply(tool="TodoList", arguments={"todos": todos})
    run = finish(kimi, listing, kimi.shell("sleep 2"), text("Listed."))

    store = Store.open(kimi.project.state)
    try:
        listed = store.session_todos(kimi.session_of(run))
    finally:
        store.close()
    assert listed == [
        {"content": "write the parser", "status": "completed"},
        {"content": "ship", "status": "pending"},
    ]
    assert len(kimi.model.nudges()) == 1
