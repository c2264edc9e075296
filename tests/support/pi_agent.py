"""The real pi 0.73.1 (`@mariozechner/pi-coding-agent`), run offline against
`FakeChatCompletionsAPI` (it speaks OpenAI chat completions) in a throw-away `Project` whose
hook, todo-ls's extension, `todo-ls install pi` wrote (docs/testing-agents.md).

pi runs one prompt to its end in print mode (`run`, `--mode json`) or as an RPC process
(`rpc`: prompts, `abort`, pi's events as JSON lines). It comes from scripts/setup-agents.sh; a
missing one fails the test with that hint. Like agent_harness.py, a plain module imported by
name.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from support.agent_harness import AgentRun, LineProcess, Project, _cache, _installed
from support.chat_agents import ChatAgent
from support.fake_agent_models import FakeChatCompletionsAPI
from support.fake_model import Reply
from support.reliability_support import wait_until
from support.session_gate import SessionEndGate
from todo_ls.store import Store

PI_VERSION = "0.73.1"


def _tool(path: Path, what: str, setup: str) -> Path:
    try:
        return _installed(path, what)
    except AssertionError as exc:
        raise AssertionError(str(exc).replace("scripts/setup-agents.sh", setup)) from None


class StoreSessions(ChatAgent):
    """A session id as the hooks recorded it in the store (neither print mode prints the id
    todo-ls is told)."""

    def session_of(self, run: AgentRun | None = None) -> str:
        """The latest session of this host in the store."""
        store = Store.open(self.project.state)
        try:
            found = [s.session_id for s in store.hook_sessions() if s.host == self.host]
        finally:
            store.close()
        where = run.stderr[-2000:] if run is not None else ""
        assert found, f"no {self.host} session in the store: {where}"
        return found[-1]


class Pi(StoreSessions):
    """`pi --offline --provider fake --model fake-model --mode json -p …` with the fake as
    its only provider (`~/.pi/agent/models.json`)."""

    host = "pi"

    def __init__(self, project: Project, model: FakeChatCompletionsAPI) -> None:
        super().__init__(project, model)
        self.cli = _tool(
            _cache() / "pi/node_modules/@mariozechner/pi-coding-agent/dist/cli.js",
            f"pi {PI_VERSION}",
            "scripts/setup-agents.sh",
        )
        agent_dir = project.home / ".pi" / "agent"
        self.project_settings = project.root / ".pi" / "extensions" / "todo-ls.ts"
        self.user_settings = agent_dir / "extensions" / "todo-ls.ts"
        agent_dir.mkdir(parents=True, exist_ok=True)
        fake = {
            "baseUrl": model.base_url,
            "api": "openai-completions",
            "apiKey": "dummy",
            "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
            "models": [
                {"id": "fake-model", "reasoning": False, "contextWindow": 128000, "maxTokens": 4000}
            ],
        }
        (agent_dir / "models.json").write_text(
            json.dumps({"providers": {"fake": fake}}), encoding="utf-8"
        )
        (agent_dir / "settings.json").write_text(
            json.dumps({"enableInstallTelemetry": False, "quietStartup": True}), encoding="utf-8"
        )

    def env(self) -> dict[str, str]:
        return {**self.project.env(), "PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1"}

    def _command(self) -> list[str]:
        return ["node", str(self.cli), "--offline", "--provider", "fake", "--model", "fake-model"]

    def command(self, prompt: str) -> list[str]:
        return [*self._command(), "--mode", "json", "-p", prompt]

    def rpc(self) -> PiRpc:
        """pi as an RPC process (`--mode rpc`): the extension's agent_end route."""
        return PiRpc([*self._command(), "--mode", "rpc"], self.env(), self.project.root)

    def shell(self, command: str) -> Reply:
        return Reply(tool="bash", arguments={"command": command})

    def hold_shutdown(self) -> SessionEndGate:
        """An extension of the user's own in the project whose `session_shutdown` waits for
        the gate: pi runs the project's extensions before the user's (its loader), so a
        todo-ls installed with `--scope user` ends the session only once it is released."""
        gate = SessionEndGate(self.project.tmp)
        hold = self.project.root / ".pi" / "extensions" / "hold-shutdown.ts"
        hold.parent.mkdir(parents=True, exist_ok=True)
        hold.write_text(gate.pi_extension(), encoding="utf-8")
        return gate

    def finished(self, run: AgentRun) -> bool:
        ends = run.of_type("agent_end")
        return run.returncode == 0 and bool(ends)


class PiRpc(LineProcess):
    """pi's RPC mode: JSON commands on stdin (`prompt`, `abort`), its events on stdout."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: Path) -> None:
        super().__init__(command, env, cwd, "pi --mode rpc")

    def prompt(self, text: str) -> None:
        self.send({"type": "prompt", "message": text})

    def abort(self) -> None:
        self.send({"type": "abort"})

    def agent_ends(self) -> list[dict[str, object]]:
        return [m for m in self.messages if m.get("type") == "agent_end"]

    def wait_agent_ends(self, count: int, timeout: float = 60.0) -> None:
        """Wait until pi has ended `count` agent runs."""
        wait_until(lambda: len(self.agent_ends()) >= count, timeout, f"{count} agent_end")

    def quiet(self, seconds: float = 1.5) -> None:
        """Wait until pi printed nothing for `seconds` (no run started by a late nudge)."""
        seen = -1
        while seen != len(self.messages):
            seen = len(self.messages)
            time.sleep(seconds)
