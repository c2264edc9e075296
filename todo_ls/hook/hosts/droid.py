"""Factory Droid (verified with 0.225.2): Claude Code's hook system in `.factory/settings.json`,
`Stop` blocked with `{"decision": "block"}`.

- No cap of its own (52 blocks in 30 s with a hook that always blocks): todo-ls's caps are
  the only brake.
- The reason reaches the model as a plain user message; `droid exec` fires no
  `UserPromptSubmit`. No turn id and no last message in the Stop input (`message_id` names
  the answer the Stop follows).
- Transcript: `~/.factory/sessions/<folder>/<session>.jsonl`, records `{"type": "message",
  "message": {"role", "content": [...]}}` with Claude Code's content parts: a tool call is an
  assistant `tool_use` part.
- Own list: `TodoWrite` (`{"todos": [{content, status}]}`), the latest call in the transcript,
  also seen whole by the `PostToolUse` hook.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from todo_ls.hook.hosts.base import HookHost, InstallEvent, home
from todo_ls.hook.hosts.claude_code import message_kind
from todo_ls.hook.transcript import LineKind
from todo_ls.todos.host_lists import Todo, todowrite_list

if TYPE_CHECKING:
    from todo_ls.hook.hosts.base import HookInput
    from todo_ls.hook.transcript import Transcript

TODO_TOOL = "TodoWrite"


class Droid(HookHost):
    kind = "droid"
    label = "Droid"
    install_events = (
        InstallEvent("Stop"),
        InstallEvent("UserPromptSubmit"),
        InstallEvent("SessionStart"),
        InstallEvent("SessionEnd"),
        InstallEvent("Notification"),
        InstallEvent("PostToolUse", TODO_TOOL),
    )
    project_settings = ".factory/settings.json"
    timeout = 30  # seconds
    trust_note = "Droid reads the hooks when its next session starts."
    project_dir_var = "FACTORY_PROJECT_DIR"
    # No turn id: `message_id` names the answer a Stop follows, so each Stop is its own
    # opportunity, and every process of one Stop reads the same id.
    turn_field = "message_id"
    line_hints = (b'"message"',)

    def user_settings(self, env: Mapping[str, str]) -> Path:
        return home(env) / ".factory" / "settings.json"

    def line_kind(self, record: Mapping[str, Any]) -> LineKind | None:
        # Claude Code's record with the role in the message instead of the record's type.
        message = record.get("message")
        if record.get("type") != "message" or not isinstance(message, Mapping):
            return None
        return message_kind({"type": message.get("role"), "message": message})

    def own_list(
        self, hook: HookInput, env: Mapping[str, str], transcript: Transcript | None
    ) -> list[Todo] | None:
        if transcript is None:
            return None
        return transcript.last(f'"{TODO_TOOL}"'.encode(), todowrite_of)

    def tool_list(self, hook: HookInput) -> list[Todo] | None:
        return todowrite_list(hook.tool_input) if hook.tool_name == TODO_TOOL else None


def todowrite_of(record: Mapping[str, Any]) -> list[Todo] | None:
    """The list of the latest `TodoWrite` call in a transcript record."""
    message = record.get("message")
    content = message.get("content") if isinstance(message, Mapping) else None
    if not isinstance(content, list):
        return None
    for part in reversed(content):
        if isinstance(part, Mapping) and part.get("name") == TODO_TOOL:
            tool_input = part.get("input")
            if isinstance(tool_input, Mapping):
                found = todowrite_list(tool_input)
                if found is not None:
                    return found
    return None


HOST = Droid()
