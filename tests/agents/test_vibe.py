"""The Stop hook in the real Mistral Vibe, its hooks written by `todo-ls install` and answered
its way (`{"decision": "deny"}`; Vibe ignores `block`): one block naming each open `path:line`,
then a free stop once the boxes are ticked; a text-only answer is not blocked again (Vibe sends
no `stop_hook_active`: todo-ls remembers its own block); a model that works but never ticks is
let go after `maxNoProgressNudges` and a language server shows it `paused` `no-progress`. Vibe
drops the answer it blocks (the nudge stands alone) and skips a project's hooks in an untrusted
folder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.agent_harness import Project
from support.chat_agents import ChatAgent
from support.fake_agent_models import FakeChatCompletionsAPI
from support.fake_model import text
from support.stop_scenarios import (
    WatchingServer,
    blocks_once_naming_each_then_stops,
    capped_and_shown_paused,
    finish,
    text_only_answer_is_not_blocked_again,
)
from support.vibe_agent import MistralVibe

pytestmark = [pytest.mark.agents, pytest.mark.timeout(300)]


@pytest.fixture
def vibe(project: Project) -> Iterator[MistralVibe]:
    with FakeChatCompletionsAPI() as model:
        yield MistralVibe(project, model)


def install(agent: ChatAgent) -> None:
    """The user's install: user scope (Vibe's project hooks need a trusted folder, tested on
    its own below)."""
    agent.project.install(agent.host, "--scope", "user")


def test_open_items_block_once_naming_each_and_the_ticked_plan_stops(vibe: MistralVibe) -> None:
    install(vibe)
    blocks_once_naming_each_then_stops(vibe)


def test_a_text_only_answer_is_not_blocked_again(vibe: MistralVibe) -> None:
    install(vibe)
    text_only_answer_is_not_blocked_again(vibe)


def test_work_without_ticking_is_capped_and_shows_paused_no_progress(
    vibe: MistralVibe, watching_server: WatchingServer
) -> None:
    vibe.project.settings({"maxNoProgressNudges": 2})
    install(vibe)
    capped_and_shown_paused(vibe, watching_server, 2)


def test_vibe_asks_again_with_the_nudge_alone(vibe: MistralVibe) -> None:
    install(vibe)

    finish(vibe, text("Plan written, stopping here."), text("I need your input."))

    # Vibe discards the answer it was told to revise: the model sees the prompt, then the
    # nudge, and nothing of its own answer, so the nudge must say everything.
    second = vibe.model.requests[1]["messages"]
    said = [m for m in second if m.get("role") != "system"]
    assert [m.get("role") for m in said] == ["user", "user"], said
    nudge = str(said[-1].get("content"))
    assert "Plan written" not in str(second)
    assert "PLAN.md:3" in nudge and "PLAN.md:5" in nudge and "tick its box" in nudge


def test_vibe_runs_project_hooks_only_in_a_trusted_folder(vibe: MistralVibe) -> None:
    said = vibe.project.install(vibe.host)
    assert "trusted folder" in said, f"install does not name the trust step: {said}"
    finish(vibe, text("Done."))
    assert vibe.model.nudges() == [], "the hooks of an untrusted folder ran"

    vibe.trust()
    finish(vibe, text("Done."), *vibe.tick(), text("All items are ticked."))
    assert len(vibe.model.nudges()) == 1
    assert vibe.project.open_items() == 0
