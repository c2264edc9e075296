"""GitHub Copilot CLI (verified with 1.0.102): hooks in `.github/hooks/*.json` (a repository's;
run only in a trusted folder) or `"hooks"` of `~/.copilot/settings.json` (the user's). Keyed by
Claude Code's event names (`Stop`, `UserPromptSubmit`, `PostToolUse`, ...) they get Claude
Code's snake_case fields, so todo-ls registers those; `{"decision": "block"}` blocks.

- The nudge comes back as a prompt: the reason is queued as the next user message, and
  `UserPromptSubmit` fires for it with the reason as `prompt`. That is not a user prompt: it
  must not start a new episode, or the caps would never hold.
- It caps 8 consecutive blocks itself, not reset by tool calls.
- No turn id and no last message in the Stop input: its `timestamp` tells one Stop from the
  next.
- Transcript: `~/.copilot/session-state/<session>/events.jsonl`; a tool call is an
  `assistant.message` event with `toolRequests`, a prompt a `user.message` event.
- Own list: only through its SDK (SQL todos), not readable from a hook.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from todo_ls.hook.hosts.base import HookHost, InstallEvent, home, texts
from todo_ls.hook.transcript import NUDGE_MARK, LineKind, mentions_nudge

if TYPE_CHECKING:
    from todo_ls.hook.hosts.base import HookInput

TRUST_NOTE = (
    "Copilot CLI runs a repository's hooks only in a folder you trusted, and skips them "
    "without a word otherwise: trust this folder when Copilot CLI asks (or start it with "
    "--trust-folder), or install with --scope user to have todo-ls in every folder."
)


class CopilotCli(HookHost):
    kind = "copilot-cli"
    label = "Copilot CLI"
    install_events = (
        InstallEvent("Stop"),
        InstallEvent("UserPromptSubmit"),
        InstallEvent("SessionStart"),
        InstallEvent("SessionEnd"),
        InstallEvent("PostToolUse"),
    )
    project_settings = ".github/hooks/todo-ls.json"
    timeout = 30  # seconds (`timeoutSec`)
    trust_note = TRUST_NOTE
    project_dir_var = "COPILOT_PROJECT_DIR"
    # No turn id: the Stop's `timestamp` (the same in every process of one Stop) makes each
    # Stop its own opportunity.
    turn_field = "timestamp"
    line_hints = (b'"assistant.message"', b'"user.message"')

    def user_settings(self, env: Mapping[str, str]) -> Path:
        copilot_home = env.get("COPILOT_HOME")
        return (Path(copilot_home) if copilot_home else home(env) / ".copilot") / "settings.json"

    def is_nudge_prompt(self, hook: HookInput, last_reason: str | None) -> bool:
        return super().is_nudge_prompt(hook, last_reason) or hook.text("prompt").startswith(
            NUDGE_MARK
        )

    def line_kind(self, record: Mapping[str, Any]) -> LineKind | None:
        data = record.get("data")
        if not isinstance(data, Mapping):
            return None
        kind = record.get("type")
        if kind == "assistant.message":
            requests = data.get("toolRequests")
            return "tool" if isinstance(requests, list) and requests else None
        if kind != "user.message":
            return None
        said = texts(data.get("content"))
        if mentions_nudge(said):
            return "nudge"
        return "prompt" if any(t.strip() for t in said) else None


HOST = CopilotCli()
