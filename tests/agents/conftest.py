"""Fixtures of the agent tests: a throw-away project, the scripted fake models and the real
Claude Code, Codex and Gemini CLIs (agent_harness.py). The suites' shared doubles (the scripted
model server, the stdio language-server client, the editor harness's no-host URL) are imported
from their folders rather than copied."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.agent_harness import (
    Agent,
    ClaudeCode,
    Codex,
    Conversation,
    GeminiCli,
    HookAgent,
    Project,
)
from support.fake_agent_models import FakeGeminiAPI, FakeMessagesAPI, FakeResponsesAPI
from support.reliability_support import StdioLanguageServer
from support.stop_scenarios import WatchingServer


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """PLAN.md with two open items, subscribed by todo-ls.toml; HOME, CODEX_HOME, TMPDIR and
    the todo-ls state folder beside it."""
    return Project(tmp_path)


@pytest.fixture
def claude(project: Project) -> Iterator[ClaudeCode]:
    with FakeMessagesAPI() as model:
        yield ClaudeCode(project, model)


@pytest.fixture
def codex(project: Project) -> Iterator[Codex]:
    with FakeResponsesAPI() as model:
        yield Codex(project, model)


@pytest.fixture
def gemini(project: Project) -> Iterator[GeminiCli]:
    with FakeGeminiAPI() as model:
        yield GeminiCli(project, model)


FIXTURES = {"claude-code": "claude", "codex": "codex", "gemini-cli": "gemini"}


@pytest.fixture(params=["claude-code", "codex"])
def agent(request: pytest.FixtureRequest) -> Agent:
    """Claude Code and Codex in turn, for the behaviours both must show (their
    conversations run over stdio: stream-json, the app-server)."""
    found: Agent = request.getfixturevalue(FIXTURES[request.param])
    return found


@pytest.fixture(params=list(FIXTURES))
def hook_agent(request: pytest.FixtureRequest) -> HookAgent:
    """Every hook host in turn, for what one prompt run (`-p`, `exec`) shows."""
    found: HookAgent = request.getfixturevalue(FIXTURES[request.param])
    return found


@pytest.fixture
def conversation(agent: Agent) -> Iterator[Conversation]:
    """A multi-turn session of `agent` (Claude Code over stream-json, a Codex app-server
    thread), with the project's hooks installed before it starts."""
    agent.project.install(agent.host)
    session = agent.conversation()
    yield session
    session.stop()


@pytest.fixture
def language_server(project: Project) -> Iterator[StdioLanguageServer]:
    """A todo-ls language server over stdio on the project, sharing the hooks' state folder."""
    server = project.language_server()
    yield server
    server.stop()


@pytest.fixture
def watching_server(project: Project) -> Iterator[WatchingServer]:
    """A language server beside the agent remembering every session entry it showed."""
    server = WatchingServer(project)
    yield server
    server.stop()
