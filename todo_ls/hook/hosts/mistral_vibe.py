"""Mistral Vibe (verified with 3.0.3): `[[hooks]]` tables in `.vibe/hooks.toml` (the
project's, read only in a trusted folder) or `~/.vibe/hooks.toml` (the user's, always read).
Its `post_agent` hook is the Stop, blocked with `{"decision": "deny", "reason",
"system_message"}`; Claude Code's `block` and an exit code of 2 are both ignored.

- A block discards the stopping answer and asks the model again with the reason alone as a
  user message, so the nudge must stand alone (it does: docs/supervisor.md, "The nudge
  text"); `system_message` is what the user sees of it.
- Its own cap: 3 retries per turn, then it accepts the answer.
- Input: no `stop_hook_active`, no turn id, no last message; the `post_agent` after a block
  is the same as the first, so todo-ls tells them apart by its own latest block.
- No prompt hook: a new user prompt is not seen, so one episode lasts the whole session.
- Interrupt: Esc runs no hook at all.
- `transcript_path` is a folder, not a transcript: work is the `post_tool` events.
- Own list: the `todo` tool, seen by `post_tool` as `vibe.todo` with `tool_output.todos`.
- Subagents inherit the hooks: a `post_agent` with a `parent_session_id` is a subagent's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from todo_ls.hook.hosts.base import Event, HookAnswer, HookHost, InstallEvent, home
from todo_ls.todos.host_lists import Todo, todo_list

if TYPE_CHECKING:
    from todo_ls.hook.hosts.base import HookInput

TODO_TOOL = "vibe.todo"
TRUST_NOTE = (
    "Mistral Vibe runs a project's hooks only in a trusted folder, and skips them without a "
    "word otherwise: trust this folder when Vibe asks (it lands in "
    "~/.vibe/trusted_folders.toml), start it with --trust, or install with --scope user."
)


class MistralVibe(HookHost):
    kind = "mistral-vibe"
    label = "Mistral Vibe"
    events: ClassVar[Mapping[str, Event]] = {"post_agent": "stop", "post_tool": "tool-use"}
    install_events = (InstallEvent("post_agent"), InstallEvent("post_tool", "*"))
    project_settings = ".vibe/hooks.toml"
    timeout = 30  # seconds
    trust_note = TRUST_NOTE
    turn_field = ""  # Vibe names no turn
    reports_continuation = False
    block_decision = "deny"

    def user_settings(self, env: Mapping[str, str]) -> Path:
        return vibe_home(env) / "hooks.toml"

    def detects(self, data: Mapping[str, Any], env: Mapping[str, str]) -> bool:
        return data.get("hook_event_name") in self.events

    def event_of(self, name: str, data: Mapping[str, Any]) -> Event | None:
        event = self.events.get(name)
        return "subagent-stop" if event == "stop" and data.get("parent_session_id") else event

    def block_answer(self, reason: str) -> HookAnswer:
        headline = reason.strip().splitlines()[0] if reason.strip() else reason
        answer = {"decision": self.block_decision, "reason": reason, "system_message": headline}
        return HookAnswer(json.dumps(answer))

    def tool_list(self, hook: HookInput) -> list[Todo] | None:
        if hook.tool_name != TODO_TOOL:
            return None
        output = hook.raw.get("tool_output")
        return todo_list(output.get("todos") if isinstance(output, Mapping) else None, ("content",))


def vibe_home(env: Mapping[str, str]) -> Path:
    """`$VIBE_HOME`, else `~/.vibe`."""
    value = env.get("VIBE_HOME")
    return Path(value) if value else home(env) / ".vibe"


HOST = MistralVibe()
