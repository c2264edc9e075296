"""The session's own todo list, where each host keeps it (docs/hosts-hooks.md).

- Claude Code tasks: one JSON file per task in `~/.claude/tasks/<list id>/` (the list id is the
  session id unless `CLAUDE_CODE_TASK_LIST_ID` names a shared list);
- Claude Code's legacy `TodoWrite`: only in the tool call, seen by the `PostToolUse` hook;
- Codex: the latest `update_plan` call (`{"plan": [{"step", "status"}]}`) in the session's
  rollout file, the hook's `transcript_path`.

`last_output` finds where the agent's latest own output (a model answer or a tool call) ends
in its transcript, the evidence of work the Stop decision uses.

Every list comes out in the store's shape, `{"content", "status", "priority"?}` with status
`pending | in_progress | completed | cancelled`, so the editor and the policy read all alike.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

Todo = dict[str, str]


class Entry(NamedTuple):
    """A stored todo as the policy reads it."""

    content: str
    status: str
    priority: str | None = None


_STATUSES = {
    "pending": "pending",
    "in_progress": "in_progress",
    "completed": "completed",
    "cancelled": "cancelled",
    "canceled": "cancelled",
}
MAX_TASK_FILES = 2000  # a task list this long is not one a nudge can list anyway
ROLLOUT_TAIL_BYTES = 8 * 1024 * 1024  # the latest plan is near the end of a long rollout


def normalize(entries: Iterable[Mapping[str, Any]], text_keys: tuple[str, ...]) -> list[Todo]:
    """Entries with a text under one of `text_keys` and a known status, in the store's shape."""
    todos: list[Todo] = []
    for entry in entries:
        text = next((entry[k] for k in text_keys if isinstance(entry.get(k), str)), "")
        status = _STATUSES.get(str(entry.get("status")))
        if not text.strip() or status is None:
            continue
        todo = {"content": text.strip(), "status": status}
        if isinstance(entry.get("priority"), str):
            todo["priority"] = entry["priority"]
        todos.append(todo)
    return todos


def todowrite_list(tool_input: Mapping[str, Any]) -> list[Todo] | None:
    """The list a `TodoWrite` call sets (it always sends the whole list); None if malformed."""
    todos = tool_input.get("todos")
    if not isinstance(todos, list):
        return None
    return normalize((t for t in todos if isinstance(t, Mapping)), ("content",))


def claude_tasks_dir(session_id: str, env: Mapping[str, str]) -> Path:
    """Where Claude Code keeps the session's tasks."""
    config = env.get("CLAUDE_CONFIG_DIR")
    home = env.get("HOME")
    base = Path(config) if config else (Path(home) if home else Path.home()) / ".claude"
    return base / "tasks" / (env.get("CLAUDE_CODE_TASK_LIST_ID") or session_id)


def claude_tasks(directory: Path) -> list[Todo] | None:
    """The tasks in `directory`, in task id order; None when there is no task list."""
    try:
        names = [n for n in os.listdir(directory) if n.endswith(".json")]
    except OSError:
        return None
    entries: list[tuple[tuple[int, str], Mapping[str, Any]]] = []
    for name in names[:MAX_TASK_FILES]:
        try:
            data = json.loads((directory / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # being rewritten right now, or not a task: the next read sees it
        if isinstance(data, Mapping):
            ident = str(data.get("id", name[:-5]))
            order = (int(ident), "") if ident.isdigit() else (1 << 62, ident)
            entries.append((order, data))
    entries.sort(key=lambda pair: pair[0])
    return normalize((data for _, data in entries), ("subject", "content"))


def codex_plan(rollout: Path) -> list[Todo] | None:
    """The latest `update_plan` list of a Codex rollout file; None when it has none."""
    try:
        with rollout.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - ROLLOUT_TAIL_BYTES))
            data = handle.read()
    except OSError:
        return None
    for line in reversed(data.split(b"\n")):
        if b"update_plan" not in line:
            continue
        plan = _plan_of(line)
        if plan is not None:
            return plan
    return None


def _plan_of(line: bytes) -> list[Todo] | None:
    try:
        record = json.loads(line)
    except ValueError:
        return None
    call = record.get("payload", record) if isinstance(record, dict) else None
    if not isinstance(call, dict) or call.get("name") != "update_plan":
        return None
    args = call.get("arguments")
    try:
        parsed = json.loads(args) if isinstance(args, str) else args
    except ValueError:
        return None
    plan = parsed.get("plan") if isinstance(parsed, dict) else None
    if not isinstance(plan, list):
        return None
    return normalize((s for s in plan if isinstance(s, Mapping)), ("step",))


# Model output in a transcript line: Claude Code's `{"type": "assistant", ...}` entries; Codex's
# `{"type": "response_item", "payload": {...}}` with an assistant message or a tool call.
_OUTPUT_HINTS = (b'"assistant"', b'_call"', b'"reasoning"')
_CODEX_OUTPUT = frozenset({"function_call", "custom_tool_call", "local_shell_call", "reasoning"})
TRANSCRIPT_TAILS = (256 * 1024, 8 * 1024 * 1024)  # how far back to look, step by step


def last_output(transcript: Path) -> int | None:
    """The file offset where the agent's latest own output ends in its transcript (JSON
    Lines), or the file's size when no line of it is recognised (another format); None when
    the file cannot be read.

    Hooks and the agent's own bookkeeping append lines too, even while a Stop hook runs (so
    two hook processes of one Stop can see different sizes); this offset moves only when the
    model answered or called a tool."""
    try:
        with transcript.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            for tail in TRANSCRIPT_TAILS:
                start = max(0, size - tail)
                handle.seek(start)
                found = _last_output_end(handle.read(), start, whole=start == 0)
                if found is not None or start == 0:
                    return size if found is None else found
    except OSError:
        return None
    return size


def _last_output_end(data: bytes, start: int, whole: bool) -> int | None:
    end = len(data)
    while end > 0:
        begin = data.rfind(b"\n", 0, end - 1) + 1
        if begin == 0 and not whole:
            return None  # the first line may be cut: look further back
        line = data[begin:end]
        if any(hint in line for hint in _OUTPUT_HINTS) and _is_output(line):
            return start + end
        end = begin
    return None


def _is_output(line: bytes) -> bool:
    try:
        record = json.loads(line)
    except ValueError:
        return False
    if not isinstance(record, dict):
        return False
    if record.get("type") == "assistant":
        return True
    payload = record.get("payload")
    if record.get("type") != "response_item" or not isinstance(payload, dict):
        return False
    kind = payload.get("type")
    return kind in _CODEX_OUTPUT or (kind == "message" and payload.get("role") == "assistant")
