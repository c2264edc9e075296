"""A session's own todo list, as the agent writes it with `todo_write` (see docs/mcp-todo-tools.md).

Pure: no store, no files, no MCP. The tools in `todo_ls.todos.tools` validate the agent's input
here, keep the canonical list in the shared store and render the answers with these functions;
the supervisor reads the stored list back through `stored_todos`.

A stored todo is a JSON object `{"content": str, "status": "pending" | "in_progress" |
"completed" | "canceled", "priority": "high" | "medium" | "low" | null}`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from todo_ls.core.events import SessionTodo, TodoStatus

STATUSES = ("pending", "in_progress", "completed", "canceled")
PRIORITIES = ("high", "medium", "low")
OPEN_STATUSES = frozenset({"pending", "in_progress"})
MAX_TODOS = 200  # a plan longer than this is a mistake, and it would fill the context window
MAX_CONTENT = 2000  # characters of one item

# OpenCode 1.x spells it "cancelled"; the supervisor's event model uses that spelling.
_SESSION_STATUS: dict[str, TodoStatus] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "completed": "completed",
    "canceled": "cancelled",
}


class TodoInputError(ValueError):
    """The agent's input cannot be used; the message says why in one line."""


@dataclass(frozen=True)
class Todo:
    """One item of a session's list."""

    content: str
    status: str  # one of STATUSES
    priority: str | None = None  # one of PRIORITIES

    @property
    def open(self) -> bool:
        return self.status in OPEN_STATUSES

    def to_json(self) -> dict[str, Any]:
        """The stored shape."""
        return {"content": self.content, "status": self.status, "priority": self.priority}


@dataclass(frozen=True)
class Written:
    """A normalised `todo_write`: the canonical list and what was changed on the way."""

    todos: tuple[Todo, ...]
    notes: tuple[str, ...]


def parse_write(arguments: Mapping[str, Any]) -> Written:
    """Validate `todo_write`'s `{todos: [...]}` and normalise it: content trimmed, empty
    entries dropped, duplicates (same content) removed, at most one `in_progress` (later ones
    become `pending`). Raises TodoInputError naming the first bad value."""
    raw = arguments.get("todos")
    if not isinstance(raw, list):
        raise TodoInputError(
            "todos must be a list of {content, status, priority?} objects "
            f"(got {_kind(raw)}); send the whole list, even when it is empty"
        )
    if len(raw) > MAX_TODOS:
        raise TodoInputError(f"todos has {len(raw)} items; at most {MAX_TODOS} are allowed")
    todos: list[Todo] = []
    seen: set[str] = set()
    dropped = duplicates = demoted = 0
    for index, entry in enumerate(raw):
        where = f"todos[{index}]"
        if not isinstance(entry, dict):
            raise TodoInputError(f"{where} must be an object, got {_kind(entry)}")
        content = entry.get("content")
        if not isinstance(content, str):
            raise TodoInputError(f"{where}.content must be a string, got {_kind(content)}")
        status = entry.get("status")
        if status not in STATUSES:
            raise TodoInputError(f"{where}.status must be one of {', '.join(STATUSES)}")
        priority = entry.get("priority")
        if priority is not None and priority not in PRIORITIES:
            raise TodoInputError(f"{where}.priority must be one of {', '.join(PRIORITIES)}")
        content = content.strip()
        if len(content) > MAX_CONTENT:
            raise TodoInputError(
                f"{where}.content has {len(content)} characters; at most {MAX_CONTENT}"
            )
        if not content:
            dropped += 1
            continue
        if content in seen:
            duplicates += 1
            continue
        seen.add(content)
        if status == "in_progress" and any(t.status == "in_progress" for t in todos):
            status = "pending"
            demoted += 1
        todos.append(Todo(content, str(status), priority))
    notes = []
    if demoted:
        notes.append(
            f"{_items(demoted)} marked in_progress became pending: "
            "only one item may be in progress at a time"
        )
    if duplicates:
        notes.append(f"{_items(duplicates)} with the same content as an earlier one removed")
    if dropped:
        notes.append(f"{_items(dropped)} with empty content dropped")
    return Written(tuple(todos), tuple(notes))


def stored_todos(raw: object) -> tuple[Todo, ...]:
    """The items of a stored list; entries of another shape are skipped (never raises)."""
    if not isinstance(raw, list):
        return ()
    found = []
    for entry in raw:
        if not isinstance(entry, dict):
            continue
        content, status, priority = entry.get("content"), entry.get("status"), entry.get("priority")
        if isinstance(content, str) and status in STATUSES:
            found.append(Todo(content, str(status), priority if priority in PRIORITIES else None))
    return tuple(found)


def as_event_todos(todos: Iterable[Todo]) -> tuple[SessionTodo, ...]:
    """The list in the supervisor's event model."""
    return tuple(SessionTodo(t.content, _SESSION_STATUS[t.status], t.priority) for t in todos)


def merged_with_host(
    host: Sequence[SessionTodo], stored: Sequence[Todo]
) -> tuple[SessionTodo, ...]:
    """A session's list for the supervisor when the host keeps one too (OpenCode 1.x
    `todowrite`): the union of both, an item in both (same content) taken from the todo-ls
    list, which the agent's system prompt and the editor show."""
    ours = as_event_todos(stored)
    taken = {t.content.strip() for t in ours}
    return (*ours, *(t for t in host if t.content.strip() not in taken))


def summary(todos: Sequence[Todo]) -> str:
    """`3 todos: 1 in progress, 1 pending, 1 completed.` or `No todos.`"""
    if not todos:
        return "No todos."
    counts = [
        f"{n} {status.replace('_', ' ')}"
        for status in ("in_progress", "pending", "completed", "canceled")
        if (n := sum(1 for t in todos if t.status == status))
    ]
    noun = "todo" if len(todos) == 1 else "todos"
    return f"{len(todos)} {noun}: {', '.join(counts)}."


def render(todos: Sequence[Todo]) -> list[str]:
    """One line per item: `1. [in_progress] (high) Write the parser`."""
    lines = []
    for number, todo in enumerate(todos, 1):
        priority = f" ({todo.priority})" if todo.priority else ""
        lines.append(f"{number}. [{todo.status}]{priority} {todo.content}")
    return lines


def write_answer(written: Written) -> str:
    """The answer to a `todo_write`: summary, what was normalised, the canonical list."""
    lines = [summary(written.todos)]
    lines += [f"Note: {note}." for note in written.notes]
    if written.todos:
        lines += ["", *render(written.todos)]
    return "\n".join(lines)


def context_block(todos: Sequence[Todo]) -> str:
    """The text the companion plugin appends to the system prompt of every model request
    ("" when there is nothing to say), so the list survives compaction of the history."""
    if not todos:
        return ""
    open_count = sum(1 for t in todos if t.open)
    lines = [
        "<todo-ls-todos>",
        f"Your todo list for this session ({open_count} open of {len(todos)}):",
        *render(todos),
        "Keep it current with the todo_write tool (send the whole list; one item "
        "in_progress at a time). Work through the open items before you stop.",
        "</todo-ls-todos>",
    ]
    return "\n".join(lines) + "\n"


def _items(count: int) -> str:
    return f"{count} item{'s' if count != 1 else ''}"


def _kind(value: object) -> str:
    if value is None:
        return "nothing"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, int | float) else type(value).__name__
    )
