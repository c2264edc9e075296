"""Claude Code (verified with 2.1.332): `.claude/settings.json`, `Stop` blocked with
`{"decision": "block"}`, no hook after an interrupt (so no Stop either).

- Transcript: `~/.claude/projects/<folder>/<session>.jsonl`; a tool call is an `assistant`
  record with a `tool_use` part, a prompt a `user` record with text (todo-ls's nudge comes
  back as one starting "Stop hook feedback:"); tool results are `user` records too.
- Own list: tasks as files in `~/.claude/tasks/<list id>/` (the list id is the session id
  unless `CLAUDE_CODE_TASK_LIST_ID` names a shared one); the older `TodoWrite` keeps its list
  only in the conversation, seen whole by the `PostToolUse` hook.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from todo_ls.hook.hosts.base import HookHost, InstallEvent, home, texts
from todo_ls.hook.transcript import LineKind, mentions_nudge, read_regular
from todo_ls.todos.host_lists import Todo, normalize, todowrite_list

if TYPE_CHECKING:
    from todo_ls.hook.hosts.base import HookInput
    from todo_ls.hook.transcript import Transcript

TODO_TOOLS = "TodoWrite|TaskCreate|TaskUpdate"
MAX_TASK_FILES = 2000  # a task list this long is not one a nudge can list anyway


class ClaudeCode(HookHost):
    kind = "claude-code"
    label = "Claude Code"
    install_events = (
        InstallEvent("Stop"),
        InstallEvent("UserPromptSubmit"),
        InstallEvent("SessionStart"),
        InstallEvent("SessionEnd"),
        InstallEvent("Notification"),
        InstallEvent("StopFailure"),
        InstallEvent("PostToolUse", TODO_TOOLS),
    )
    project_settings = ".claude/settings.json"
    timeout = 30  # seconds
    trust_note = "Claude Code reads the hooks at its next start (or run /hooks to review them)."
    project_dir_var = "CLAUDE_PROJECT_DIR"
    line_hints = (b'"assistant"', b'"user"')

    def user_settings(self, env: Mapping[str, str]) -> Path:
        return config_dir(env) / "settings.json"

    def line_kind(self, record: Mapping[str, Any]) -> LineKind | None:
        return message_kind(record)

    def own_list(
        self, hook: HookInput, env: Mapping[str, str], transcript: Transcript | None
    ) -> list[Todo] | None:
        return claude_tasks(tasks_dir(hook.session_id, env))

    def tool_list(self, hook: HookInput) -> list[Todo] | None:
        if hook.tool_name == "TodoWrite":
            return todowrite_list(hook.tool_input)
        return None


def message_kind(record: Mapping[str, Any]) -> LineKind | None:
    """A Claude Code transcript record's kind (shared by the hosts that copied its format)."""
    kind = record.get("type")
    message = record.get("message")
    if not isinstance(message, Mapping) or kind not in ("assistant", "user"):
        return None
    content = message.get("content")
    parts = content if isinstance(content, list) else []
    if kind == "assistant":
        tool = any(isinstance(p, Mapping) and p.get("type") == "tool_use" for p in parts)
        return "tool" if tool else None
    if record.get("isMeta") or any(
        isinstance(p, Mapping) and p.get("type") == "tool_result" for p in parts
    ):
        return None
    said = texts(content)
    if mentions_nudge(said):
        return "nudge"
    return "prompt" if any(t.strip() for t in said) else None


def config_dir(env: Mapping[str, str]) -> Path:
    """`$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    config = env.get("CLAUDE_CONFIG_DIR")
    return Path(config) if config else home(env) / ".claude"


def tasks_dir(session_id: str, env: Mapping[str, str]) -> Path:
    """Where Claude Code keeps the session's tasks."""
    return config_dir(env) / "tasks" / (env.get("CLAUDE_CODE_TASK_LIST_ID") or session_id)


def claude_tasks(directory: Path) -> list[Todo] | None:
    """The tasks in `directory`, in task id order; None when there is no task list."""
    try:
        names = [n for n in os.listdir(directory) if n.endswith(".json")]
    except OSError:
        return None
    entries: list[tuple[tuple[int, str], Mapping[str, Any]]] = []
    for name in names[:MAX_TASK_FILES]:
        try:
            data = json.loads(read_regular(directory / name))
        except (OSError, ValueError):
            continue  # being rewritten right now, or not a task: the next read sees it
        if isinstance(data, Mapping):
            ident = str(data.get("id", name[:-5]))
            order = (int(ident), "") if ident.isdigit() else (1 << 62, ident)
            entries.append((order, data))
    entries.sort(key=lambda pair: pair[0])
    return normalize((data for _, data in entries), ("subject", "content"))


HOST = ClaudeCode()
