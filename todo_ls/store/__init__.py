"""SQLite state shared by every todo-ls process of the user (docs/store.md).

One database file in WAL mode holds what must outlive a process and be seen by every other
todo-ls process of the user: the command-made part of each workspace folder's subscriptions,
session pauses, the nudge ledger with its claims, episodes (the span between two real user
prompts) and todo lists for hosts that have none of their own.

`Store` is the one face of it. Its parts are split by job so that each reads on its own:
`schema` (the tables and their migrations), `database` (opening, recovery, transactions, the
read cache and `StoreError`), and the queries: `ledger` (episodes, claims, Stop blocks),
`sessions` (pauses, hook sessions), `lists` (subscriptions, session todo lists) and `files`
(the persisted file index). The query parts are mixins over `Database`: every query runs
through its guarded plumbing, and callers keep one object with every method.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from todo_ls.store.database import (
    DB_NAME,
    DEFAULT_LOCK_WAIT,
    LOOP_LOCK_WAIT,
    StoreError,
    StoreLocked,
    default_state_dir,
)
from todo_ls.store.files import Files
from todo_ls.store.ledger import Claim, Ledger, NudgeRecord
from todo_ls.store.lists import Lists, SubscriptionOverrides
from todo_ls.store.schema import MIGRATIONS, SCHEMA_VERSION
from todo_ls.store.sessions import HookSession, Pause, Sessions

__all__ = [
    "DB_NAME",
    "DEFAULT_LOCK_WAIT",
    "LOOP_LOCK_WAIT",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Claim",
    "HookSession",
    "NudgeRecord",
    "Pause",
    "Store",
    "StoreError",
    "StoreLocked",
    "SubscriptionOverrides",
    "default_state_dir",
]


class Store(Ledger, Sessions, Lists, Files):
    """The state store: one database file, WAL, created with mode 0600; safe across processes
    and threads. Raises `StoreError` (never an `sqlite3` error) when the file fails in use."""

    @classmethod
    def open(
        cls,
        state_dir: Path | None = None,
        *,
        quiet: bool = False,
        lock_wait: float = DEFAULT_LOCK_WAIT,
    ) -> Store:
        """The store in `state_dir` (default: `default_state_dir()`); `lock_wait`: the entry
        point's lock budget (`Database`)."""
        return cls((state_dir or default_state_dir()) / DB_NAME, lock_wait, quiet=quiet)

    # Retention spans every part: a session's ledger rows, its hook records and its list.

    def forget_dormant(self, cutoff: float) -> int:
        """Forget sessions with no nudge, claim or episode start since `cutoff`: their ledger
        rows and episodes (a returning session starts again at nudge #1), so the ledger does
        not grow forever; also todo lists not written since. Pauses stay: the user made them
        or can see them. Returns how many sessions were forgotten."""

        def body(c: sqlite3.Connection) -> int:
            dormant = c.execute(
                "SELECT session_id FROM nudges UNION SELECT session_id FROM episodes "
                "EXCEPT SELECT session_id FROM nudges "
                "WHERE COALESCE(settled_at, claimed_at) >= :cutoff "
                "EXCEPT SELECT session_id FROM episodes WHERE started_at >= :cutoff",
                {"cutoff": cutoff},
            ).fetchall()
            c.executemany("DELETE FROM nudges WHERE session_id = ?", dormant)
            c.executemany("DELETE FROM episodes WHERE session_id = ?", dormant)
            c.executemany("DELETE FROM todo_progress WHERE session_id = ?", dormant)
            c.executemany("DELETE FROM stop_blocks WHERE session_id = ?", dormant)
            c.executemany("DELETE FROM hook_work WHERE session_id = ?", dormant)
            c.execute("DELETE FROM hook_sessions WHERE updated_at < ?", (cutoff,))
            c.execute("DELETE FROM session_todos WHERE at < ?", (cutoff,))
            return len(dormant)

        return self._transaction(body)
