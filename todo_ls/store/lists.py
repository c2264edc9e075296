"""Lists the user or the agent keeps: subscriptions by command and session todo lists.

Both are written in one process and read in another (a subscribe command and every editor
window's index; an MCP `todo_write` and the supervisor deciding whether to nudge), so they live
in the shared store (docs/store.md).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from typing import Any, NamedTuple

from todo_ls.path_checks import stored_path_problem
from todo_ls.store.database import Database


class SubscriptionOverrides(NamedTuple):
    """The command-made part of a workspace folder's subscriptions (absolute paths), and
    the stored values left out because no path can be made of them (`skipped`: each with
    its problem, for the reader's one warning; docs/security.md)."""

    added: frozenset[str]
    removed: frozenset[str]
    skipped: tuple[str, ...] = ()


class Lists(Database):
    """The queries of subscriptions and session todo lists, mixed into `Store`."""

    # subscriptions

    def subscription_overrides(self, workspace: str) -> SubscriptionOverrides:
        """Paths subscribed and unsubscribed by command in `workspace`; a stored value that
        is not a usable path (a NUL byte, say, stored before todo-ls checked) is skipped, so it
        cannot break any reader."""
        rows = self._query(
            "SELECT path, state FROM subscriptions WHERE workspace = ?", (workspace,)
        )
        good: list[tuple[str, str]] = []
        skipped: list[str] = []
        for path, state in rows:
            problem = stored_path_problem(path) if isinstance(path, str) else "is not text"
            if problem is None:
                good.append((path, state))
            else:
                skipped.append(f"ignoring a stored subscription {path!r:.200}: it {problem}")
        return SubscriptionOverrides(
            added=frozenset(p for p, s in good if s == "added"),
            removed=frozenset(p for p, s in good if s == "removed"),
            skipped=tuple(skipped),
        )

    def _set_subscription(self, workspace: str, path: str, state: str, now: float | None) -> None:
        at = time.time() if now is None else now
        self._transaction(
            lambda c: c.execute(
                "INSERT INTO subscriptions (workspace, path, state, at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (workspace, path) DO UPDATE SET state = excluded.state, "
                "at = excluded.at",
                (workspace, path, state, at),
            )
        )

    def subscribe(self, workspace: str, path: str, now: float | None = None) -> None:
        """Record that the user subscribed `path` in `workspace` (overrides an unsubscribe)."""
        self._set_subscription(workspace, path, "added", now)

    def unsubscribe(self, workspace: str, path: str, now: float | None = None) -> None:
        """Record that the user unsubscribed `path` in `workspace` (also hides a settings glob)."""
        self._set_subscription(workspace, path, "removed", now)

    # todo lists for hosts without their own

    def set_session_todos(
        self, session_id: str, todos: Sequence[Any], now: float, *, progress: bool = False
    ) -> None:
        """Store a session's todo list (JSON-serialisable items). With `progress` the write
        also counts as progress, in the same transaction: the no-progress count starts again
        (so a `no-progress` pause is lifted) and a stored `no-progress` pause is removed."""
        text = json.dumps(list(todos))

        def body(c: sqlite3.Connection) -> None:
            c.execute(
                "INSERT INTO session_todos (session_id, json, at) VALUES (?, ?, ?) "
                "ON CONFLICT (session_id) DO UPDATE SET json = excluded.json, at = excluded.at",
                (session_id, text, now),
            )
            if progress:
                c.execute(
                    "INSERT INTO todo_progress (session_id, after_nudge) VALUES (:s, "
                    "(SELECT COALESCE(MAX(id), 0) FROM nudges WHERE session_id = :s)) "
                    "ON CONFLICT (session_id) DO UPDATE SET after_nudge = excluded.after_nudge",
                    {"s": session_id},
                )
                c.execute(
                    "DELETE FROM pauses WHERE session_id = ? AND reason = 'no-progress'",
                    (session_id,),
                )

        self._transaction(body, session_id)

    def session_todos(self, session_id: str) -> list[Any] | None:
        """A session's stored todo list, or None if none was stored (the supervisor and the
        status read it at every evaluation: cached until the database changes)."""

        def read(conn: sqlite3.Connection) -> list[Any] | None:
            return _todo_list(conn, session_id)

        found = self._cached(session_id, ("session_todos",), read)
        return None if found is None else list(found)

    def set_session_todo_status(
        self, session_id: str, position: int, content: str | None, status: str, now: float
    ) -> str | None:
        """Set the status of item `position` of a session's stored list, read and written in
        one transaction. Returns None when done, else why not: no list, no such item, or (with
        `content`) the item there no longer says `content` because the list was rewritten."""

        def body(c: sqlite3.Connection) -> str | None:
            todos = _todo_list(c, session_id)
            if todos is None:
                return f"session {session_id} has no todo list in the store"
            if not 0 <= position < len(todos) or not isinstance(todos[position], dict):
                return f"session {session_id} has no item {position}"
            item = todos[position]
            if content is not None and item.get("content") != content:
                return f"item {position} of session {session_id} changed; list the items again"
            todos[position] = {**item, "status": status}
            c.execute(
                "UPDATE session_todos SET json = ?, at = ? WHERE session_id = ?",
                (json.dumps(todos), now, session_id),
            )
            return None

        return self._transaction(body, session_id)


def _todo_list(conn: sqlite3.Connection, session_id: str) -> list[Any] | None:
    row = conn.execute(
        "SELECT json FROM session_todos WHERE session_id = ?", (session_id,)
    ).fetchone()
    if row is None:
        return None
    value = json.loads(row[0])
    return value if isinstance(value, list) else None
