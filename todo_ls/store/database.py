"""The state store's database: opening, recovery, transactions and the read cache.

Every query of the store goes through the few methods here, so the rules that make one file safe
to share between processes and threads live in one place: WAL, write transactions taken with
BEGIN IMMEDIATE, a bounded wait while another process holds the file (the lock budget each entry
point chooses, spent asleep outside the store's own lock, and never more than a few milliseconds
on an event loop), a read cache that a write or another process's commit invalidates, and one
`StoreError` that every SQLite error becomes, so callers need not know the store is SQLite.

The store never takes the server down: a file that is not a database, fails its integrity check
or was written by a newer todo-ls is moved aside (the reason is kept in `warning` for the server
to show) and a fresh database is created; if the state directory cannot be used at all the store
falls back to memory, which only loses sharing and durability. A file that breaks after it was
opened is a `StoreError` on each use, naming the file.
"""

from __future__ import annotations

import contextlib
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
from typing import TYPE_CHECKING, Any, TypeVar

from todo_ls.store import schema

if TYPE_CHECKING:
    from asyncio import AbstractEventLoop

if sys.platform != "win32":
    import fcntl

DB_NAME = "state.db"

# How long one use of the store waits for another process's lock, unless its entry point says
# otherwise (the hook waits a fraction of a second: docs/store.md#how-it-is-opened).
DEFAULT_LOCK_WAIT = 5.0
# What one use waits at most on a thread running an event loop, whatever the budget: the loop
# answers the editor, and a store held by another process must not freeze it.
LOOP_LOCK_WAIT = 0.05
# SQLite's own busy wait per attempt: short, so that the store's lock (which the other threads
# of the process wait for) is never held long; the rest of the budget is spent asleep outside.
_BUSY_SLICE = 0.01
# The read cache starts over beyond this many sessions, and a session's beyond this many
# results (one per open-item set asked about, besides the fixed few).
_READ_CACHE_SESSIONS = 1024
_READ_CACHE_PER_SESSION = 64

_T = TypeVar("_T")


class StoreError(Exception):
    """The state store failed after it was opened (damaged, unreadable, locked too long): the
    message names the file and SQLite's reason."""

    def __init__(self, path: Path, reason: object) -> None:
        super().__init__(f"the todo-ls state store {path} cannot be used ({reason})")
        self.path = path
        self.reason = str(reason)


class StoreLocked(StoreError):
    """Another process held the store longer than this use's lock budget; nothing was
    written, and the same call may succeed later."""

    def __init__(self, path: Path, waited: float) -> None:
        super().__init__(path, f"locked by another process for more than {waited:g} s")


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


class Database:
    """One database file, WAL, created with mode 0600; safe across processes and threads.

    The base of `Store`: its query mixins run their SQL through `_query`, `_cached` and
    `_transaction` only."""

    def __init__(
        self, path: Path, lock_wait: float = DEFAULT_LOCK_WAIT, *, quiet: bool = False
    ) -> None:
        """Open (creating, migrating or replacing) the database at `path`. Never raises for a
        bad file or an unusable directory; `warning` then says what happened (and is logged
        too unless `quiet`: the caller reports it itself). `lock_wait`: the longest one use
        (opening included) waits while another process holds the file, then `StoreLocked`;
        on an event loop's thread never more than `LOOP_LOCK_WAIT`."""
        self.path = Path(path)
        self.warning: str | None = None
        self._quiet = quiet
        self._lock_wait = lock_wait
        self._lock = allocate_lock()
        self._conn: sqlite3.Connection | None = None
        # Read cache (see `_cached`): the supervisor reads pauses and the nudge history on
        # every evaluation, which is many times per second while agents stream events. By
        # session id ("" for reads over every session), so a write clears only what it touches.
        self._reads: dict[str, dict[tuple[object, ...], Any]] = {}
        self._read_version: int | None = None
        # The event loop (of this thread) whose current turn already checked the version.
        self._checked = thread_local()
        self._identity: tuple[int, int] | None = None  # (device, inode) of the open file
        self._fd: int | None = None
        try:
            self._open_file()
        except (OSError, sqlite3.Error) as err:
            if self._conn is not None:
                self._conn.close()
            self._identity = None
            self._warn(
                f"todo-ls state store {self.path} cannot be used ({err}); state is kept in "
                "memory and not shared with other todo-ls processes"
            )
            self._conn = self._connect(":memory:")
            self._migrate()

    # opening

    def _warn(self, text: str) -> None:
        if not self._quiet:
            # Imported here: the Stop hook opens the store quietly and must start fast.
            import logging

            # The name the store has always logged under (the package, not this module).
            logging.getLogger("todo_ls.store").warning("%s", text)
        self.warning = text if self.warning is None else f"{self.warning}; {text}"

    def _connect(self, target: str) -> sqlite3.Connection:
        slice_s = min(_BUSY_SLICE, self._lock_wait)
        conn = sqlite3.connect(
            target, timeout=slice_s, isolation_level=None, check_same_thread=False
        )
        conn.execute(f"PRAGMA busy_timeout = {int(slice_s * 1000)}")
        return conn

    def _open_file(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with self._open_lock():
            self._create_private()
            conn = self._conn = self._connect(str(self.path))
            try:
                version = self._check(conn)
            except _Unusable as bad:
                conn.close()
                self._conn = None
                self._move_aside(bad.suffix, str(bad))
                self._create_private()
                conn = self._conn = self._connect(str(self.path))
                version = 0
            self._retry(lambda: conn.execute("PRAGMA journal_mode = WAL"))
            # NORMAL is corruption-safe in WAL mode; a power cut may lose the last commits only.
            conn.execute("PRAGMA synchronous = NORMAL")
            # Only a file missing steps takes the write lock: reading a current file never waits
            # for another process's write transaction (WAL), so opening does not either.
            if version < schema.SCHEMA_VERSION:
                self._migrate()
            # Kept open for `fault`: closing any descriptor of the file would drop the POSIX
            # locks SQLite holds on it in this process, so the file is never opened anew.
            self._fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            st = os.fstat(self._fd)
            self._identity = (st.st_dev, st.st_ino)

    # faults while running (docs/store.md, "A store that breaks while open")

    def fault(self) -> str | None:
        """What happened to the file under the open connection, seen from outside SQLite
        (whose page cache and WAL hide it within one process): "removed", "replaced",
        "damaged" (no SQLite header) or "read-only"; None when nothing is wrong or the store
        is in memory. Reads the file's first bytes: call it off the event loop."""
        if self._identity is None:
            return None
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return "removed"
        except OSError:
            return "removed"
        if (st.st_dev, st.st_ino) != self._identity:
            return "replaced"
        if self._fd is None or os.pread(self._fd, len(SQLITE_HEADER), 0) != SQLITE_HEADER:
            return "damaged"
        for name in (str(self.path), f"{self.path}-wal"):
            # access(): no descriptor opened (see `_fd`); it says EPERM for `chattr +i`, EROFS
            # for a read-only mount, EACCES for a mode that refuses us.
            if os.path.exists(name) and not os.access(name, os.W_OK):
                return "read-only"
        return None

    def _close_fd(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # only once the connection is closed: see `_fd`
            self._fd = None

    def reopen(self, damaged: bool = False) -> None:
        """Close the connection and open the file at `path` again: a removed store is created
        afresh, a `damaged` one moved aside and rebuilt (`warning` says what happened)."""
        with self._lock:
            self.warning = None
            if damaged:
                # Aside before closing: the close checkpoints the WAL into the file, which
                # would write a valid first page over the damage and hide it.
                with contextlib.suppress(OSError), self._open_lock():
                    self._move_aside("corrupt", "overwritten (not an SQLite database)")
            if self._conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.close()
            self._conn = None
            self._identity = None
            self._close_fd()
            self._reads.clear()
            self._read_version = None
            try:
                self._open_file()
            except (OSError, sqlite3.Error) as err:
                if self._conn is not None:
                    with contextlib.suppress(sqlite3.Error):
                        self._conn.close()
                self._identity = None
                self._warn(
                    f"todo-ls state store {self.path} cannot be used ({err}); state is kept "
                    "in memory and not shared with other todo-ls processes"
                )
                self._conn = self._connect(":memory:")
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
            # Polled within the lock budget: a process stopped while opening must not hold
            # every other one forever.
            self._retry(lambda: _try_flock(fd))
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

    def _check(self, conn: sqlite3.Connection) -> int:
        """The file's schema version; `_Unusable` when it must be moved aside."""
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
        if version > schema.SCHEMA_VERSION:
            raise _Unusable(
                "newer", f"written by a newer todo-ls (schema {version} > {schema.SCHEMA_VERSION})"
            )
        return int(version)

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
            with self._write(self._db) as conn:
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                for statements in schema.MIGRATIONS[version:]:
                    for statement in statements:
                        conn.execute(statement)
                if version < schema.SCHEMA_VERSION:
                    conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION}")

        self._retry(step)

    # plumbing

    @property
    def _db(self) -> sqlite3.Connection:
        assert self._conn is not None, "store used while opening failed"
        return self._conn

    def _run(self, action: Callable[[sqlite3.Connection], _T]) -> _T:
        """`action(conn)` holding the store's lock, retried within the lock budget while another
        process holds the file (asleep without the lock, so the process's other threads go on
        reading); an SQLite error leaves as a `StoreError` (`StoreLocked` when the budget ran
        out). The one place where the store's users stop seeing `sqlite3`."""

        def locked() -> _T:
            with self._lock:
                return action(self._db)

        started = time.monotonic()
        try:
            return self._retry(locked)
        except sqlite3.Error as err:
            if isinstance(err, sqlite3.OperationalError) and _is_locked(err):
                raise StoreLocked(self.path, round(time.monotonic() - started, 2)) from err
            raise StoreError(self.path, err) from err

    def _retry(self, action: Callable[[], _T]) -> _T:
        """Run `action`, again while another process holds the database, until the lock budget
        is spent (each attempt already waits one SQLite busy slice; this also covers the cases
        SQLite reports at once). Then the last lock error is raised."""
        budget = self._lock_wait
        if _running_loop() is not None:
            budget = min(budget, LOOP_LOCK_WAIT)
        deadline = time.monotonic() + budget
        pause = 0.001
        while True:
            try:
                return action()
            except sqlite3.OperationalError as err:
                left = deadline - time.monotonic()
                if not _is_locked(err) or left <= 0:
                    raise
                time.sleep(min(pause, left))
                pause = min(pause * 2, 0.05)

    @contextlib.contextmanager
    def _write(self, conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken before the first read (BEGIN IMMEDIATE) so that what
        it reads cannot change before it commits."""
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

        def run(conn: sqlite3.Connection) -> _T:
            try:
                with self._write(conn):
                    return body(conn)
            finally:
                # This connection's commits do not move data_version: forget what they touched.
                if session is None:
                    self._reads.clear()
                else:
                    self._reads.pop(session, None)
                    self._reads.pop("", None)

        return self._run(run)

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

        def run(conn: sqlite3.Connection) -> _T:
            reads = self._reads.get(session)
            if checked and reads is not None and key in reads:
                hit: _T = reads[key]  # fresh for this turn: no query at all
                return hit
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

        return self._run(run)

    def _turn_ended(self) -> None:
        """Runs at the loop's next turn (in the loop's thread): the next read checks again."""
        self._checked.loop = None

    def _query(self, sql: str, params: Sequence[object] = ()) -> list[Any]:
        return self._run(lambda conn: conn.execute(sql, params).fetchall())

    def data_version(self) -> int:
        """SQLite's `PRAGMA data_version`: it moves when another connection commits, so a
        process can notice other processes' writes with one cheap query."""
        return int(self._query("PRAGMA data_version")[0][0])

    def close(self) -> None:
        """Close the connection (the WAL is checkpointed by the last one to close)."""
        try:
            self._run(lambda conn: conn.close())
        finally:
            self._close_fd()


SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database


def _try_flock(fd: int) -> None:
    """Take the open lock or say at once that another process holds it (as SQLite would)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as err:
        raise sqlite3.OperationalError("database is locked (another process opens it)") from err


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
