"""The real Mistral Vibe 3.0.3, run offline against `FakeChatCompletionsAPI` (it speaks
OpenAI chat completions) in a throw-away `Project` whose hooks `todo-ls install` wrote
(docs/testing-agents.md). It runs one prompt to its end in print mode (`run`). It comes from
scripts/setup-vibe.sh (a Python 3.12 venv); a missing one fails the test with that hint.
Like agent_harness.py, a plain module imported by name.
"""

from __future__ import annotations

from support.agent_harness import AgentRun, Project, _cache, _installed
from support.chat_agents import ChatAgent
from support.fake_agent_models import FakeChatCompletionsAPI
from support.fake_model import Reply

VIBE_VERSION = "3.0.3"
SETUP = "scripts/setup-vibe.sh"


class MistralVibe(ChatAgent):
    """`vibe -p … --output json` with the fake as its only provider (`VIBE_HOME`)."""

    host = "mistral-vibe"

    def session_of(self, run: AgentRun) -> str:
        return self.stored_session(run)

    def __init__(self, project: Project, model: FakeChatCompletionsAPI) -> None:
        super().__init__(project, model)
        self.binary = _installed(
            _cache() / "mistral-vibe/venv/bin/vibe", f"Mistral Vibe {VIBE_VERSION}", SETUP
        )
        self.vibe_home = project.home / ".vibe"
        self.project_settings = project.root / ".vibe" / "hooks.toml"
        self.user_settings = self.vibe_home / "hooks.toml"
        self.vibe_home.mkdir(parents=True, exist_ok=True)
        (self.vibe_home / "config.toml").write_text(
            "\n".join(
                [
                    'active_model = "fake"',
                    "enable_telemetry = false",
                    "enable_update_checks = false",
                    "enable_auto_update = false",
                    "show_greeting = false",
                    "enable_notifications = false",
                    "",
                    "[[providers]]",
                    'name = "fake"',
                    f'api_base = "{model.base_url}"',
                    'api_key_env_var = "FAKE_API_KEY"',
                    'api_style = "openai"',
                    'backend = "generic"',
                    "",
                    "[[models]]",
                    'name = "fake-model"',
                    'provider = "fake"',
                    'alias = "fake"',
                    "",
                ]
            ),
            encoding="utf-8",
        )

    def env(self) -> dict[str, str]:
        return {**self.project.env(), "VIBE_HOME": str(self.vibe_home), "FAKE_API_KEY": "dummy"}

    def trust(self) -> None:
        """Trust the project folder the way Vibe records it."""
        (self.vibe_home / "trusted_folders.toml").write_text(
            f'trusted = ["{self.project.root.resolve()}"]\nuntrusted = []\n', encoding="utf-8"
        )

    def command(self, prompt: str) -> list[str]:
        return [str(self.binary), "-p", prompt, "--output", "json", "--auto-approve"]

    def shell(self, command: str) -> Reply:
        return Reply(tool="bash", arguments={"command": command})

    def finished(self, run: AgentRun) -> bool:
        return run.returncode == 0
