"""The Stop hook in the real Qwen Code, Copilot CLI and Droid, hooks written by `todo-ls
install`: one block naming each open `path:line`, then a free stop once the boxes are ticked;
a text-only answer is not blocked again; a model that works but never ticks is let go after
`maxNoProgressNudges` and a language server shows it `paused` `no-progress`; three
registrations block once. Then what differs per host: the nudge handed back as a prompt does
not start a new episode (Qwen Code, Copilot CLI), Qwen Code's own list and Esc in its TUI,
Copilot CLI's folder trust."""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator

import pytest
from support.agent_harness import HELD, VENV_BIN, Project, wait_session
from support.chat_agents import ChatAgent, CopilotCLI, Droid, QwenCode
from support.fake_agent_models import FakeChatCompletionsAPI
from support.fake_model import stall, text
from support.reliability_support import StdioLanguageServer
from support.session_gate import HOLD_S, SessionEndGate
from support.stop_scenarios import (
    SHOWN,
    WatchingServer,
    blocks_once_naming_each_then_stops,
    busy,
    capped_and_shown_paused,
    finish,
    text_only_answer_is_not_blocked_again,
)

pytestmark = [pytest.mark.agents, pytest.mark.timeout(240)]

AGENTS: dict[str, type[ChatAgent]] = {
    "qwen-code": QwenCode,
    "copilot-cli": CopilotCLI,
    "droid": Droid,
}


@pytest.fixture(params=sorted(AGENTS))
def chat_agent(request: pytest.FixtureRequest, project: Project) -> Iterator[ChatAgent]:
    with FakeChatCompletionsAPI() as model:
        yield AGENTS[request.param](project, model)


@pytest.fixture
def qwen(project: Project) -> Iterator[QwenCode]:
    with FakeChatCompletionsAPI() as model:
        yield QwenCode(project, model)


@pytest.fixture
def copilot(project: Project) -> Iterator[CopilotCLI]:
    with FakeChatCompletionsAPI() as model:
        yield CopilotCLI(project, model)


def test_open_items_block_once_naming_each_and_the_ticked_plan_stops(chat_agent: ChatAgent) -> None:
    chat_agent.project.install(chat_agent.host)
    blocks_once_naming_each_then_stops(chat_agent)


def test_a_text_only_answer_is_not_blocked_again(chat_agent: ChatAgent) -> None:
    chat_agent.project.install(chat_agent.host)
    text_only_answer_is_not_blocked_again(chat_agent)


def test_work_without_ticking_is_capped_and_shows_paused_no_progress(
    chat_agent: ChatAgent, watching_server: WatchingServer
) -> None:
    chat_agent.project.settings({"maxNoProgressNudges": 2})
    chat_agent.project.install(chat_agent.host, "--scope", "user")
    gate = hold_session_end(chat_agent, stops=3)  # two blocks, then the Stop let go
    paused = capped_and_shown_paused(chat_agent, watching_server, 2, gate)
    if gate is None:  # Qwen Code: its run ended, its session did not (nothing to hold)
        assert chat_agent.stored_state(str(paused["id"])) != "ended"


def hold_session_end(agent: ChatAgent, stops: int) -> SessionEndGate | None:
    """A hook of the user's own that holds the agent's session end on the test's gate
    (session_gate.py: print mode ends the session at once, and an ended session leaves the
    editors' list before the language server's 0.5 s poll has shown its pause), each host
    its way, as seen with these versions:

    - Copilot CLI runs one event's hooks one after the other, in their order: a `SessionEnd`
      hook before todo-ls's.
    - Droid runs them side by side (todo-ls's ends the session while another still waits), but
      ends the session only after every hook of the last Stop returned: a Stop hook after
      todo-ls's that holds at the `stops`-th Stop, the one todo-ls lets go.
    - Qwen Code fires no `SessionEnd` in print mode (only its TUI, `/clear` and ACP do): the
      session stays paused in the store after the run, nothing to hold (None)."""
    if isinstance(agent, QwenCode):
        return None
    gate = SessionEndGate(agent.project.tmp)
    settings = json.loads(agent.user_settings.read_text(encoding="utf-8"))
    hooks = settings["hooks"]
    if isinstance(agent, CopilotCLI):
        hold = {"type": "command", "bash": gate.command(), "timeoutSec": HOLD_S + 30}
        hooks["SessionEnd"].insert(0, hold)
    else:  # Droid
        command = {"type": "command", "command": gate.command(at=stops), "timeout": HOLD_S + 30}
        hooks["Stop"].append({"hooks": [command]})
    agent.write_user_settings(settings)
    return gate


def test_three_registrations_block_once(chat_agent: ChatAgent) -> None:
    # The user's and the project's install (the script and `python -m todo_ls`: two command
    # strings), and a third command wrapping the script that starts half a second late.
    chat_agent.project.install(chat_agent.host, "--scope", "user")
    chat_agent.project.install(chat_agent.host, "--scope", "project", module=True)
    wrapped = f"sleep 0.5; {shlex.quote(str(VENV_BIN / 'todo-ls'))} hook --host {chat_agent.host}"
    add_stop_handler(chat_agent, wrapped)
    ticks = chat_agent.tick()

    finish(chat_agent, text("Done."), *ticks, text("All items are ticked."))

    nudges = chat_agent.model.nudges()
    assert len(nudges) == 1, f"three registrations gave {len(nudges)} blocks: {nudges}"
    assert chat_agent.project.open_items() == 0


def add_stop_handler(agent: ChatAgent, command: str) -> None:
    """One more Stop handler in the project's hooks file, in the host's own shape."""
    settings = json.loads(agent.project_settings.read_text(encoding="utf-8"))
    stop = settings["hooks"]["Stop"]
    if isinstance(agent, CopilotCLI):
        stop.append({"type": "command", "bash": command, "timeoutSec": 30})
    else:
        stop.append({"hooks": [{"type": "command", "command": command, "timeout": 30}]})
    agent.project_settings.write_text(json.dumps(settings), encoding="utf-8")


@pytest.mark.parametrize("fixture", ["qwen", "copilot"])
def test_the_nudge_handed_back_as_a_prompt_does_not_reset_the_episode_cap(
    request: pytest.FixtureRequest, fixture: str
) -> None:
    # Both hosts fire their prompt hook for the nudge (Qwen Code without `submitted_prompt`,
    # Copilot CLI with the nudge as `prompt`). Were it a user prompt, each block would start
    # a new episode and only the host's own cap of 8 would end the loop.
    agent: ChatAgent = request.getfixturevalue(fixture)
    agent.project.settings({"maxNoProgressNudges": 10, "maxNudgesPerEpisode": 2})
    agent.project.install(agent.host)

    finish(agent, *busy(agent))

    blocks = len(agent.model.nudges())
    assert blocks == 2, f"{blocks} blocks with maxNudgesPerEpisode = 2"


def test_qwen_own_todo_list_is_named_and_counted(
    qwen: QwenCode, language_server: StdioLanguageServer
) -> None:
    qwen.enable_todo_list()
    qwen.project.install(qwen.host)
    own = [("write the tests", "in_progress"), ("read the docs", "completed")]
    done = [("write the tests", "completed"), ("read the docs", "completed")]
    qwen.model.script(
        qwen.todo_list(own),
        text("Done."),  # ends the turn: blocked
        *qwen.tick(),
        qwen.todo_list(done),
        text("All done."),
    )

    run = qwen.run()

    assert qwen.finished(run), run.stderr[-2000:]
    nudges = qwen.model.nudges()
    assert len(nudges) == 1, nudges
    assert "write the tests" in nudges[0] and "read the docs" not in nudges[0], nudges[0]
    assert "PLAN.md:3" in nudges[0] and "PLAN.md:5" in nudges[0]
    finished = wait_session(
        language_server,
        qwen.session_of(run),
        lambda s: s.get("todos") == {"open": 0, "total": 2} and s.get("open") == 0,
        "the own list and the plan done",
        SHOWN,
    )
    assert finished.get("nudges") == 1


def test_qwen_esc_in_the_tui_is_not_blocked_and_the_next_prompt_is_supervised(
    qwen: QwenCode,
) -> None:
    qwen.project.install(qwen.host)
    tui = qwen.conversation()
    try:
        model = qwen.model
        model.script(stall(HELD, "Looking at the plan."))
        tui.start_turn("Work through PLAN.md.")
        model.wait_for(lambda m: m.pending() == 0, 60)  # the held answer is streaming

        tui.interrupt()

        tui.wait_cancelled()
        model.release()  # the stalled answer nobody reads any more
        assert len(model.requests) == 1, "the model was asked again after Esc"
        # The next real prompt: ends its turn with the plan open → one nudge; ticks; stops.
        model.script(text("Done."), *qwen.tick(), text("All items are ticked."))
        tui.start_turn("Go on.")
        assert tui.finish_turn(90) == "completed"
        # The conversation is cumulative: a block after Esc would be a second nudge here.
        nudges = model.nudges()
        assert len(nudges) == 1, f"{len(nudges)} nudges: one came after Esc? {nudges}"
        assert "PLAN.md:3" in nudges[0] and "PLAN.md:5" in nudges[0]
        assert qwen.project.open_items() == 0
    finally:
        tui.stop()


def test_copilot_runs_the_repository_hooks_only_in_a_trusted_folder(copilot: CopilotCLI) -> None:
    said = copilot.project.install(copilot.host)
    assert "trust" in said, f"install does not name the trust step: {said}"
    copilot.trust_folder = False
    copilot.model.script(text("Done."))
    run = copilot.run()
    assert copilot.finished(run)
    assert copilot.model.nudges() == [], "the hooks of an untrusted folder ran"

    copilot.trust_folder = True
    copilot.model.script(text("Done."), *copilot.tick(), text("All items are ticked."))
    run = copilot.run()
    assert copilot.finished(run)
    assert len(copilot.model.nudges()) == 1
