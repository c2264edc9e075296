"""The agent todo tools end to end on a real OpenCode 1.18.33: configured by
`todo-ls install opencode` (MCP server `todo` + the companion plugin), the scripted fake model
calling `todo_todo_write`, `todo-ls supervise` nudging from the lists.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.fake_model import FakeModel, Reply, text
from support.scenarios import OpencodeServer, Supervisor, until

from todo_ls.store import Store

pytestmark = [pytest.mark.opencode, pytest.mark.timeout(180)]

TODO_LS = Path(sys.executable).with_name("todo-ls")


class RoutedModel(FakeModel):
    """The fake model with one script per session, told apart by the session's first prompt,
    so two sessions can run at the same time."""

    def __init__(self) -> None:
        super().__init__()
        self.routes: dict[str, list[Reply]] = {}

    def next_reply(self, body: dict[str, Any]) -> Reply:
        reply = super().next_reply(body)  # records the request; the shared script stays empty
        if not body.get("tools"):
            return reply
        first = next(iter(self.user_texts(body)), "")
        with self._lock:
            script = self.routes.get(first)
            return script.pop(0) if script else reply

    def of(self, prompt: str) -> list[dict[str, Any]]:
        """The agent requests of the session whose first prompt was `prompt`."""
        with self._lock:
            return [r for r in self.requests if next(iter(self.user_texts(r)), "") == prompt]


def todo_write(*items: tuple[str, str]) -> Reply:
    """The model calls todo-ls's `todo_write` as OpenCode names it (`<server>_<tool>`)."""
    todos = [{"content": c, "status": s} for c, s in items]
    return Reply(tool="todo_todo_write", arguments={"todos": todos})


class McpOpencode(OpencodeServer):
    """The real server with todo-ls installed in its project and a shared todo-ls state dir."""

    def __init__(self, root: Path, model: FakeModel) -> None:
        super().__init__(root, model)
        self.state_dir = root / "todo-ls-state"
        base = self.env()
        config = Path(base["XDG_CONFIG_HOME"]) / "opencode"
        # The state a user's config folder is in once OpenCode has installed its plugin package
        # there (it does that on its first start online); without it an offline start waits
        # ~70 s for the package registry whenever a plugin is configured.
        (config / "node_modules").mkdir(parents=True, exist_ok=True)
        lock = {
            "lockfileVersion": 3,
            "packages": {"": {"dependencies": {"@opencode-ai/plugin": "1.18.33"}}},
        }
        (config / "package-lock.json").write_text(json.dumps(lock))

    def env(self) -> dict[str, str]:
        env = super().env()
        env["TODO_LS_STATE_DIR"] = str(self.root / "todo-ls-state")
        return env


def install(project: Path, env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(TODO_LS), "install", "opencode", "--directory", str(project), *extra],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def model() -> Iterator[RoutedModel]:
    with RoutedModel() as routed:
        yield routed


@pytest.fixture
def server(tmp_path: Path, model: RoutedModel) -> Iterator[McpOpencode]:
    srv = McpOpencode(tmp_path, model)
    done = install(srv.project, srv.env())
    assert done.returncode == 0, done.stdout + done.stderr
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
async def supervisor(server: McpOpencode) -> AsyncIterator[Supervisor]:
    sup = Supervisor(server.project, server.url, server.state_dir).start()
    await sup.wait_for(lambda s: any(line.startswith("connected") for line in s.lines))
    yield sup
    await sup.stop()


def system_text(request: dict[str, Any]) -> str:
    parts = []
    for message in request.get("messages", []):
        if message.get("role") == "system":
            content = message.get("content")
            parts.append(content if isinstance(content, str) else json.dumps(content))
    return "\n".join(parts)


def tool_names(request: dict[str, Any]) -> list[str]:
    return [t.get("function", {}).get("name", "") for t in request.get("tools", [])]


async def test_install_is_idempotent_and_keeps_the_project_config(server: McpOpencode) -> None:
    config = server.project / "opencode.json"
    first = config.read_text()
    again = install(server.project, server.env())
    assert again.returncode == 0 and "already installed" in again.stdout
    assert config.read_text() == first
    written = json.loads(first)
    assert written["mcp"]["todo"]["command"] == [str(TODO_LS.resolve()), "mcp"]
    assert written["plugin"][0].endswith("/todo-ls-v1.js")
    mcp = await asyncio.to_thread(server.get, "/mcp", directory=str(server.project))
    assert mcp["todo"]["status"] == "connected"


async def test_two_sessions_keep_their_own_lists_and_nudges(
    server: McpOpencode, model: RoutedModel, supervisor: Supervisor
) -> None:
    parser_prompt, docs_prompt = "Plan the parser.", "Plan the docs."
    model.routes[parser_prompt] = [
        todo_write(("Write the parser", "in_progress"), ("Add parser tests", "pending")),
        text("Parser work stops here."),
    ]
    model.routes[docs_prompt] = [
        todo_write(("Write the user guide", "in_progress")),
        text("Docs work stops here."),
    ]
    first = await asyncio.to_thread(server.create_session, "Parser")
    second = await asyncio.to_thread(server.create_session, "Docs")
    await asyncio.gather(
        asyncio.to_thread(server.prompt, first, parser_prompt),
        asyncio.to_thread(server.prompt, second, docs_prompt),
    )
    await supervisor.wait_for(lambda s: bool(s.nudges(first)) and bool(s.nudges(second)), 60)

    assert "todo_todo_write" in tool_names(model.of(parser_prompt)[0])
    store = Store.open(server.state_dir)
    try:
        lists = {sid: store.session_todos(sid) for sid in (first, second)}
    finally:
        store.close()
    assert [t["content"] for t in lists[first] or []] == ["Write the parser", "Add parser tests"]
    assert [t["content"] for t in lists[second] or []] == ["Write the user guide"]

    nudges = {sid: await asyncio.to_thread(server.synthetic_texts, sid) for sid in (first, second)}
    assert "Write the parser" in nudges[first][0] and "Add parser tests" in nudges[first][0]
    assert "Write the user guide" not in nudges[first][0]
    assert "Write the user guide" in nudges[second][0]
    assert "Write the parser" not in nudges[second][0]

    # Context injection: the request right after each todo_write carries that session's list
    # in its system prompt, and only that session's; before it there is nothing to inject.
    parser_requests, docs_requests = model.of(parser_prompt), model.of(docs_prompt)
    assert "<todo-ls-todos>" not in system_text(parser_requests[0])
    after_parser = system_text(parser_requests[1])
    assert "[in_progress] Write the parser" in after_parser
    assert "Write the user guide" not in after_parser
    after_docs = system_text(docs_requests[1])
    assert "[in_progress] Write the user guide" in after_docs
    assert "Write the parser" not in after_docs


async def test_a_read_reaches_the_server_with_its_session_and_the_project_files(
    server: McpOpencode, model: RoutedModel
) -> None:
    # OpenCode starts `todo-ls mcp` in the session's project folder: its project file counts.
    (server.project / "todo-ls.toml").write_text('markdownFiles = ["PLAN.md"]\n')
    (server.project / "PLAN.md").write_text("- [ ] Ship the release\n")
    prompt = "Plan, then read the list back."
    model.routes[prompt] = [
        todo_write(("Only item", "pending")),
        Reply(tool="todo_todo_read", arguments={}),
        text("Read it."),
    ]
    sid = await asyncio.to_thread(server.create_session, "Read")
    await asyncio.to_thread(server.prompt, sid, prompt)
    await until(lambda: len(model.of(prompt)) >= 3, 60, "the read and the answer after it")
    results = [m.get("content") for m in model.of(prompt)[2]["messages"] if m.get("role") == "tool"]
    answer = "\n".join(str(r) for r in results)
    assert "[pending] Only item" in answer, answer
    assert "PLAN.md:1 — Ship the release" in answer
    assert "no OpenCode session id" not in answer
