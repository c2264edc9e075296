"""SQLite state shared by every todo-ls process of the user (docs/store.md).

One database file in WAL mode holds what must outlive a process and be seen by every other
todo-ls process of the user: the command-made part of each workspace folder's subscriptions,
session pauses, the nudge ledger with its claims, episodes (the span between two real user
prompts) and todo lists for hosts that have none of their own.

The store never takes the server down: a file that is not a database, fails its integrity check
or was written by a newer todo-ls is moved aside (the reason is kept in `Store.warning` for the
server to show) and a fresh database is created; if the state directory cannot be used at all the
store falls back to memory, which only loses sharing and durability.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import sys
import time

# threading's own Lock and local (`threading` imports them from here): importing `threading`
# adds about a millisecond to every `todo-ls hook` run, which needs nothing else of it.
from _thread import _local as thread_local
from _thread import allocate_lock
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from todo_ls.supervisor.clock import CLOCK_SET_BACK_S

if TYPE_CHECKING:
    from asyncio import AbstractEventLoop

if sys.platform != "win32":
    import fcntl

DB_NAME = "state.db"

# Each step moves the schema from version i to i + 1; later versions append steps, never edit
# one that has shipped (a user's file may be at any earlier version).
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE subscriptions (
            workspace TEXT NOT NULL,
            path TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('added', 'removed')),
            at REAL NOT NULL,
            PRIMARY KEY (workspace, path))""",
        """CREATE TABLE pauses (
            session_id TEXT PRIMARY KEY,
            reason TEXT NOT NULL,
            since REAL NOT NULL)""",
        """CREATE TABLE episodes (
            session_id TEXT PRIMARY KEY,
            episode INTEGER NOT NULL,
            started_at REAL NOT NULL)""",
        """CREATE TABLE nudges (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL,
            episode INTEGER NOT NULL,
            number INTEGER NOT NULL,
            open_hash TEXT NOT NULL,
            kind TEXT NOT NULL,
            owner TEXT NOT NULL,
            claimed_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('claimed', 'sent', 'failed')),
            settled_at REAL)""",
        "CREATE INDEX nudges_session_state ON nudges (session_id, state, id)",
        """CREATE TABLE session_todos (
            session_id TEXT PRIMARY KEY,
            json TEXT NOT NULL,
            at REAL NOT NULL)""",
    ),
    # Sessions of agents reached through hooks (Claude Code, Codex, Gemini CLI): each hook
    # process records what it saw, and the language servers list them from here. A Stop
    # hook's block is a nudge in the ledger; `stop_blocks` makes it one per opportunity.
    (
        """CREATE TABLE hook_sessions (
            session_id TEXT PRIMARY KEY,
            host TEXT NOT NULL,
            directory TEXT NOT NULL,
            state TEXT NOT NULL,
            paused TEXT NOT NULL DEFAULT '',
            title TEXT NOT NULL DEFAULT '',
            detail TEXT NOT NULL DEFAULT '',
            turn TEXT NOT NULL DEFAULT '',
            updated_at REAL NOT NULL)""",
        "CREATE INDEX hook_sessions_directory ON hook_sessions (directory)",
        """CREATE TABLE stop_blocks (
            session_id TEXT NOT NULL,
            opportunity TEXT NOT NULL,
            work_mark TEXT NOT NULL,
            nudge_id INTEGER NOT NULL,
            PRIMARY KEY (session_id, opportunity))""",
    ),
    (
        # A todo_write is progress: nudges up to `after_nudge` no longer count towards the
        # no-progress pause (an id, not a time: the writer's clock may not be the nudger's).
        """CREATE TABLE todo_progress (
            session_id TEXT PRIMARY KEY,
            after_nudge INTEGER NOT NULL)""",
    ),
    (
        # What a hook host's session did outside its transcript: post-tool events (work), and
        # the reason of its latest Stop block (some hosts hand it back as a prompt).
        """CREATE TABLE hook_work (
            session_id TEXT PRIMARY KEY,
            tool_runs INTEGER NOT NULL DEFAULT 0,
            last_reason TEXT NOT NULL DEFAULT '')""",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


_LOCK_RETRIES = 8
# The read cache starts over beyond this many sessions, and a session's beyond this many
# results (one per open-item set asked about, besides the fixed few).
_READ_CACHE_SESSIONS = 1024
_READ_CACHE_PER_SESSION = 64

_T = TypeVar("_T")


class SubscriptionOverrides(NamedTuple):
    """The command-made part of a workspace folder's subscriptions (absolute paths)."""

    added: frozenset[str]
    removed: frozenset[str]


class Pause(NamedTuple):
    """A paused session: no nudges until the user writes or resumes it."""

    session_id: str
    reason: str  # "interrupt" | "error" | "no-progress" | "episode-cap" | "user"
    since: float  # epoch seconds


class NudgeRecord(NamedTuple):
    """One entry of the nudge ledger (shared by every todo-ls process)."""

    session_id: str
    open_hash: str
    at: float  # epoch seconds: when its outcome was recorded (sent), else when it was claimed
    owner: str
    kind: str  # "idle" | "stall" | "manual"
    state: str  # "claimed" | "sent" | "failed"
    number: int = 0  # nudge number within its episode (1-based)


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


class Claim(NamedTuple):
    """A granted claim: the holder may send exactly this nudge, then must record its outcome."""

    claim_id: int
    session_id: str
    number: int  # nudge number in the session's current episode (1-based)


def default_state_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$TODO_LS_STATE_DIR`, else `$XDG_STATE_HOME/todo-ls`, else `~/.local/state/todo-ls`."""
    env = os.environ if env is None else env
    if env.get("TODO_LS_STATE_DIR"):
        return Path(env["TODO_LS_STATE_DIR"]).expanduser()
    if env.get("XDG_STATE_HOME"):
        return Path(env["XDG_STATE_HOME"]).expanduser() / "todo-ls"
    home = env.get("HOME")
    return (Path(home) if home else Path.home()) / ".local" / "state" / "todo-ls"


class _Unusable(Exception):
    """The file at the store's path must be moved aside; the message says why."""

    def __init__(self, suffix: str, why: str) -> None:
        super().__init__(why)
        self.suffix = suffix


def _is_locked(err: sqlite3.OperationalError) -> bool:
    text = str(err).lower()
    return "locked" in text or "busy" in text


class Store:
    """One database file, WAL, created with mode 0600; safe across processes and threads."""

    def __init__(self, path: Path, busy_timeout: float = 5.0, *, quiet: bool = False) -> None:
        """Open (creating, migrating or replacing) the database at `path`. Never raises for a
        bad file or an unusable directory; `warning` then says what happened (and is logged
        too unless `quiet`: the caller reports it itself)."""
        self.path = Path(path)
        self.warning: str | None = None
        self._quiet = quiet
        self._busy_timeout = busy_timeout
        self._lock = allocate_lock()
        self._conn: sqlite3.Connection | None = None
        # Read cache (see `_cached`): the supervisor reads pauses and the nudge history on
        # every evaluation, which is many times per second while agents stream events. By
        # session id ("" for reads over every session), so a write clears only what it touches.
        self._reads: dict[str, dict[tuple[object, ...], Any]] = {}
        self._read_version: int | None = None
        # The event loop (of this thread) whose current turn already checked the version.
        self._checked = thread_local()
        try:
            self._open_file()
        except (OSError, sqlite3.Error) as err:
            if self._conn is not None:
                self._conn.close()
            self._warn(
                f"todo-ls state store {self.path} cannot be used ({err}); state is kept in "
                "memory and not shared with other todo-ls processes"
            )
            self._conn = self._connect(":memory:")
            self._migrate()

    @classmethod
    def open(cls, state_dir: Path | None = None, *, quiet: bool = False) -> Store:
        """The store in `state_dir` (default: `default_state_dir()`)."""
        return cls((state_dir or default_state_dir()) / DB_NAME, quiet=quiet)

    # opening

    def _warn(self, text: str) -> None:
        if not self._quiet:
            # Imported here: the Stop hook opens the store quietly and must start fast.
            import logging

            logging.getLogger(__name__).warning("%s", text)
        self.warning = text if self.warning is None else f"{self.warning}; {text}"

    def _connect(self, target: str) -> sqlite3.Connection:
        conn = sqlite3.connect(
            target, timeout=self._busy_timeout, isolation_level=None, check_same_thread=False
        )
        conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
        return conn

    def _open_file(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with self._open_lock():
            self._create_private()
            conn = self._conn = self._connect(str(self.path))
            try:
                self._check(conn)
            except _Unusable as bad:
                conn.close()
                self._conn = None
                self._move_aside(bad.suffix, str(bad))
                self._create_private()
                conn = self._conn = self._connect(str(self.path))
            self._retry(lambda: conn.execute("PRAGMA journal_mode = WAL"))
            # NORMAL is corruption-safe in WAL mode; a power cut may lose the last commits only.
            conn.execute("PRAGMA synchronous = NORMAL")
            self._migrate()

    @contextlib.contextmanager
    def _open_lock(self) -> Iterator[None]:
        """Serialise check / move-aside / create between processes opening the same store, so
        one process never moves aside the fresh file another has just created."""
        if sys.platform == "win32":
            yield
            return
        fd = os.open(f"{self.path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _create_private(self) -> None:
        """Create the file with mode 0600 before SQLite does (SQLite would use the umask); its
        -wal and -shm files inherit the database file's mode."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if os.fstat(fd).st_mode & 0o077:
                os.fchmod(fd, 0o600)
        finally:
            os.close(fd)

    def _check(self, conn: sqlite3.Connection) -> None:
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            result = conn.execute("PRAGMA quick_check").fetchone()[0]
        except sqlite3.OperationalError as err:
            if _is_locked(err):
                raise
            raise _Unusable("corrupt", f"unreadable: {err}") from err
        except sqlite3.DatabaseError as err:
            raise _Unusable("corrupt", f"not a database: {err}") from err
        if result != "ok":
            raise _Unusable("corrupt", f"integrity check failed: {result}")
        if version > SCHEMA_VERSION:
            raise _Unusable(
                "newer", f"written by a newer todo-ls (schema {version} > {SCHEMA_VERSION})"
            )

    def _move_aside(self, suffix: str, why: str) -> None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = self.path.with_name(f"{self.path.name}.{suffix}-{stamp}")
        n = 1
        while target.exists():
            target = self.path.with_name(f"{self.path.name}.{suffix}-{stamp}-{n}")
            n += 1
        os.replace(self.path, target)
        # The old WAL belongs to the old file; a fresh database must not replay it.
        for extra in ("-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.replace(f"{self.path}{extra}", f"{target}{extra}")
        self._warn(
            f"todo-ls state store {self.path} was {why}; moved it to {target.name} and started "
            "a fresh one (subscriptions made by command and pauses were reset)"
        )

    def _migrate(self) -> None:
        def step() -> None:
            with self._write() as conn:
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                for statements in MIGRATIONS[version:]:
                    for statement in statements:
                        conn.execute(statement)
                if version < SCHEMA_VERSION:
                    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

        self._retry(step)

    # plumbing

    @property
    def _db(self) -> sqlite3.Connection:
        assert self._conn is not None, "store used while opening failed"
        return self._conn

    def _retry(self, action: Callable[[], _T]) -> _T:
        """Run `action`, retrying when another process holds the database longer than the busy
        timeout (busy_timeout already waits; this covers the cases SQLite reports at once)."""
        for attempt in range(_LOCK_RETRIES):
            try:
                return action()
            except sqlite3.OperationalError as err:
                if not _is_locked(err) or attempt == _LOCK_RETRIES - 1:
                    raise
                time.sleep(min(0.01 * 2**attempt, 0.5))
        raise AssertionError("unreachable")

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken before the first read (BEGIN IMMEDIATE) so that what
        it reads cannot change before it commits."""
        conn = self._db
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def _transaction(
        self, body: Callable[[sqlite3.Connection], _T], session: str | None = None
    ) -> _T:
        """Run `body` in one write transaction. `session`: the only session whose rows it
        writes (None: any), so that only its cached reads, and the reads over every session,
        are forgotten: a session's interrupt or new episode must not make the next decision
        of each of 200 other sessions read the store again."""

        def run() -> _T:
            with self._write() as conn:
                return body(conn)

        with self._lock:
            try:
                return self._retry(run)
            finally:
                # This connection's commits do not move data_version: forget what they touched.
                if session is None:
                    self._reads.clear()
                else:
                    self._reads.pop(session, None)
                    self._reads.pop("", None)

    def _cached(
        self, session: str, key: tuple[object, ...], read: Callable[[sqlite3.Connection], _T]
    ) -> _T:
        """`read(conn)`, a read of `session`'s rows ("": of every session's), remembered until
        they change: a write through this store forgets the reads of the session it writes,
        and `PRAGMA data_version` moves when another connection commits (all are forgotten).

        On an event loop, one version check serves every read until the loop's next turn: the
        language server reads the pauses and the nudge history for every decision, and a turn
        handles all the events of one socket read (dozens on a busy stream), so a check per read
        was most of the store's cost. A commit by another process is therefore seen by every
        read that starts in a later turn of the loop, a few milliseconds at most. Without a
        running loop (the hook, tests) every read checks."""
        loop = _running_loop()
        checked = loop is not None and getattr(self._checked, "loop", None) is loop
        with self._lock:
            reads = self._reads.get(session)
            if checked and reads is not None and key in reads:
                hit: _T = reads[key]  # fresh for this turn: no query at all
                return hit

            def run() -> _T:
                conn = self._db
                if not checked:
                    version = conn.execute("PRAGMA data_version").fetchone()[0]
                    if version != self._read_version:
                        self._reads.clear()
                        self._read_version = version
                    if loop is not None:
                        self._checked.loop = loop
                        loop.call_soon(self._turn_ended)
                reads = self._reads.get(session)
                if reads is None:
                    if len(self._reads) >= _READ_CACHE_SESSIONS:
                        self._reads.clear()
                    reads = self._reads[session] = {}
                if key not in reads:
                    if len(reads) >= _READ_CACHE_PER_SESSION:
                        reads.clear()
                    reads[key] = read(conn)
                value: _T = reads[key]
                return value

            return self._retry(run)

    def _turn_ended(self) -> None:
        """Runs at the loop's next turn (in the loop's thread): the next read checks again."""
        self._checked.loop = None

    def _query(self, sql: str, params: Sequence[object] = ()) -> list[Any]:
        with self._lock:
            return self._retry(lambda: self._db.execute(sql, params).fetchall())

    # subscriptions

    def subscription_overrides(self, workspace: str) -> SubscriptionOverrides:
        """Paths subscribed and unsubscribed by command in `workspace`."""
        rows = self._query(
            "SELECT path, state FROM subscriptions WHERE workspace = ?", (workspace,)
        )
        return SubscriptionOverrides(
            added=frozenset(p for p, s in rows if s == "added"),
            removed=frozenset(p for p, s in rows if s == "removed"),
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
            episode = _episode(c, session_id)
            number = _sent_in_episode(c, session_id, episode) + 1
            cur = c.execute(
                "INSERT INTO nudges (session_id, episode, number, open_hash, kind, owner, "
                "claimed_at, expires_at, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'claimed')",
                (session_id, episode, number, open_hash, kind, owner, now, now + expiry),
            )
            assert cur.lastrowid is not None
            return Claim(cur.lastrowid, session_id, number)

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
            episode = _episode(c, session_id)
            number = _sent_in_episode(c, session_id, episode) + 1
            cur = c.execute(
                "INSERT INTO nudges (session_id, episode, number, open_hash, kind, owner, "
                "claimed_at, expires_at, state, settled_at) "
                "VALUES (?, ?, ?, ?, 'stop', ?, ?, ?, 'sent', ?)",
                (session_id, episode, number, open_hash, owner, now, now, now),
            )
            assert cur.lastrowid is not None
            c.execute(
                "INSERT INTO stop_blocks (session_id, opportunity, work_mark, nudge_id) "
                "VALUES (?, ?, ?, ?)",
                (session_id, opportunity, work_mark, cur.lastrowid),
            )
            if reason is not None:
                c.execute(
                    "INSERT INTO hook_work (session_id, last_reason) VALUES (?, ?) "
                    "ON CONFLICT (session_id) DO UPDATE SET last_reason = excluded.last_reason",
                    (session_id, reason(number)),
                )
            return Claim(cur.lastrowid, session_id, number)

        return self._transaction(body, session_id)

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

    def data_version(self) -> int:
        """SQLite's `PRAGMA data_version`: it moves when another connection commits, so a
        process can notice other processes' writes with one cheap query."""
        return int(self._query("PRAGMA data_version")[0][0])

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

    def close(self) -> None:
        """Close the connection (the WAL is checkpointed by the last one to close)."""
        with self._lock:
            self._db.close()


def _running_loop() -> AbstractEventLoop | None:
    """The event loop running in this thread, if any. Without importing asyncio: the hook
    process never loads it, and its start-up time counts on every turn of an agent."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return None
    try:
        loop: AbstractEventLoop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    return loop


_HOOK_COLUMNS = "session_id, host, directory, state, paused, title, detail, turn, updated_at"
_RECORD_COLUMNS = (
    "session_id, open_hash, COALESCE(settled_at, claimed_at), owner, kind, state, number"
)


def _todo_list(conn: sqlite3.Connection, session_id: str) -> list[Any] | None:
    row = conn.execute(
        "SELECT json FROM session_todos WHERE session_id = ?", (session_id,)
    ).fetchone()
    if row is None:
        return None
    value = json.loads(row[0])
    return value if isinstance(value, list) else None


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
