"""Fail open: when `todo-ls hook` cannot do its job (the agent's input is broken, the store
file is corrupt, the state folder cannot be written) the agent stops as if todo-ls were not
installed, the hook prints nothing (no block, no traceback on the agent's screen) and says
why in one log line per failed run."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest
from support.agent_harness import (
    Agent,
    AgentRun,
    ClaudeCode,
    ClaudeConversation,
    Conversation,
    hook_responses,
    start_held_turn,
)

from todo_ls.store import DB_NAME

pytestmark = [pytest.mark.agents, pytest.mark.timeout(180)]

STAMPED = "todo-ls hook: "  # every log line: "<UTC time> todo-ls hook: <event>: <problem>"


def feed_broken_input_to_stop(settings: Path) -> None:
    """Make the agent's Stop hook entries get a truncated JSON document on stdin instead of
    the agent's input (the other events keep theirs)."""
    truncated = shlex.quote('{"session_id": ')
    data = json.loads(settings.read_text(encoding="utf-8"))
    for group in data["hooks"]["Stop"]:
        for handler in group["hooks"]:
            handler["command"] = f"printf %s {truncated} | {handler['command']}"
    settings.write_text(json.dumps(data, indent=2), encoding="utf-8")


def read_only(folder: Path) -> list[str]:
    """A command prefix under which `folder` cannot be written. For root, whom file modes do
    not stop, a private mount namespace with a read-only bind mount of it."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        return []
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
    return ["unshare", "--map-root-user", "--mount", "sh", "-c", script, str(folder)]


def assert_stopped_unblocked(agent: Agent, run: AgentRun) -> None:
    assert agent.finished(run), f"{agent.host} did not end normally: {run.stderr[-2000:]}"
    assert agent.model.nudges() == [], "the failing hook blocked the agent"
    if isinstance(agent, ClaudeCode):
        for response in hook_responses(run.events, "Stop"):
            assert response.get("exit_code") == 0, response
            assert response.get("stdout") == "" and response.get("stderr") == "", response


def test_broken_input_at_the_stop(agent: Agent) -> None:
    agent.project.install(agent.host)
    feed_broken_input_to_stop(agent.project_settings)

    run = agent.run()

    assert_stopped_unblocked(agent, run)
    assert len(agent.model.requests) == 1
    log = agent.project.hook_log()
    assert len(log) == 1 and STAMPED in log[0], log


def test_a_store_corrupted_during_the_turn(agent: Agent, conversation: Conversation) -> None:
    model = agent.model
    start_held_turn(agent, conversation, "Done.")
    # While the model answers, the store file (and its write-ahead log, which would still
    # hold the pages) turns into garbage.
    store = agent.project.state / DB_NAME
    for extra in ("-wal", "-shm"):
        Path(f"{store}{extra}").unlink(missing_ok=True)
    store.write_bytes(b"not a database " * 300)
    model.release()

    assert conversation.finish_turn() == "completed"
    assert model.nudges() == [], "the failing hook blocked the agent"
    assert len(model.requests) == 1
    if isinstance(conversation, ClaudeConversation):
        for response in conversation.hook_responses("Stop"):
            assert response.get("stdout") == "" and response.get("stderr") == "", response
    log = agent.project.hook_log()
    assert len(log) == 1 and STAMPED in log[0] and "store" in log[0], log


def test_a_read_only_state_folder(agent: Agent) -> None:
    agent.project.install(agent.host)

    run = agent.run(wrap=read_only(agent.project.state))

    assert_stopped_unblocked(agent, run)
    assert len(agent.model.requests) == 1
    log = agent.project.hook_log()
    assert log and all(STAMPED in line for line in log), log
    if isinstance(agent, ClaudeCode):
        # One line per hook run, no more: the runs the output shows, and SessionEnd (it runs
        # as the process exits, after its last output).
        ran = [e["hook_event"] for e in run.events if e.get("subtype") == "hook_response"]
        logged = [line.split(STAMPED, 1)[1].split(":", 1)[0] for line in log]
        assert logged == [f"claude-code {event}" for event in [*ran, "SessionEnd"]], logged
