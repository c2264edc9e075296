"""What an editor shows of a hook host's session: a todo-ls language server over stdio,
started beside the agent on the same project and state folder, lists the session in
`todoLs/status` with its host, state and counts, and its `todoLs.pause` / `todoLs.resume`
decide the agent's next Stop."""

from __future__ import annotations

import pytest
from support.agent_harness import (
    HELD,
    Agent,
    ClaudeCode,
    Conversation,
    start_held_turn,
    wait_paused,
    wait_session,
)
from support.fake_agent_models import tick_all
from support.fake_model import stall, text
from support.reliability_support import StdioLanguageServer

pytestmark = [pytest.mark.agents, pytest.mark.timeout(180)]

SHOWN = 5.0  # seconds for a hook event to reach the status (the server polls the store)


def test_the_session_shows_working_during_the_turn_and_idle_after_it(
    agent: Agent,
    conversation: Conversation,
    language_server: StdioLanguageServer,
) -> None:
    model = agent.model
    after_the_nudge = [agent.shell(tick_all()), text("All items are ticked.")]
    start_held_turn(agent, conversation, "Reading the plan.", *after_the_nudge)
    sid = conversation.session_id

    working = wait_session(
        language_server, sid, lambda s: s.get("state") == "working", "working", SHOWN
    )
    assert working.get("host") == agent.host
    # Nothing can prompt these agents from outside: the editor's "Nudge now" says so.
    answer = language_server.command("todoLs.nudge", {"sessionID": sid})
    assert answer["sent"] == [], answer
    assert [s["sessionID"] for s in answer["skipped"]] == [sid], answer
    assert agent.host in answer["skipped"][0]["reason"], answer

    model.release()
    assert conversation.finish_turn() == "completed"
    assert len(model.nudges()) == 1
    # Nothing is open any more: `done` (the idle state of a finished plan).
    idle = wait_session(
        language_server,
        sid,
        lambda s: s.get("state") in ("idle", "done") and s.get("nudges") == 1,
        "idle or done after one nudge",
        SHOWN,
    )
    assert idle.get("host") == agent.host
    assert idle.get("open") == 0
    assert idle.get("pausedReason") is None


def test_a_session_that_never_progresses_shows_paused_no_progress(
    agent: Agent,
    conversation: Conversation,
    language_server: StdioLanguageServer,
) -> None:
    agent.project.settings({"maxNoProgressNudges": 2})
    agent.model.script(*[agent.shell("ls"), text("Still working on it.")] * 8)

    conversation.start_turn("Work through PLAN.md.")

    assert conversation.finish_turn() == "completed"
    blocks = len(agent.model.nudges())
    assert 1 <= blocks <= 2, f"{blocks} blocks with maxNoProgressNudges = 2"
    paused = wait_paused(language_server, conversation.session_id, "no-progress", SHOWN)
    assert paused.get("host") == agent.host
    assert paused.get("nudges") == blocks
    assert paused.get("open") == 2


def test_pause_from_the_language_server_lets_the_next_stop_through(
    agent: Agent,
    conversation: Conversation,
    language_server: StdioLanguageServer,
) -> None:
    model = agent.model
    start_held_turn(agent, conversation, "Reading the plan.")
    sid = conversation.session_id
    wait_session(language_server, sid, lambda s: s.get("state") == "working", "working", SHOWN)

    answer = language_server.command("todoLs.pause", {"sessionID": sid})

    assert [s.get("id") for s in answer["sessions"]] == [sid], answer
    model.release()
    assert conversation.finish_turn() == "completed"
    assert model.nudges() == [], "the paused session was blocked at its Stop"
    assert len(model.requests) == 1
    wait_paused(language_server, sid, "user", SHOWN)

    # Resumed, the next turn that ends with the plan open is blocked again.
    language_server.command("todoLs.resume", {"sessionID": sid})
    model.script(text("Done."), agent.shell(tick_all()), text("All items are ticked."))
    conversation.start_turn("Go on.")
    assert conversation.finish_turn() == "completed"
    assert len(model.nudges()) == 1


def test_the_sessions_own_todo_list_is_counted_and_named_in_the_nudge(
    agent: Agent, language_server: StdioLanguageServer
) -> None:
    agent.enable_todo_list()
    agent.project.install(agent.host)
    conversation = agent.conversation()
    try:
        model = agent.model
        own = [("write the tests", "in_progress"), ("read the docs", "completed")]
        done = [("write the tests", "completed"), ("read the docs", "completed")]
        model.script(
            *agent.todo_list(own, first=True),
            stall(HELD, "Done."),  # ends the turn once released
            agent.shell(tick_all()),  # after the nudge: ticks the plan…
            *agent.todo_list(done),  # …and completes its own list
            text("All done."),
        )
        conversation.start_turn("Work through PLAN.md.")
        model.wait_for(lambda m: m.pending() == 3)  # the stalled answer is being sent
        sid = conversation.session_id
        if isinstance(agent, ClaudeCode):
            # Its PostToolUse hook sees each TodoWrite; Codex's plan is read from its rollout
            # file at the Stop.
            wait_session(
                language_server,
                sid,
                lambda s: s.get("todos") == {"open": 1, "total": 2},
                "the session's own list: 1 of 2 open",
                SHOWN,
            )

        model.release()
        assert conversation.finish_turn() == "completed"
        nudges = model.nudges()
        assert len(nudges) == 1, nudges
        assert "write the tests" in nudges[0] and "read the docs" not in nudges[0], nudges[0]
        assert "PLAN.md:3" in nudges[0] and "PLAN.md:5" in nudges[0]
        finished = wait_session(
            language_server,
            sid,
            lambda s: s.get("todos") == {"open": 0, "total": 2} and s.get("open") == 0,
            "the own list and the plan done",
            SHOWN,
        )
        assert finished.get("nudges") == 1
    finally:
        conversation.stop()


def test_a_text_only_answer_shows_idle_answered_without_working(
    agent: Agent,
    conversation: Conversation,
    language_server: StdioLanguageServer,
) -> None:
    model = agent.model
    model.script(text("Done."), text("I need your input on the schema first."))

    conversation.start_turn("Work through PLAN.md.")

    assert conversation.finish_turn() == "completed"
    assert len(model.nudges()) == 1
    answered = wait_session(
        language_server,
        conversation.session_id,
        lambda s: s.get("state") == "idle" and s.get("detail") == "answered without working",
        "idle, answered without working",
        SHOWN,
    )
    assert answered.get("host") == agent.host
    assert (answered.get("nudges"), answered.get("open")) == (1, 2)

    # The user's answer is a new episode: its turn ending with the plan open is nudged.
    model.script(text("Noted."), agent.shell(tick_all()), text("All items are ticked."))
    conversation.start_turn("Use JSON for the schema.")
    assert conversation.finish_turn() == "completed"
    assert len(model.nudges()) == 2
    assert agent.project.open_items() == 0
