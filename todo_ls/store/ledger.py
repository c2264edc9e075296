"""The nudge ledger: episodes, claims and Stop-hook blocks (docs/store.md).

Every nudge any todo-ls process sends, to any host, is one row of the `nudges` table, so that the
caps and the minimum interval hold across processes: the supervisor claims a nudge before it
sends it and records the outcome after, and a hook host's Stop block is recorded already sent.
Both go through one insert (`_add_nudge`), which numbers the nudge within the session's episode.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import NamedTuple

from todo_ls.core.clock import CLOCK_SET_BACK_S
from todo_ls.store.database import Database

_RECORD_COLUMNS = (
    "session_id, open_hash, COALESCE(settled_at, claimed_at), owner, kind, state, number"
)


class NudgeRecord(NamedTuple):
    """One entry of the nudge ledger (shared by every todo-ls process)."""

    session_id: str
    open_hash: str
    at: float  # epoch seconds: when its outcome was recorded (sent), else when it was claimed
    owner: str
    kind: str  # "idle" | "stall" | "manual" | "stop" (a Stop-hook block)
    state: str  # "claimed" | "sent" | "failed"
    number: int = 0  # nudge number within its episode (1-based)


class Claim(NamedTuple):
    """A granted claim: the holder may send exactly this nudge, then must record its outcome."""

    claim_id: int
    session_id: str
    number: int  # nudge number in the session's current episode (1-based)


class Ledger(Database):
    """The ledger's queries, mixed into `Store`."""

    # episodes

    def start_episode(self, session_id: str, now: float) -> int:
        """A real user prompt: start the session's next episode (nudge numbers and the
        per-episode cap start again). Returns the new episode number."""

        def body(c: sqlite3.Connection) -> int:
            c.execute(
                "INSERT INTO episodes (session_id, episode, started_at) VALUES (?, 1, ?) "
                "ON CONFLICT (session_id) DO UPDATE SET episode = episode + 1, "
                "started_at = excluded.started_at",
                (session_id, now),
            )
            return int(_episode(c, session_id))

        return self._transaction(body, session_id)

    # nudges: one atomic claim per opportunity across processes

    def claim_nudge(
        self,
        session_id: str,
        open_hash: str,
        kind: str,
        owner: str,
        now: float,
        min_interval: float,
        expiry: float,
    ) -> Claim | None:
        """Grant a claim unless, for this session, a nudge was sent within `min_interval` or
        another live (unexpired, no outcome yet) claim exists. One transaction (BEGIN IMMEDIATE).

        A claim whose holder died (no outcome recorded) stops blocking at its `expires_at`; it
        is then recorded as failed."""

        def body(c: sqlite3.Connection) -> Claim | None:
            future = now + CLOCK_SET_BACK_S
            recent = c.execute(
                "SELECT 1 FROM nudges WHERE session_id = ? AND state = 'sent' "
                "AND settled_at > ? AND settled_at < ? LIMIT 1",
                (session_id, now - min_interval, future),
            ).fetchone()
            live = c.execute(
                "SELECT 1 FROM nudges WHERE session_id = ? AND state = 'claimed' "
                "AND expires_at > ? AND claimed_at < ? LIMIT 1",
                (session_id, now, future),
            ).fetchone()
            if recent or live:
                return None
            c.execute(
                "UPDATE nudges SET state = 'failed', settled_at = ? "
                "WHERE session_id = ? AND state = 'claimed'",
                (now, session_id),
            )
            return _add_nudge(c, session_id, open_hash, kind, owner, now, now + expiry)

        return self._transaction(body, session_id)

    def record_claim_outcome(self, claim_id: int, sent: bool, now: float) -> None:
        """Record the outcome of a granted claim. A sent nudge is always recorded as sent (the
        ledger must match what the agent received, even if the claim had expired meanwhile)."""
        self._transaction(
            lambda c: c.execute(
                "UPDATE nudges SET state = ?, settled_at = ? WHERE id = ? "
                "AND (state = 'claimed' OR ?)",
                ("sent" if sent else "failed", now, claim_id, sent),
            )
        )

    def nudges(self, session_id: str, since: float = 0.0) -> list[NudgeRecord]:
        """Sent nudges of a session since `since`, oldest first (all processes)."""
        rows = self._query(
            f"SELECT {_RECORD_COLUMNS} FROM nudges WHERE session_id = ? AND state = 'sent' "
            "AND settled_at >= ? ORDER BY id",
            (session_id, since),
        )
        return [NudgeRecord(*row) for row in rows]

    def last_sent(self, session_id: str) -> NudgeRecord | None:
        """The session's most recent sent nudge, from any process."""

        def read(conn: sqlite3.Connection) -> NudgeRecord | None:
            row = conn.execute(
                f"SELECT {_RECORD_COLUMNS} FROM nudges WHERE session_id = ? AND state = 'sent' "
                "ORDER BY id DESC LIMIT 1",
                (session_id,),
            ).fetchone()
            return NudgeRecord(*row) if row else None

        return self._cached(session_id, ("last_sent",), read)

    def episode_nudge_count(self, session_id: str) -> int:
        """Nudges sent to the session in its current episode."""

        def count(conn: sqlite3.Connection) -> int:
            return _sent_in_episode(conn, session_id, _episode(conn, session_id))

        return self._cached(session_id, ("episode_nudge_count",), count)

    def consecutive_same_hash(self, session_id: str, open_hash: str) -> int:
        """How many of the session's latest sent nudges in the current episode, in a row, were
        sent for the open-item set `open_hash` (0 if the latest was for another set)."""

        def read(conn: sqlite3.Connection) -> int:
            rows = conn.execute(
                "SELECT open_hash FROM nudges WHERE session_id = :s AND state = 'sent' AND "
                "episode = (SELECT COALESCE(MAX(episode), 0) FROM episodes WHERE session_id = :s) "
                "AND id > (SELECT COALESCE(MAX(after_nudge), 0) FROM todo_progress "
                "WHERE session_id = :s) ORDER BY id DESC",
                {"s": session_id},
            ).fetchall()
            run = 0
            for (h,) in rows:
                if h != open_hash:
                    break
                run += 1
            return run

        return self._cached(session_id, ("consecutive_same_hash", open_hash), read)

    # Stop-hook blocks: a hook host's nudge

    def has_stop_block(self, session_id: str, opportunity: str) -> bool:
        """Whether a Stop-hook block was already recorded for this opportunity."""
        rows = self._query(
            "SELECT 1 FROM stop_blocks WHERE session_id = ? AND opportunity = ?",
            (session_id, opportunity),
        )
        return bool(rows)

    def last_stop_mark(self, session_id: str) -> str | None:
        """The work mark recorded with the session's latest Stop-hook block (None: none)."""
        rows = self._query(
            "SELECT work_mark FROM stop_blocks WHERE session_id = ? ORDER BY nudge_id DESC LIMIT 1",
            (session_id,),
        )
        return str(rows[0][0]) if rows else None

    def claim_stop_block(
        self,
        session_id: str,
        opportunity: str,
        work_mark: str,
        open_hash: str,
        owner: str,
        now: float,
        reason: Callable[[int], str] | None = None,
    ) -> Claim | None:
        """Record a Stop-hook block as a sent nudge, once per `opportunity` of the session.

        Parallel hook processes of one Stop (several registrations, retries) compute the same
        `opportunity` from the same input: the first one to commit gets the claim, the others
        None and must not block. A block is delivered by the hook's answer itself, so it is
        recorded as sent at once. `reason(number)`, the block's text, is kept as the session's
        latest reason in the same transaction."""

        def body(c: sqlite3.Connection) -> Claim | None:
            taken = c.execute(
                "SELECT 1 FROM stop_blocks WHERE session_id = ? AND opportunity = ?",
                (session_id, opportunity),
            ).fetchone()
            if taken:
                return None
            # Already sent (see above): no outcome to record, no claim to expire.
            block = _add_nudge(c, session_id, open_hash, "stop", owner, now, now, sent=True)
            c.execute(
                "INSERT INTO stop_blocks (session_id, opportunity, work_mark, nudge_id) "
                "VALUES (?, ?, ?, ?)",
                (session_id, opportunity, work_mark, block.claim_id),
            )
            if reason is not None:
                c.execute(
                    "INSERT INTO hook_work (session_id, last_reason) VALUES (?, ?) "
                    "ON CONFLICT (session_id) DO UPDATE SET last_reason = excluded.last_reason",
                    (session_id, reason(block.number)),
                )
            return block

        return self._transaction(body, session_id)


def _add_nudge(
    conn: sqlite3.Connection,
    session_id: str,
    open_hash: str,
    kind: str,
    owner: str,
    now: float,
    expires_at: float,
    *,
    sent: bool = False,
) -> Claim:
    """The one insert into the ledger: the session's next nudge number in its current episode,
    claimed (its outcome to be recorded) or, with `sent`, already sent at `now`. Run inside the
    caller's write transaction, so the number cannot be taken twice."""
    episode = _episode(conn, session_id)
    number = _sent_in_episode(conn, session_id, episode) + 1
    cur = conn.execute(
        "INSERT INTO nudges (session_id, episode, number, open_hash, kind, owner, claimed_at, "
        "expires_at, state, settled_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            session_id,
            episode,
            number,
            open_hash,
            kind,
            owner,
            now,
            expires_at,
            "sent" if sent else "claimed",
            now if sent else None,
        ),
    )
    assert cur.lastrowid is not None
    return Claim(cur.lastrowid, session_id, number)


def _episode(conn: sqlite3.Connection, session_id: str) -> int:
    row = conn.execute(
        "SELECT episode FROM episodes WHERE session_id = ?", (session_id,)
    ).fetchone()
    return int(row[0]) if row else 0


def _sent_in_episode(conn: sqlite3.Connection, session_id: str, episode: int) -> int:
    row = conn.execute(
        "SELECT COUNT(*) FROM nudges WHERE session_id = ? AND episode = ? AND state = 'sent'",
        (session_id, episode),
    ).fetchone()
    return int(row[0])
