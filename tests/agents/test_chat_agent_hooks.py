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
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from support.agent_harness import HELD, OPEN_LINES, VENV_BIN, AgentRun, Json, Project, wait_session
from support.chat_agents import ChatAgent, CopilotCLI, Droid, QwenCode
from support.fake_agent_models import FakeChatCompletionsAPI
from support.fake_model import Reply, stall, text
from support.lsp_harness import with_no_host
from support.reliability_support import StdioLanguageServer, wait_until
from support.session_gate import SessionEndGate, in_background

pytestmark = [pytest.mark.agents, pytest.mark.timeout(240)]

AGENTS: dict[str, type[ChatAgent]] = {
    "qwen-code": QwenCode,
    "copilot-cli": CopilotCLI,
    "droid": Droid,
}
SHOWN = 10.0  # seconds for a hook event to reach the status (the server polls the store)


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


class WatchingServer(StdioLanguageServer):
    """A language server beside the agent that remembers every session entry its status
    showed: a print-mode run ends its session (`SessionEnd`) as it exits, and an ended
    session leaves the editor's list."""

    def __init__(self, project: Project) -> None:
        self.shown: list[Json] = []
        settings: Json = {"markdownFiles": ["PLAN.md"]}
        command = [sys.executable, "-m", "todo_ls"]
        super().__init__(command, project.env(), project.root, with_no_host(settings))

    @property  # type: ignore[override]
    def supervisor(self) -> dict[str, Any]:
        return self._supervisor

    @supervisor.setter
    def supervisor(self, value: dict[str, Any]) -> None:
        self._supervisor = value
        self.shown += [dict(s) for s in value.get("sessions") or []]

    def wait_shown(self, session_id: str, state: str, reason: str) -> Json:
        """The first entry of the session shown in `state` with `reason`, waiting for it."""
        found: list[Json] = []

        def seen() -> bool:
            found[:] = [
                s
                for s in self.shown
                if s.get("id") == session_id
                and s.get("state") == state
                and s.get("pausedReason") == reason
            ][:1]
            return bool(found)

        try:
            wait_until(seen, SHOWN, f"{state} {reason}")
        except AssertionError as exc:
            raise AssertionError(f"{exc}; {session_id} was shown as: {self.shown}") from None
        return found[0]


@pytest.fixture
def watching_server(project: Project) -> Iterator[WatchingServer]:
    server = WatchingServer(project)
    yield server
    server.stop()


def test_open_items_block_once_naming_each_and_the_ticked_plan_stops(chat_agent: ChatAgent) -> None:
    chat_agent.project.install(chat_agent.host)
    # 1: ends the turn with the plan open → blocked; then ticks every box; then ends the turn.
    ticks = chat_agent.tick()

    finish(chat_agent, text("Done."), *ticks, text("All items are ticked."))

    nudges = chat_agent.model.nudges()
    assert len(nudges) == 1, f"expected one block, the model received {len(nudges)}: {nudges}"
    first_line = nudges[0].split("\n", 1)[0]
    assert first_line.startswith("todo-ls") and "nudge #1" in first_line, nudges[0]
    for line in OPEN_LINES:
        assert f"PLAN.md:{line}" in nudges[0], f"PLAN.md:{line} missing: {nudges[0]}"
    assert "PLAN.md:4" not in nudges[0], "the nudge names the item that is done"
    assert chat_agent.project.open_items() == 0
    # After the tick the turn ended and the hook let the agent stop: no further request.
    assert len(chat_agent.model.requests) == 2 + len(ticks)


def test_a_text_only_answer_is_not_blocked_again(chat_agent: ChatAgent) -> None:
    chat_agent.project.install(chat_agent.host)

    finish(chat_agent, text("Done."), text("I need your input on the schema first."))

    assert len(chat_agent.model.nudges()) == 1
    assert len(chat_agent.model.requests) == 2, "the answer in words was blocked again"
    assert chat_agent.project.open_items() == 2


def test_work_without_ticking_is_capped_and_shows_paused_no_progress(
    chat_agent: ChatAgent, watching_server: WatchingServer
) -> None:
    chat_agent.project.settings({"maxNoProgressNudges": 2})
    chat_agent.project.install(chat_agent.host, "--scope", "user")
    # The user's own Stop hook after todo-ls's, slow enough for the editor to show the
    # session paused before the agent exits (whether the host runs the two side by side or
    # one after the other).
    add_user_stop_hook(chat_agent, "sleep 1")

    run = finish(chat_agent, *busy(chat_agent))

    blocks = len(chat_agent.model.nudges())
    assert blocks == 2, f"{blocks} blocks with maxNoProgressNudges = 2"
    assert chat_agent.model.pending() > 0, "the agent was not let go while it still had work"
    paused = watching_server.wait_shown(chat_agent.session_of(run), "paused", "no-progress")
    assert paused.get("host") == chat_agent.host
    assert paused.get("nudges") == blocks
    assert paused.get("open") == 2


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


def finish(agent: ChatAgent, *script: Reply) -> AgentRun:
    """One prompt run with the model answering `script`, to a normal end."""
    agent.model.script(*script)
    run = agent.run()
    assert agent.finished(run), f"{agent.host} did not end normally: {run.stderr[-2000:]}"
    return run


def busy(agent: ChatAgent) -> list[Reply]:
    """A model that works (a command) and ends its turn, again and again, never ticking."""
    return [agent.shell("ls"), text("Still working on it.")] * 8


def capped_with_the_end_held(
    agent: ChatAgent, gate: SessionEndGate, server: WatchingServer, cap: int
) -> Json:
    """`busy` run to the no-progress `cap` with the agent held at its session end (`gate`)
    until `server` showed the session paused `no-progress`; the entry it showed."""
    running = in_background(lambda: finish(agent, *busy(agent)))
    try:
        gate.wait_held(running)
        blocks = len(agent.model.nudges())
        assert blocks == cap, f"{blocks} blocks with maxNoProgressNudges = {cap}"
        assert agent.model.pending() > 0, "the agent was not let go while it still had work"
        paused = server.wait_shown(agent.stored_session(), "paused", "no-progress")
    finally:
        gate.release()
    running.result(timeout=60)
    return paused


def add_user_stop_hook(agent: ChatAgent, command: str) -> None:
    """A Stop hook of the user's own after todo-ls's in the agent's user settings, in the
    host's shape."""
    settings = json.loads(agent.user_settings.read_text(encoding="utf-8"))
    stop = settings.setdefault("hooks", {}).setdefault("Stop", [])
    if isinstance(agent, CopilotCLI):
        stop.append({"type": "command", "bash": command, "timeoutSec": 30})
    else:
        stop.append({"hooks": [{"type": "command", "command": command, "timeout": 30}]})
    agent.write_user_settings(settings)


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
