"""A user interrupt is never answered with a block, and the next real prompt is supervised
again: Claude Code runs no Stop hook after a stream-json interrupt; Codex runs its Interrupt
hook after `turn/interrupt`, and Gemini CLI its `AfterAgent` after Esc in the TUI, which both
pause the session until the user writes."""

from __future__ import annotations

import pytest
from support.agent_harness import (
    ClaudeConversation,
    Conversation,
    HookAgent,
    start_held_turn,
    wait_paused,
    wait_session,
)
from support.fake_agent_models import tick_all
from support.fake_model import text
from support.reliability_support import StdioLanguageServer

pytestmark = [pytest.mark.agents, pytest.mark.timeout(240)]


@pytest.fixture
def agent(hook_agent: HookAgent) -> HookAgent:
    """Every hook host in turn (Gemini CLI in its TUI under tmux, where Esc is pressed)."""
    return hook_agent


def test_interrupted_turn_is_not_blocked_and_the_next_prompt_is_supervised(
    agent: HookAgent,
    conversation: Conversation,
    language_server: StdioLanguageServer,
) -> None:
    model = agent.model
    start_held_turn(agent, conversation, "Looking at the plan.")

    conversation.interrupt()

    assert conversation.finish_turn() == "interrupted"
    model.release()  # the stalled answer nobody reads any more
    assert model.nudges() == [], "an interrupted turn was answered with a nudge"
    assert len(model.requests) == 1, "the model was asked again after the interrupt"
    if isinstance(conversation, ClaudeConversation):
        assert conversation.hook_responses("Stop") == [], "a Stop hook ran after the interrupt"
    else:  # Codex's Interrupt hook, Gemini CLI's AfterAgent: paused until the user writes
        paused = wait_paused(language_server, conversation.session_id, "interrupt")
        assert paused.get("host") == agent.host

    # The next real prompt: ends its turn with the plan open → one nudge; ticks; stops.
    model.script(text("Done."), agent.shell(tick_all()), text("All items are ticked."))
    conversation.start_turn("Go on.")

    assert conversation.finish_turn() == "completed"
    nudges = model.nudges()
    assert len(nudges) == 1, f"the prompt after the interrupt got {len(nudges)} nudges: {nudges}"
    assert "PLAN.md:3" in nudges[0] and "PLAN.md:5" in nudges[0]
    assert agent.project.open_items() == 0
    wait_session(
        language_server,
        conversation.session_id,
        lambda s: s.get("pausedReason") is None and s.get("nudges") == 1,
        "no longer paused, one nudge in this episode",
    )
