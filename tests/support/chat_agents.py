"""The real Qwen Code 0.24.4, GitHub Copilot CLI 1.0.102 and Factory Droid 0.225.2, run offline
against `FakeChatCompletionsAPI` (all three speak OpenAI chat completions) in a throw-away
`Project` whose hooks `todo-ls install` wrote (docs/testing-agents.md).

Each runs one prompt to its end in print mode (`run`); Qwen Code's TUI also runs under tmux
(`conversation`, driven as Gemini CLI's). The binaries come from scripts/setup-agents.sh; a
missing one fails the test with that hint. Like agent_harness.py, a plain module imported by
name.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from support.agent_harness import (
    AgentRun,
    GeminiTui,
    Json,
    Project,
    _cache,
    _installed,
    run_to_end,
)
from support.fake_agent_models import FakeChatCompletionsAPI, tick_all
from support.fake_model import Reply
from support.reliability_support import wait_until
from todo_ls.store import Store

QWEN_VERSION = "0.24.4"
COPILOT_VERSION = "1.0.102"
DROID_VERSION = "0.225.2"
PROMPT = "Work through PLAN.md."


class ChatAgent:
    """What the three share: the project, the fake model and one prompt run to its end."""

    host = ""
    project_settings: Path
    user_settings: Path

    def __init__(self, project: Project, model: FakeChatCompletionsAPI) -> None:
        self.project = project
        self.model = model

    def env(self) -> dict[str, str]:
        return self.project.env()

    def command(self, prompt: str) -> list[str]:
        raise NotImplementedError

    def run(self, prompt: str = PROMPT, wrap: Sequence[str] = ()) -> AgentRun:
        """One prompt in print mode, to the agent's exit."""
        return run_to_end([*wrap, *self.command(prompt)], self.env(), self.project.root)

    def shell(self, command: str) -> Reply:
        raise NotImplementedError

    def tick(self) -> list[Reply]:
        """The tool calls that tick every box of PLAN.md."""
        return [self.shell(tick_all())]

    def session_of(self, run: AgentRun) -> str:
        raise NotImplementedError

    def stored_session(self, run: AgentRun | None = None) -> str:
        """The session the hooks recorded for this host (one per test): for an agent whose
        output names none (or still running: no `run` yet)."""
        store = Store.open(self.project.state)
        try:
            found = [s.session_id for s in store.hook_sessions() if s.host == self.host]
        finally:
            store.close()
        where = run.stderr[-2000:] if run is not None else ""
        assert found, f"no {self.host} session in the store: {where}"
        return found[-1]

    def stored_state(self, session_id: str) -> str | None:
        """The state the hooks recorded for the session (`ended` once its session end ran);
        None when there is none."""
        store = Store.open(self.project.state)
        try:
            found = [s.state for s in store.hook_sessions() if s.session_id == session_id]
        finally:
            store.close()
        return found[-1] if found else None

    def finished(self, run: AgentRun) -> bool:
        """Whether the run ended its turn normally."""
        raise NotImplementedError

    def write_user_settings(self, settings: Json) -> None:
        """The agent's own user settings as a user has them before installing todo-ls (the
        install merges its hooks into them)."""
        self.user_settings.parent.mkdir(parents=True, exist_ok=True)
        self.user_settings.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")


class QwenCode(ChatAgent):
    """`qwen -p … --yolo -o stream-json` (Node runs the unpacked bundle)."""

    host = "qwen-code"

    def __init__(self, project: Project, model: FakeChatCompletionsAPI) -> None:
        super().__init__(project, model)
        self.entry = _installed(
            _cache() / "qwen-code" / "package" / "cli-entry.js", f"Qwen Code {QWEN_VERSION}"
        )
        self.project_settings = project.root / ".qwen" / "settings.json"
        self.user_settings = project.home / ".qwen" / "settings.json"
        self.write_user_settings(
            {
                "security": {"auth": {"selectedType": "openai"}},
                "privacy": {"usageStatisticsEnabled": False},
                "telemetry": {"enabled": False},
                "general": {"enableAutoUpdate": False},
                # The TUI's side requests offer tools: they would take the scripted replies.
                "ui": {"enableFollowupSuggestions": False},
                "memory": {
                    "enableManagedAutoMemory": False,
                    "enableManagedAutoDream": False,
                    "enableAutoSkill": False,
                },
            }
        )

    def env(self) -> dict[str, str]:
        return {
            **self.project.env(),
            "OPENAI_API_KEY": "fake-key",
            "OPENAI_BASE_URL": self.model.base_url,
            "OPENAI_MODEL": "fake-model",
            # One process less to start (it relaunches itself with more heap by default).
            "QWEN_CODE_NO_RELAUNCH": "true",
            "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
        }

    def _command(self) -> list[str]:
        return ["node", str(self.entry), "--yolo"]

    def command(self, prompt: str) -> list[str]:
        return [*self._command(), "-p", prompt, "-o", "stream-json"]

    def conversation(self) -> QwenTui:
        """The interactive TUI in a tmux session, typed into as a user does."""
        return QwenTui(self)

    def shell(self, command: str) -> Reply:
        return Reply(tool="run_shell_command", arguments={"command": command})

    def enable_todo_list(self) -> None:
        """Offer the model `todo_write` (off by default)."""
        settings = json.loads(self.user_settings.read_text(encoding="utf-8"))
        self.write_user_settings({**settings, "tools": {"todoWrite": {"enabled": True}}})

    def todo_list(self, todos: list[tuple[str, str]]) -> Reply:
        """`todo_write` with (content, status) items."""
        items = [{"id": str(n), "content": c, "status": s} for n, (c, s) in enumerate(todos, 1)]
        return Reply(tool="todo_write", arguments={"todos": items})

    def tick(self) -> list[Reply]:
        # Qwen Code refuses a command that edits a file the session has not read.
        read = Reply(tool="read_file", arguments={"file_path": str(self.project.plan_path)})
        return [read, *super().tick()]

    def session_of(self, run: AgentRun) -> str:
        return str(next(e for e in run.events if e.get("subtype") == "init")["session_id"])

    def finished(self, run: AgentRun) -> bool:
        results = run.of_type("result")
        return run.returncode == 0 and bool(results) and results[-1].get("subtype") == "success"


class CopilotCLI(ChatAgent):
    """`copilot -p … --output-format json` with a local provider (`COPILOT_OFFLINE`, no
    GitHub login)."""

    host = "copilot-cli"

    def __init__(self, project: Project, model: FakeChatCompletionsAPI) -> None:
        super().__init__(project, model)
        folder = _cache() / "copilot-cli"
        self.binary = _installed(
            folder / "node_modules/@github/copilot-linux-x64/copilot",
            f"Copilot CLI {COPILOT_VERSION}",
        )
        # The binary unpacks ~235 MB into XDG_CACHE_HOME on its first run: every test shares
        # the folder setup-agents.sh filled.
        self.unpacked = folder / "xdg-cache"
        self.project_settings = project.root / ".github" / "hooks" / "todo-ls.json"
        self.user_settings = project.home / ".copilot" / "settings.json"
        self.trust_folder = True

    def env(self) -> dict[str, str]:
        return {
            **self.project.env(),
            "XDG_CACHE_HOME": str(self.unpacked),
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": self.model.base_url,
            "COPILOT_PROVIDER_API_KEY": "fake-key",
            "COPILOT_MODEL": "fake-model",
            "COPILOT_AUTO_UPDATE": "false",
        }

    def command(self, prompt: str) -> list[str]:
        trust = ["--trust-folder"] if self.trust_folder else []
        return [
            str(self.binary),
            "-p",
            prompt,
            "--allow-all-tools",
            *trust,
            "--output-format",
            "json",
            "--no-auto-update",
        ]

    def shell(self, command: str) -> Reply:
        return Reply(tool="bash", arguments={"command": command, "description": "Run a command"})

    def session_of(self, run: AgentRun) -> str:
        return str(run.of_type("result")[-1]["sessionId"])

    def finished(self, run: AgentRun) -> bool:
        results = run.of_type("result")
        return run.returncode == 0 and bool(results) and results[-1].get("exitCode") == 0


class Droid(ChatAgent):
    """`droid exec -m custom:Fake-0 -o json --auto high …` with the fake as a custom model."""

    host = "droid"

    def __init__(self, project: Project, model: FakeChatCompletionsAPI) -> None:
        super().__init__(project, model)
        self.binary = _installed(
            _cache() / "droid/node_modules/@factory/cli-linux-x64/bin/droid",
            f"Droid {DROID_VERSION}",
        )
        self.project_settings = project.root / ".factory" / "settings.json"
        self.user_settings = project.home / ".factory" / "settings.json"
        fake = {
            "model": "fake-model",
            "displayName": "Fake",
            "baseUrl": model.base_url,
            "apiKey": "fake-key",
            "provider": "generic-chat-completion-api",
            "maxOutputTokens": 4000,
        }
        self.write_user_settings({"customModels": [fake]})

    def command(self, prompt: str) -> list[str]:
        return [
            str(self.binary),
            "exec",
            "-m",
            "custom:Fake-0",
            "-o",
            "json",
            "--auto",
            "high",
            prompt,
        ]

    def shell(self, command: str) -> Reply:
        # Droid refuses an Execute call that does not rate its own risk.
        arguments = {"command": command, "riskLevel": "low", "riskLevelReason": "a test step"}
        return Reply(tool="Execute", arguments=arguments)

    def session_of(self, run: AgentRun) -> str:
        return str(run.of_type("result")[-1]["session_id"])

    def finished(self, run: AgentRun) -> bool:
        results = run.of_type("result")
        return run.returncode == 0 and bool(results) and results[-1].get("is_error") is False


class QwenTui(GeminiTui):
    """Qwen Code's TUI under tmux, driven as Gemini CLI's (Qwen Code is its fork). After Esc it
    puts the cancelled prompt back into the input: a new prompt clears it first."""

    CANCELLED = "Request cancelled."

    def start_turn(self, text: str) -> None:
        self._tmux("send-keys", "-t", "gemini", "C-u")
        super().start_turn(text)

    def wait_cancelled(self, timeout: float = 30.0) -> None:
        """Wait until the screen says the turn was cancelled (Qwen Code runs no hook then)."""
        wait_until(lambda: self.CANCELLED in self.screen(), timeout, "Request cancelled.")
