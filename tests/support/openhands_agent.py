"""The real OpenHands CLI 1.16.0, run offline against `FakeOpenHandsModel` (OpenAI chat
completions, through LiteLLM) in a throw-away `Project` whose hooks `todo-ls install` wrote
(docs/testing-agents.md). It runs one prompt to its end headless (`run`). It comes from
scripts/setup-openhands.sh (a Python 3.12 venv); a missing one fails the test with that hint.
Like agent_harness.py, a plain module imported by name.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess

from support.agent_harness import AgentRun, Project, _cache, _installed, _jsonl
from support.chat_agents import PROMPT, ChatAgent
from support.fake_agent_models import FakeChatCompletionsAPI
from support.fake_model import Json, ModelHandler, Reply

OPENHANDS_VERSION = "1.16.0"
SETUP = "scripts/setup-openhands.sh"
# One run: it imports for 8-10 s of CPU before its first request (LiteLLM, the SDK), which
# took up to 45 s of wall time on a loaded machine; agent_harness's 90 s is too tight.
RUN_TIMEOUT = 240.0


class FakeOpenHandsModel(FakeChatCompletionsAPI):
    """The chat-completions fake as OpenHands calls it: it hands a Stop hook's reason to the
    model as a user message `[Stop hook feedback] <reason>`."""

    hook_reason = re.compile(r"\[Stop hook feedback\] (.*?)(?=\n\[Stop hook feedback\] |\Z)", re.S)

    def answer(self, http: ModelHandler, path: str, body: Json) -> None:
        if body.get("stream"):
            super().answer(http, path, body)
            return
        # LiteLLM asks without streaming unless told otherwise: one JSON completion.
        reply = self.next_reply(body)
        if reply.status != 200:
            http.send_error_reply(reply.status)
            return
        message: Json = {"role": "assistant", "content": reply.text or None}
        finish = "stop"
        if reply.tool:
            finish = "tool_calls"
            call = {
                "id": f"call_fake{self.next_id()}",
                "type": "function",
                "function": {"name": reply.tool, "arguments": json.dumps(reply.arguments)},
            }
            message["tool_calls"] = [call]
        http.send_json(
            200,
            {
                "id": f"chatcmpl-{self.next_id()}",
                "object": "chat.completion",
                "created": 0,
                "model": "fake-model",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
            },
        )


class OpenHands(ChatAgent):
    """`openhands --headless --json --override-with-envs -t …` with the fake as its model
    (`LLM_*`); its terminal tool's tmux server is put in the test's temp folder and ended with
    the run."""

    host = "openhands"

    def __init__(self, project: Project, model: FakeChatCompletionsAPI) -> None:
        super().__init__(project, model)
        self.binary = _installed(
            _cache() / "openhands/venv/bin/openhands", f"OpenHands CLI {OPENHANDS_VERSION}", SETUP
        )
        self.project_settings = project.root / ".openhands" / "hooks.json"
        self.user_settings = project.home / ".openhands" / "hooks.json"
        (project.home / ".openhands").mkdir(parents=True, exist_ok=True)
        self.tmux_dir = project.tmp / "tmux"
        self.tmux_dir.mkdir(parents=True, exist_ok=True)

    def env(self) -> dict[str, str]:
        return {
            **self.project.env(),
            "LLM_MODEL": "openai/fake-model",
            "LLM_API_KEY": "dummy",
            "LLM_BASE_URL": self.model.base_url,
            # LiteLLM fetches its price list from the internet at start unless told not to.
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "OPENHANDS_SUPPRESS_BANNER": "1",
            "TMUX_TMPDIR": str(self.tmux_dir),
            # The CLI always loads the public skills, by cloning a repository from the
            # internet at start: git refuses that transport at once instead.
            "GIT_ALLOW_PROTOCOL": "file",
        }

    def command(self, prompt: str) -> list[str]:
        return [str(self.binary), "--headless", "--json", "--override-with-envs", "-t", prompt]

    def run(self, prompt: str = PROMPT, wrap: tuple[str, ...] = ()) -> AgentRun:
        try:
            done = subprocess.run(
                [*wrap, *self.command(prompt)],
                env=self.env(),
                cwd=self.project.root,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=RUN_TIMEOUT,
            )
        finally:
            self.end_tmux()
        return AgentRun(done.returncode, _jsonl(done.stdout), done.stderr)

    def end_tmux(self) -> None:
        """End the `tmux -L openhands` server the terminal tool started (it outlives the
        run), by its pid."""
        for socket in self.tmux_dir.glob("tmux-*/*"):
            done = subprocess.run(
                ["tmux", "-S", str(socket), "display-message", "-p", "#{pid}"],
                capture_output=True,
                text=True,
                timeout=10,
            )
            if done.returncode == 0 and done.stdout.strip().isdigit():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(done.stdout.strip()), signal.SIGTERM)

    def shell(self, command: str) -> Reply:
        return Reply(tool="terminal", arguments={"command": command, "security_risk": "LOW"})

    def task_list(self, tasks: list[tuple[str, str]]) -> Reply:
        """`task_tracker` planning (title, status) tasks: `todo | in_progress | done`."""
        items = [{"title": t, "notes": "", "status": s} for t, s in tasks]
        arguments = {"command": "plan", "task_list": items, "security_risk": "LOW"}
        return Reply(tool="task_tracker", arguments=arguments)

    def session_of(self, run: AgentRun) -> str:
        return self.stored_session(run)

    def finished(self, run: AgentRun) -> bool:
        return run.returncode == 0
