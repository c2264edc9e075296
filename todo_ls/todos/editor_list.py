"""A session's own todo list as the editor sees it: the `todos` summary of a status entry, the
session items of `todoLs.list`, and what toggling one of them does.

A session can hold two lists: the one in todo-ls's shared store (the `todo_*` MCP tools, the
hook hosts' lists) and the one its host keeps (OpenCode 1.x `todowrite`, read from OpenCode).
The editor shows them as one list, the same one the supervisor nudges about: the store's items,
then the host's items whose text is not in the store's list (an item in both is the store's);
an item's `index` is its place in that combined list. Only store items can be changed from the
editor: OpenCode 1.x offers no route to write a session's list, and a copy kept beside it would
disagree with what the agent sees.

Pure: no store, no host. Every session source (the supervisor runtime, the hook hosts) builds
its record's `todos` with `todo_summary` and its list items with `session_items`.
See docs/status-and-commands.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from todo_ls.checklist import symbol_name
from todo_ls.core.counts import TodoCount
from todo_ls.core.events import SessionTodo, TodoStatus
from todo_ls.payloads import SessionItem
from todo_ls.todos.model import OPEN_STATUSES, as_event_todos, stored_todos

Source = Literal["host", "store"]


@dataclass(frozen=True)
class ListedTodo:
    """One item of a session's combined list and where it lives."""

    todo: SessionTodo
    source: Source
    position: int  # index in its own source's list


def _stored_todo(entry: Any) -> SessionTodo | None:
    """One entry of the store's list, read as the supervisor reads it (None: not an item)."""
    parsed = as_event_todos(stored_todos([entry]))
    return parsed[0] if parsed else None


def combined(host: Iterable[SessionTodo], stored: Sequence[Any] | None) -> tuple[ListedTodo, ...]:
    """The list the editor shows: the store's items (from its raw JSON list: entries without
    text or a known status are skipped but keep their place for writes), then the host's
    items whose text the store's list does not have."""
    listed: list[ListedTodo] = []
    for i, entry in enumerate(stored or ()):
        todo = _stored_todo(entry)
        if todo is not None:
            listed.append(ListedTodo(todo, "store", i))
    taken = {item.todo.content.strip() for item in listed}
    for i, todo in enumerate(host):
        if todo.content.strip() not in taken:
            listed.append(ListedTodo(todo, "host", i))
    return tuple(listed)


def todo_summary(listed: Iterable[ListedTodo]) -> TodoCount | None:
    """The record's `todos`; None when the session has no items of its own."""
    statuses = [item.todo.status for item in listed]
    if not statuses:
        return None
    return TodoCount(sum(s in OPEN_STATUSES for s in statuses), len(statuses))


def session_items(
    session_id: str, listed: Iterable[ListedTodo], host_keeps_list: bool = False
) -> list[SessionItem]:
    """The `todoLs.list` entries of one session: every item, closed ones too (so a completed
    item can be reopened), each with its index in the combined list, its `name` (its content
    as plain text, as the outline names a file's items) and `readOnly: true` where toggling
    it is refused (a host item, or any item of a list a hook host keeps); editable items
    carry no such key."""
    found: list[SessionItem] = []
    for index, item in enumerate(listed):
        entry: SessionItem = {
            "sessionID": session_id,
            "index": index,
            "content": item.todo.content,
            "name": symbol_name(item.todo.content),
            "status": item.todo.status,
            "priority": item.todo.priority,
        }
        if host_keeps_list or item.source == "host":
            entry["readOnly"] = True
        found.append(entry)
    return found


def toggled_status(status: str) -> TodoStatus:
    """Completed → pending, anything else → completed (as a file item: done ↔ open)."""
    return "pending" if status == "completed" else "completed"
