"""The promise every hook host keeps, as one set of checks the hosts' tests share: one block
naming each open `path:line` then a free stop once the boxes are ticked; a text-only answer not
blocked again; a model that works but never ticks let go after `maxNoProgressNudges` and shown
`paused` `no-progress` by a language server beside it. Each host's test module installs the
host its way (scope, trust step, a held session end) and adds what differs."""

from __future__ import annotations

import sys
from typing import Any

from support.agent_harness import OPEN_LINES, AgentRun, Json, Project
from support.chat_agents import ChatAgent
from support.fake_model import Reply, text
from support.lsp_harness import with_no_host
from support.reliability_support import StdioLanguageServer, wait_until
from support.session_gate import SessionEndGate, in_background

SHOWN = 10.0  # seconds for a hook event to reach the status (the server polls the store)


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


def finish(agent: ChatAgent, *script: Reply) -> AgentRun:
    """One prompt run with the model answering `script`, to a normal end."""
    agent.model.script(*script)
    run = agent.run()
    assert agent.finished(run), f"{agent.host} did not end normally: {run.stderr[-2000:]}"
    return run


def busy(agent: ChatAgent) -> list[Reply]:
    """A model that works (a command) and ends its turn, again and again, never ticking."""
    return [agent.shell("ls"), text("Still working on it.")] * 8


def blocks_once_naming_each_then_stops(agent: ChatAgent) -> AgentRun:
    """The model ends its turn with the plan open (blocked once, every open item named),
    ticks every box, ends its turn again and is let stop. The hooks are installed."""
    ticks = agent.tick()

    run = finish(agent, text("Done."), *ticks, text("All items are ticked."))

    nudges = agent.model.nudges()
    assert len(nudges) == 1, f"expected one block, the model received {len(nudges)}: {nudges}"
    first_line = nudges[0].split("\n", 1)[0]
    assert first_line.startswith("todo-ls") and "nudge #1" in first_line, nudges[0]
    for line in OPEN_LINES:
        assert f"PLAN.md:{line}" in nudges[0], f"PLAN.md:{line} missing: {nudges[0]}"
    assert "PLAN.md:4" not in nudges[0], "the nudge names the item that is done"
    assert agent.project.open_items() == 0
    # After the tick the turn ended and the hook let the agent stop: no further request.
    assert len(agent.model.requests) == 2 + len(ticks)
    return run


def text_only_answer_is_not_blocked_again(agent: ChatAgent) -> None:
    """Blocked once, the model answers in words only (it asks the user): let stop."""
    finish(agent, text("Done."), text("I need your input on the schema first."))

    assert len(agent.model.nudges()) == 1
    assert len(agent.model.requests) == 2, "the answer in words was blocked again"
    assert agent.project.open_items() == 2


def capped_and_shown_paused(
    agent: ChatAgent, server: WatchingServer, cap: int, gate: SessionEndGate | None = None
) -> Json:
    """A model that works but never ticks, with `maxNoProgressNudges = cap` set and the
    hooks installed: exactly `cap` blocks, then let go with work left, and `server` shows the
    session `paused` `no-progress` from this host. With `gate` the agent is held at its
    session end until then (session_gate.py: a print-mode run ends its session within one
    poll of the server). The entry shown is returned."""

    def shown(session: str) -> Json:
        blocks = len(agent.model.nudges())
        assert blocks == cap, f"{blocks} blocks with maxNoProgressNudges = {cap}"
        assert agent.model.pending() > 0, "the agent was not let go while it still had work"
        return server.wait_shown(session, "paused", "no-progress")

    if gate is None:
        paused = shown(agent.session_of(finish(agent, *busy(agent))))
    else:
        running = in_background(lambda: finish(agent, *busy(agent)))
        try:
            gate.wait_held(running)
            session = agent.stored_session()
            paused = shown(session)
            # What makes the wait honest: the hold came before todo-ls's session end.
            state = agent.stored_state(session)
            assert state != "ended", "the session ended while the gate held the agent"
        finally:
            gate.release()
        running.result(timeout=60)
    assert paused.get("host") == agent.host
    assert paused.get("nudges") == cap
    assert paused.get("open") == 2
    return paused
