"""Sessions as todo-ls keeps them: pauses, and what hook hosts' sessions did (docs/store.md).

A pause must hold in every todo-ls process (the pause command in one editor window, the Stop hook
of another agent), and a hook host's session exists only between hook processes, so both live
in the shared store: the language servers list hook sessions from here.
"""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from todo_ls.store.database import Database

_HOOK_COLUMNS = "session_id, host, directory, state, paused, title, detail, turn, updated_at"


class Pause(NamedTuple):
    """A paused session: no nudges until the user writes or resumes it."""

    session_id: str
    reason: str  # "interrupt" | "error" | "no-progress" | "episode-cap" | "user"
    since: float  # epoch seconds


class HookSession(NamedTuple):
    """A session of an agent reached through hooks, as its last hook event left it."""

    session_id: str
    host: str  # the host's kind (todo_ls/hook/hosts/)
    directory: str  # the agent's project folder
    state: str  # "working" | "waiting" | "idle" | "paused" | "done" | "ended"
    paused: str  # the pause reason the hook's last decision saw ("" for none)
    title: str  # the latest user prompt, clipped
    detail: str
    turn: str  # the current turn's id (`prompt_id` / `turn_id`), "" when unknown
    updated_at: float


class Sessions(Database):
    """The queries of pauses and hook sessions, mixed into `Store`."""

    # pauses

    def pause(
        self, session_id: str, reason: str, now: float, *, keep_user_pause: bool = False
    ) -> None:
        """Pause a session, replacing an earlier pause and its reason; with `keep_user_pause`
        a pause made by the pause command (reason "user") stays as it is."""
        self._transaction(
            lambda c: c.execute(
                "INSERT INTO pauses (session_id, reason, since) VALUES (?, ?, ?) "
                "ON CONFLICT (session_id) DO UPDATE SET reason = excluded.reason, "
                "since = excluded.since WHERE NOT ? OR pauses.reason != 'user'",
                (session_id, reason, now, keep_user_pause),
            ),
            session_id,
        )

    def resume(self, session_id: str) -> None:
        """Lift a session's pause, if any."""
        self._transaction(
            lambda c: c.execute("DELETE FROM pauses WHERE session_id = ?", (session_id,)),
            session_id,
        )

    def paused(self, session_id: str) -> Pause | None:
        """The session's pause, None when it is not paused."""

        def read(conn: sqlite3.Connection) -> Pause | None:
            row = conn.execute(
                "SELECT session_id, reason, since FROM pauses WHERE session_id = ?", (session_id,)
            ).fetchone()
            return Pause(*row) if row else None

        return self._cached(session_id, ("paused",), read)

    def pauses(self) -> dict[str, Pause]:
        """Every paused session, by id."""

        def read(conn: sqlite3.Connection) -> dict[str, Pause]:
            rows = conn.execute("SELECT session_id, reason, since FROM pauses").fetchall()
            return {sid: Pause(sid, reason, since) for sid, reason, since in rows}

        return dict(self._cached("", ("pauses",), read))

    # sessions of hosts reached through hooks

    def record_hook_session(
        self,
        session_id: str,
        host: str,
        directory: str,
        state: str,
        now: float,
        *,
        paused: str = "",
        detail: str = "",
        turn: str | None = None,
        title: str | None = None,
    ) -> None:
        """Record a hook event's view of a session (`turn` / `title` None keep the stored
        ones)."""
        self._transaction(
            lambda c: c.execute(
                "INSERT INTO hook_sessions (session_id, host, directory, state, paused, title, "
                "detail, turn, updated_at) "
                "VALUES (:sid, :host, :dir, :state, :paused, COALESCE(:title, ''), :detail, "
                "COALESCE(:turn, ''), :now) "
                "ON CONFLICT (session_id) DO UPDATE SET host = excluded.host, "
                "directory = excluded.directory, state = excluded.state, "
                "paused = excluded.paused, title = COALESCE(:title, hook_sessions.title), "
                "detail = excluded.detail, turn = COALESCE(:turn, hook_sessions.turn), "
                "updated_at = excluded.updated_at",
                {
                    "sid": session_id,
                    "host": host,
                    "dir": directory,
                    "state": state,
                    "paused": paused,
                    "title": title,
                    "detail": detail,
                    "turn": turn,
                    "now": now,
                },
            ),
            session_id,
        )

    def hook_session(self, session_id: str) -> HookSession | None:
        """One hook-host session, None when no hook event recorded it."""
        rows = self._query(
            f"SELECT {_HOOK_COLUMNS} FROM hook_sessions WHERE session_id = ?", (session_id,)
        )
        return HookSession(*rows[0]) if rows else None

    def hook_sessions(self, since: float = 0.0) -> list[HookSession]:
        """Hook-host sessions updated since `since` (ended ones included), oldest first."""

        def read(conn: sqlite3.Connection) -> list[HookSession]:
            rows = conn.execute(
                f"SELECT {_HOOK_COLUMNS} FROM hook_sessions WHERE updated_at >= ? "
                "ORDER BY updated_at, session_id",
                (since,),
            ).fetchall()
            return [HookSession(*row) for row in rows]

        return list(self._cached("", ("hook_sessions", since), read))

    # what a hook host's session did outside its transcript

    def record_tool_run(self, session_id: str) -> None:
        """Count a post-tool event of a hook host's session (evidence of work)."""
        self._transaction(
            lambda c: c.execute(
                "INSERT INTO hook_work (session_id, tool_runs) VALUES (?, 1) "
                "ON CONFLICT (session_id) DO UPDATE SET tool_runs = tool_runs + 1",
                (session_id,),
            ),
            session_id,
        )

    def hook_work(self, session_id: str) -> tuple[int, str | None]:
        """The session's post-tool event count and its latest block reason (None: none)."""
        rows = self._query(
            "SELECT tool_runs, last_reason FROM hook_work WHERE session_id = ?", (session_id,)
        )
        if not rows:
            return 0, None
        return int(rows[0][0]), str(rows[0][1]) or None
