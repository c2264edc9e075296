"""Qwen Code (verified with 0.24.4): Claude Code's hook system in `.qwen/settings.json`
(timeouts in seconds), `Stop` blocked with `{"decision": "block"}`.

- The nudge comes back as a prompt: after a block, `UserPromptSubmit` fires with the reason as
  its `prompt` but without `submitted_prompt`, which every real prompt carries (the prompts
  Qwen Code sends by itself to continue after a tool have none either). None of them starts a
  new episode.
- It caps 8 blocks per prompt itself, not reset by tool calls; todo-ls's caps come first.
- Interrupts: no hook at all after Esc or Ctrl-C (no Stop either). Subagents end with
  `SubagentStop`, never blocked.
- Transcript: `~/.qwen/projects/<folder>/chats/<session>.jsonl` in Gemini CLI's record shape
  (`{"type": "assistant", "message": {"role": "model", "parts": [...]}}`): a tool call is an
  `assistant` record with a `functionCall` part, a real prompt a `user` record with
  `provenance: "real_user"`.
- Own list: `todo_write` (off by default: `tools.todoWrite.enabled`) keeps it in
  `~/.qwen/todos/<session_id>.json` (`{"todos": [{id, content, status}]}`), also seen whole by
  the `PostToolUse` hook.
- Trust: with `security.folderTrust.enabled` an untrusted folder's hooks are skipped without a
  word.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from todo_ls.hook.hosts.base import HookHost, InstallEvent, home, texts
from todo_ls.hook.transcript import LineKind, mentions_nudge, read_regular
from todo_ls.todos.host_lists import Todo, normalize, todowrite_list

if TYPE_CHECKING:
    from todo_ls.hook.hosts.base import HookInput
    from todo_ls.hook.transcript import Transcript

TODO_TOOL = "todo_write"
TRUST_NOTE = (
    "Qwen Code reads the hooks at its next start. With folder trust on "
    "(security.folderTrust.enabled) it skips a project's hooks without a word until the "
    "folder is trusted: trust it when Qwen Code asks, or install with --scope user."
)


class QwenCode(HookHost):
    kind = "qwen-code"
    label = "Qwen Code"
    install_events = (
        InstallEvent("Stop"),
        InstallEvent("UserPromptSubmit"),
        InstallEvent("SubagentStop"),
        InstallEvent("StopFailure"),
        InstallEvent("SessionStart"),
        InstallEvent("SessionEnd"),
        InstallEvent("Notification"),
        InstallEvent("PostToolUse", TODO_TOOL),
    )
    project_settings = ".qwen/settings.json"
    timeout = 30  # seconds
    trust_note = TRUST_NOTE
    project_dir_var = "QWEN_PROJECT_DIR"
    line_hints = (b'"assistant"', b'"user"')

    def user_settings(self, env: Mapping[str, str]) -> Path:
        return home(env) / ".qwen" / "settings.json"

    def is_nudge_prompt(self, hook: HookInput, last_reason: str | None) -> bool:
        return "submitted_prompt" not in hook.raw

    def line_kind(self, record: Mapping[str, Any]) -> LineKind | None:
        message = record.get("message")
        parts = message.get("parts") if isinstance(message, Mapping) else None
        if not isinstance(parts, list):
            return None
        kind = record.get("type")
        if kind == "assistant":
            tool = any(isinstance(p, Mapping) and "functionCall" in p for p in parts)
            return "tool" if tool else None
        if kind != "user":
            return None
        said = texts(parts)
        if mentions_nudge(said):
            return "nudge"
        real = record.get("provenance") == "real_user"
        return "prompt" if real and any(t.strip() for t in said) else None

    def own_list(
        self, hook: HookInput, env: Mapping[str, str], transcript: Transcript | None
    ) -> list[Todo] | None:
        if "/" in hook.session_id or hook.session_id.startswith("."):
            return None  # not a plain file name: never read outside the todos folder
        return qwen_todos(home(env) / ".qwen" / "todos" / f"{hook.session_id}.json")

    def tool_list(self, hook: HookInput) -> list[Todo] | None:
        return todowrite_list(hook.tool_input) if hook.tool_name == TODO_TOOL else None


def qwen_todos(path: Path) -> list[Todo] | None:
    """The list in a Qwen Code todo file; None when there is none (or it is being written)."""
    try:
        data = json.loads(read_regular(path))
    except (OSError, ValueError):
        return None
    todos = data.get("todos") if isinstance(data, Mapping) else None
    if not isinstance(todos, list):
        return None
    return normalize((t for t in todos if isinstance(t, Mapping)), ("content",))


HOST = QwenCode()
