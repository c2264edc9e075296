"""The session's own todo list in the store's shape (docs/hosts-hooks.md).

Each host's module (todo_ls/hook/hosts/) reads its list where the host keeps it; every list
comes out in the store's shape, `{"content", "status", "priority"?}` with status
`pending | in_progress | completed | cancelled`, so the editor and the policy read all alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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


def normalize(
    entries: Iterable[Mapping[str, Any]],
    text_keys: tuple[str, ...],
    aliases: Mapping[str, str] | None = None,
) -> list[Todo]:
    """Entries with a text under one of `text_keys` and a known status, in the store's shape
    (`aliases`: the host's own status words for the store's, e.g. `done` for `completed`)."""
    todos: list[Todo] = []
    for entry in entries:
        text = next((entry[k] for k in text_keys if isinstance(entry.get(k), str)), "")
        said = str(entry.get("status"))
        status = _STATUSES.get(aliases.get(said, said) if aliases else said)
        if not text.strip() or status is None:
            continue
        todo = {"content": text.strip(), "status": status}
        if isinstance(entry.get("priority"), str):
            todo["priority"] = entry["priority"]
        todos.append(todo)
    return todos


def todo_list(
    value: object, text_keys: tuple[str, ...], aliases: Mapping[str, str] | None = None
) -> list[Todo] | None:
    """A host's whole list as a tool call sends it (`normalize`); None if not a list."""
    if not isinstance(value, list):
        return None
    return normalize((t for t in value if isinstance(t, Mapping)), text_keys, aliases)


def todowrite_list(tool_input: Mapping[str, Any]) -> list[Todo] | None:
    """The list a `TodoWrite` call sets (it always sends the whole list); None if malformed."""
    todos = tool_input.get("todos")
    if not isinstance(todos, list):
        return None
    return normalize((t for t in todos if isinstance(t, Mapping)), ("content",))
