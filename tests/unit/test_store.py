"""The shared SQLite store: every method, the claim rules, migrations and bad files."""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from todo_ls.core.clock import CLOCK_SET_BACK_S
from todo_ls.store import (
    DB_NAME,
    SCHEMA_VERSION,
    Claim,
    Pause,
    Store,
    StoreError,
    SubscriptionOverrides,
    default_state_dir,
    schema,
)

MIN = 45.0
EXPIRY = 30.0


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "state" / DB_NAME


@pytest.fixture
def store(db: Path) -> Iterator[Store]:
    s = Store(db)
    yield s
    s.close()


def claim(s: Store, now: float, session: str = "ses_1", open_hash: str = "h1") -> Claim | None:
    return s.claim_nudge(session, open_hash, "idle", "proc-a", now, MIN, EXPIRY)


def send(s: Store, now: float, session: str = "ses_1", open_hash: str = "h1") -> Claim:
    granted = claim(s, now, session, open_hash)
    assert granted is not None
    s.record_claim_outcome(granted.claim_id, sent=True, now=now + 1)
    return granted


# location


def test_state_dir_prefers_explicit_override() -> None:
    env = {"TODO_LS_STATE_DIR": "/x/state", "XDG_STATE_HOME": "/x/xdg", "HOME": "/x/home"}
    assert default_state_dir(env) == Path("/x/state")


def test_state_dir_uses_xdg_state_home() -> None:
    env = {"XDG_STATE_HOME": "/x/xdg", "HOME": "/x/home"}
    assert default_state_dir(env) == Path("/x/xdg/todo-ls")


def test_state_dir_falls_back_to_home() -> None:
    assert default_state_dir({"HOME": "/x/home"}) == Path("/x/home/.local/state/todo-ls")


def test_open_puts_state_db_in_the_state_dir(tmp_path: Path) -> None:
    s = Store.open(tmp_path / "dir")
    s.subscribe("ws", "/ws/a.md")
    s.close()
    assert (tmp_path / "dir" / "state.db").is_file()


def test_open_defaults_to_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TODO_LS_STATE_DIR", str(tmp_path / "from-env"))
    Store.open().close()
    assert (tmp_path / "from-env" / DB_NAME).is_file()


# files and modes


def test_database_and_its_wal_are_private(store: Store, db: Path) -> None:
    store.pause("ses_1", "user", 1.0)
    for name in (DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm"):
        assert (db.parent / name).stat().st_mode & 0o777 == 0o600, name
    assert db.parent.stat().st_mode & 0o777 == 0o700


def test_a_world_readable_database_is_made_private(db: Path) -> None:
    Store(db).close()
    db.chmod(0o644)
    Store(db).close()
    assert db.stat().st_mode & 0o777 == 0o600


def test_wal_mode_and_schema_version(store: Store, db: Path) -> None:
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


# subscriptions


def test_subscriptions_start_empty(store: Store) -> None:
    assert store.subscription_overrides("ws") == SubscriptionOverrides(frozenset(), frozenset())


def test_subscribe_and_unsubscribe_are_per_workspace_and_last_one_wins(store: Store) -> None:
    store.subscribe("ws", "/ws/a.md")
    store.subscribe("ws", "/ws/b.md")
    store.unsubscribe("ws", "/ws/b.md")
    store.unsubscribe("ws", "/ws/c.md")
    store.subscribe("other", "/other/x.md")
    assert store.subscription_overrides("ws") == SubscriptionOverrides(
        added=frozenset({"/ws/a.md"}), removed=frozenset({"/ws/b.md", "/ws/c.md"})
    )
    store.subscribe("ws", "/ws/c.md")
    assert "/ws/c.md" in store.subscription_overrides("ws").added
    assert store.subscription_overrides("other").added == frozenset({"/other/x.md"})


def test_state_survives_a_restart(db: Path) -> None:
    first = Store(db)
    first.subscribe("ws", "/ws/a.md")
    first.pause("ses_1", "interrupt", 10.0)
    send(first, 100.0)
    first.close()
    second = Store(db)
    assert second.warning is None
    assert second.subscription_overrides("ws").added == frozenset({"/ws/a.md"})
    assert second.pauses() == {"ses_1": Pause("ses_1", "interrupt", 10.0)}
    assert claim(second, 120.0) is None  # the interval holds across restarts
    second.close()


# pauses


def test_pause_replace_and_resume(store: Store) -> None:
    store.pause("ses_1", "interrupt", 10.0)
    store.pause("ses_2", "no-progress", 11.0)
    store.pause("ses_1", "user", 12.0)
    assert store.pauses() == {
        "ses_1": Pause("ses_1", "user", 12.0),
        "ses_2": Pause("ses_2", "no-progress", 11.0),
    }
    store.resume("ses_1")
    store.resume("ses_unknown")
    assert set(store.pauses()) == {"ses_2"}


def test_a_pause_can_keep_the_pause_commands_pause(store: Store) -> None:
    store.pause("ses_1", "user", 10.0)
    store.pause("ses_1", "interrupt", 11.0, keep_user_pause=True)
    store.pause("ses_2", "no-progress", 10.0)
    store.pause("ses_2", "error", 11.0, keep_user_pause=True)
    store.pause("ses_3", "error", 12.0, keep_user_pause=True)
    assert store.pauses() == {
        "ses_1": Pause("ses_1", "user", 10.0),
        "ses_2": Pause("ses_2", "error", 11.0),
        "ses_3": Pause("ses_3", "error", 12.0),
    }


# claims


def test_first_claim_is_granted_with_number_one(store: Store) -> None:
    granted = claim(store, 100.0)
    assert granted is not None
    assert (granted.session_id, granted.number) == ("ses_1", 1)


def test_a_live_claim_blocks_every_other_claim(store: Store) -> None:
    assert claim(store, 100.0) is not None
    assert claim(store, 101.0) is None
    assert claim(store, 100.0 + EXPIRY - 0.001) is None


def test_claims_are_per_session(store: Store) -> None:
    assert claim(store, 100.0, "ses_1") is not None
    assert claim(store, 100.0, "ses_2") is not None


def test_a_sent_nudge_blocks_claims_for_min_interval(store: Store) -> None:
    send(store, 100.0)  # settled (sent) at 101
    assert claim(store, 101.0 + MIN - 0.001) is None
    later = claim(store, 101.0 + MIN)
    assert later is not None
    assert later.number == 2


def test_a_failed_nudge_does_not_block_and_keeps_its_number(store: Store) -> None:
    first = claim(store, 100.0)
    assert first is not None
    store.record_claim_outcome(first.claim_id, sent=False, now=101.0)
    retry = claim(store, 102.0)
    assert retry is not None
    assert retry.number == 1
    assert store.nudges("ses_1") == []


def test_an_expired_claim_is_taken_over_and_recorded_failed(store: Store, db: Path) -> None:
    dead = claim(store, 100.0)
    assert dead is not None
    assert claim(store, 100.0 + EXPIRY - 1) is None
    taken = claim(store, 100.0 + EXPIRY)
    assert taken is not None
    assert taken.number == 1
    conn = sqlite3.connect(db)
    states = conn.execute("SELECT id, state FROM nudges ORDER BY id").fetchall()
    conn.close()
    assert states == [(dead.claim_id, "failed"), (taken.claim_id, "claimed")]


def test_a_late_sent_outcome_is_still_recorded(store: Store) -> None:
    slow = claim(store, 100.0)
    assert slow is not None
    assert claim(store, 100.0 + EXPIRY) is not None  # took over the expired claim
    store.record_claim_outcome(slow.claim_id, sent=True, now=100.0 + EXPIRY + 1)
    assert [n.at for n in store.nudges("ses_1")] == [100.0 + EXPIRY + 1]


def test_settling_twice_does_not_undo_a_send(store: Store) -> None:
    granted = send(store, 100.0)
    store.record_claim_outcome(granted.claim_id, sent=False, now=102.0)
    assert len(store.nudges("ses_1")) == 1


def test_a_clock_set_back_does_not_block_nudges_for_long(store: Store) -> None:
    send(store, 10_000.0)
    assert claim(store, 10_000.0 - 10) is None  # a small step back still blocks
    assert claim(store, 10_000.0 - CLOCK_SET_BACK_S - 10) is not None


def test_a_live_claim_from_before_a_clock_set_back_expires(store: Store) -> None:
    assert claim(store, 10_000.0) is not None
    assert claim(store, 10_000.0 - CLOCK_SET_BACK_S - 10) is not None


# ledger helpers


def test_nudges_lists_sent_nudges_oldest_first_since(store: Store) -> None:
    send(store, 100.0, open_hash="a")
    failed = claim(store, 200.0)
    assert failed is not None
    store.record_claim_outcome(failed.claim_id, sent=False, now=201.0)
    send(store, 300.0, open_hash="b")
    assert [(n.open_hash, n.at, n.state, n.number) for n in store.nudges("ses_1")] == [
        ("a", 101.0, "sent", 1),
        ("b", 301.0, "sent", 2),
    ]
    assert [n.open_hash for n in store.nudges("ses_1", since=200.0)] == ["b"]
    assert store.nudges("ses_other") == []


def test_last_sent(store: Store) -> None:
    assert store.last_sent("ses_1") is None
    send(store, 100.0, open_hash="a")
    send(store, 200.0, open_hash="b")
    pending = claim(store, 300.0)
    assert pending is not None
    last = store.last_sent("ses_1")
    assert last is not None
    assert (last.open_hash, last.at, last.owner, last.kind, last.number) == (
        "b",
        201.0,
        "proc-a",
        "idle",
        2,
    )


def test_consecutive_same_hash_counts_the_run_at_the_end(store: Store) -> None:
    assert store.consecutive_same_hash("ses_1", "a") == 0
    send(store, 100.0, open_hash="a")
    send(store, 200.0, open_hash="b")
    send(store, 300.0, open_hash="b")
    assert store.consecutive_same_hash("ses_1", "b") == 2
    assert store.consecutive_same_hash("ses_1", "a") == 0
    send(store, 400.0, open_hash="a")
    assert store.consecutive_same_hash("ses_1", "a") == 1


def test_claimed_nudges_and_stop_blocks_share_one_numbering(store: Store) -> None:
    # Both kinds go through the one ledger insert: one count per episode, whoever nudged.
    first = send(store, 100.0)
    block = store.claim_stop_block("ses_1", "k1", "t1", "h1", "hook:1", 200.0)
    pending = claim(store, 300.0)
    assert (first.number, block and block.number, pending and pending.number) == (1, 2, 3)
    assert [(n.kind, n.state, n.at, n.number) for n in store.nudges("ses_1")] == [
        ("idle", "sent", 101.0, 1),
        ("stop", "sent", 200.0, 2),  # a block is sent by the hook's answer: no claim to settle
    ]
    assert claim(store, 301.0) is None  # the pending claim is live; the block never was one
    store.start_episode("ses_1", 400.0)
    again = store.claim_stop_block("ses_1", "k2", "t2", "h1", "hook:1", 500.0)
    assert again is not None and again.number == 1


# episodes


def test_a_new_episode_restarts_numbers_counts_and_runs(store: Store) -> None:
    send(store, 100.0)
    send(store, 200.0)
    assert store.episode_nudge_count("ses_1") == 2
    assert store.consecutive_same_hash("ses_1", "h1") == 2
    assert store.start_episode("ses_1", 250.0) == 1
    assert store.episode_nudge_count("ses_1") == 0
    assert store.consecutive_same_hash("ses_1", "h1") == 0
    assert send(store, 300.0).number == 1
    assert store.start_episode("ses_1", 350.0) == 2
    assert send(store, 400.0).number == 1
    assert store.episode_nudge_count("ses_1") == 1
    assert len(store.nudges("ses_1")) == 4  # the ledger keeps every episode


def test_a_new_episode_does_not_lift_the_min_interval(store: Store) -> None:
    send(store, 100.0)
    store.start_episode("ses_1", 102.0)
    assert claim(store, 103.0) is None


def test_episodes_are_per_session(store: Store) -> None:
    send(store, 100.0, session="ses_1")
    store.start_episode("ses_2", 150.0)
    assert store.episode_nudge_count("ses_1") == 1


# forgetting dormant sessions


def test_dormant_sessions_are_forgotten_and_active_ones_kept(store: Store) -> None:
    send(store, 100.0, session="ses_old")
    send(store, 100.0, session="ses_new")
    send(store, 5_000.0, session="ses_new")
    send(store, 100.0, session="ses_prompted")
    store.start_episode("ses_prompted", 4_000.0)  # the user wrote recently
    store.start_episode("ses_only_episode", 200.0)
    store.pause("ses_old", "user", 100.0)
    store.set_session_todos("ses_old", [{"content": "a"}], 100.0)
    store.set_session_todos("ses_new", [{"content": "b"}], 5_000.0)

    assert store.forget_dormant(cutoff=1_000.0) == 2  # ses_old, ses_only_episode

    assert store.nudges("ses_old") == []
    assert len(store.nudges("ses_new")) == 2
    assert len(store.nudges("ses_prompted")) == 1
    assert store.session_todos("ses_old") is None
    assert store.session_todos("ses_new") == [{"content": "b"}]
    assert store.paused("ses_old") == Pause("ses_old", "user", 100.0)  # pauses stay
    again = claim(store, 6_000.0, session="ses_old")
    assert again is not None and again.number == 1  # a returning session starts again
    assert store.forget_dormant(cutoff=1_000.0) == 0


def test_an_old_dead_claim_is_forgotten_a_recent_one_kept(store: Store) -> None:
    assert claim(store, 900.0) is not None
    assert store.forget_dormant(cutoff=1_000.0) == 1  # its holder died long ago
    assert claim(store, 2_000.0) is not None
    assert store.forget_dormant(cutoff=1_000.0) == 0
    assert claim(store, 2_001.0) is None  # the unsettled claim still blocks others


# session todo lists


def test_session_todos_round_trip_and_replace(store: Store) -> None:
    assert store.session_todos("ses_1") is None
    todos = [{"content": "write tests", "status": "pending", "priority": "high"}]
    store.set_session_todos("ses_1", todos, 1.0)
    assert store.session_todos("ses_1") == todos
    store.set_session_todos("ses_1", [], 2.0)
    assert store.session_todos("ses_1") == []


# threads


def test_many_threads_share_one_store(store: Store) -> None:
    granted: list[Claim] = []

    def work(i: int) -> None:
        for k in range(50):
            store.subscribe("ws", f"/ws/{i}-{k}.md")
            got = claim(store, 100.0)
            if got is not None:
                granted.append(got)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store.subscription_overrides("ws").added) == 200
    assert len(granted) == 1


# migrations and bad files


def test_migrations_run_forward_from_every_version(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Store(db).close()
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO pauses VALUES ('ses_1', 'user', 1.0)")
    conn.commit()
    conn.close()
    step = ("ALTER TABLE pauses ADD COLUMN note TEXT NOT NULL DEFAULT ''",)
    monkeypatch.setattr(schema, "MIGRATIONS", (*schema.MIGRATIONS, step))
    monkeypatch.setattr(schema, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    upgraded = Store(db)
    assert upgraded.warning is None
    assert upgraded.pauses() == {"ses_1": Pause("ses_1", "user", 1.0)}  # data kept
    upgraded.close()
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
    assert conn.execute("SELECT note FROM pauses").fetchall() == [("",)]
    conn.close()


def test_an_empty_file_becomes_a_database(db: Path) -> None:
    db.parent.mkdir(parents=True)
    db.write_bytes(b"")
    s = Store(db)
    assert s.warning is None
    s.pause("ses_1", "user", 1.0)
    s.close()


def aside(db: Path, kind: str) -> list[Path]:
    return sorted(p for p in db.parent.iterdir() if p.name.startswith(f"{DB_NAME}.{kind}-"))


def assert_fresh_and_usable(s: Store) -> None:
    assert s.pauses() == {}
    s.pause("ses_1", "user", 1.0)
    assert set(s.pauses()) == {"ses_1"}


def test_a_file_that_is_not_a_database_is_moved_aside(
    db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is my shopping list, not a database\n" * 100)
    with caplog.at_level(logging.WARNING, logger="todo_ls.store"):
        s = Store(db)
    assert s.warning is not None
    assert "moved it to state.db.corrupt-" in s.warning
    assert s.warning in caplog.text
    assert_fresh_and_usable(s)
    s.close()
    [moved] = [p for p in aside(db, "corrupt") if not p.name.endswith(("-wal", "-shm"))]
    assert moved.read_bytes().startswith(b"this is my shopping list")


@pytest.mark.parametrize("keep", [50, 1000, 4096 + 100])
def test_a_truncated_database_is_moved_aside(db: Path, keep: int) -> None:
    s = Store(db)
    for i in range(300):
        s.subscribe("ws", f"/ws/{'x' * 40}-{i}.md")
    s.close()  # checkpoints the WAL into the file
    assert db.stat().st_size > keep
    with open(db, "r+b") as f:
        f.truncate(keep)
    s = Store(db)
    assert s.warning is not None
    assert "corrupt-" in s.warning
    assert_fresh_and_usable(s)
    s.close()


def test_a_damaged_page_fails_the_integrity_check(db: Path) -> None:
    s = Store(db)
    for i in range(300):
        s.subscribe("ws", f"/ws/{'x' * 40}-{i}.md")
    s.close()
    conn = sqlite3.connect(db)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'pauses'").fetchone()[0]
    conn.close()
    with open(db, "r+b") as f:
        f.seek((root - 1) * page_size)
        f.write(b"\x00" * 16)  # wipe the b-tree page header of a table
    s = Store(db)
    assert s.warning is not None
    assert "corrupt-" in s.warning
    assert_fresh_and_usable(s)
    s.close()


def test_a_database_from_a_newer_version_is_moved_aside_untouched(db: Path) -> None:
    Store(db).close()
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.execute("INSERT INTO pauses VALUES ('ses_future', 'user', 1.0)")
    conn.commit()
    conn.close()
    s = Store(db)
    assert s.warning is not None
    assert "newer todo-ls" in s.warning
    assert "state.db.newer-" in s.warning
    assert_fresh_and_usable(s)
    s.close()
    [moved] = [p for p in aside(db, "newer") if not p.name.endswith(("-wal", "-shm"))]
    old = sqlite3.connect(moved)
    assert old.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
    assert old.execute("SELECT session_id FROM pauses").fetchall() == [("ses_future",)]
    old.close()


def test_repeated_move_asides_never_overwrite_each_other(db: Path) -> None:
    db.parent.mkdir(parents=True)
    for n in range(3):
        db.write_bytes(f"garbage {n}".encode() * 100)
        Store(db).close()
    moved = [p for p in aside(db, "corrupt") if not p.name.endswith(("-wal", "-shm"))]
    assert len(moved) == 3


def test_an_unusable_directory_falls_back_to_memory(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    s = Store(blocker / "state" / DB_NAME)
    assert s.warning is not None
    assert "in memory" in s.warning
    assert_fresh_and_usable(s)
    s.close()


def test_the_wal_of_a_corrupt_file_held_open_elsewhere_is_not_replayed(db: Path) -> None:
    Store(db).close()
    other = sqlite3.connect(db, isolation_level=None)  # another process still using the file
    other.execute("INSERT INTO pauses VALUES ('ses_old', 'user', 1.0)")
    assert db.with_name(f"{DB_NAME}-wal").stat().st_size > 0
    root = other.execute("SELECT rootpage FROM sqlite_master WHERE name = 'episodes'").fetchone()
    page_size = other.execute("PRAGMA page_size").fetchone()[0]
    with open(db, "r+b") as f:
        f.seek((root[0] - 1) * page_size)
        f.write(b"\x00" * 16)
    fresh = Store(db)
    assert fresh.warning is not None
    assert_fresh_and_usable(fresh)  # the old WAL (with ses_old) was moved, not replayed
    fresh.close()
    other.close()
    assert any(p.name.endswith("-wal") for p in aside(db, "corrupt"))


def garble(db: Path) -> None:
    """Overwrite the database and its WAL under an open store (a disk fault, another program)."""
    for suffix in ("", "-wal", "-shm"):
        path = Path(f"{db}{suffix}")
        if path.exists():
            path.write_bytes(b"this is not a database " * 200)


@pytest.mark.parametrize(
    "use",
    [
        lambda s: s.pauses(),  # a cached read
        lambda s: s.subscription_overrides("ws"),  # a plain read
        lambda s: s.pause("ses_2", "user", 2.0),  # a write
        lambda s: s.claim_nudge("ses_1", "h", "idle", "proc-a", 3.0, MIN, EXPIRY),
        lambda s: s.data_version(),
    ],
    ids=["cached-read", "read", "write", "claim", "data-version"],
)
def test_a_database_broken_in_use_is_a_store_error_naming_the_file(
    store: Store, db: Path, use: Callable[[Store], object]
) -> None:
    store.pause("ses_1", "user", 1.0)
    garble(db)
    with pytest.raises(StoreError) as raised:
        use(store)
    assert not isinstance(raised.value, sqlite3.Error)  # callers need not know it is SQLite
    assert str(raised.value) == (
        f"the todo-ls state store {db} cannot be used (file is not a database)"
    )
    assert raised.value.path == db


def test_a_store_broken_in_use_recovers_on_the_next_open(store: Store, db: Path) -> None:
    garble(db)
    with pytest.raises(StoreError):
        store.pauses()
    fresh = Store(db)  # the next process moves the broken file aside, as for any bad file
    assert fresh.warning is not None and "corrupt-" in fresh.warning
    assert_fresh_and_usable(fresh)
    fresh.close()


def test_stop_blocks_are_claimed_once_per_opportunity(store: Store, db: Path) -> None:
    other = Store(db)  # another hook process
    first = store.claim_stop_block("s", "p1\x1ft10\x1fh", "t10", "h", "hook:1", 100.0)
    assert first is not None and first.number == 1
    assert other.claim_stop_block("s", "p1\x1ft10\x1fh", "t10", "h", "hook:2", 100.1) is None
    assert other.has_stop_block("s", "p1\x1ft10\x1fh")
    second = other.claim_stop_block("s", "p1\x1ft25\x1fh", "t25", "h", "hook:2", 101.0)
    assert second is not None and second.number == 2
    # A block is a sent nudge in the shared ledger: the caps count it.
    assert store.episode_nudge_count("s") == 2
    assert store.consecutive_same_hash("s", "h") == 2
    assert store.last_stop_mark("s") == "t25"
    other.close()


def test_tool_runs_and_the_latest_block_reason_are_shared(store: Store, db: Path) -> None:
    other = Store(db)  # another hook process
    assert store.hook_work("s") == (0, None)
    store.record_tool_run("s")
    other.record_tool_run("s")
    claim = other.claim_stop_block("s", "k1", "t1", "h", "hook:2", 1.0, lambda n: f"nudge #{n}")
    assert claim is not None
    assert store.hook_work("s") == (2, "nudge #1")
    # A process that lost the claim writes no reason.
    assert store.claim_stop_block("s", "k1", "t1", "h", "hook:1", 1.0, lambda n: "lost") is None
    assert store.hook_work("s") == (2, "nudge #1")
    other.close()


def test_hook_sessions_keep_turn_and_title_unless_given(store: Store) -> None:
    store.record_hook_session("s", "codex", "/p", "working", 1.0, turn="t1", title="fix it")
    store.record_hook_session("s", "codex", "/p", "idle", 2.0, detail="stopped")
    (session,) = store.hook_sessions()
    assert (session.state, session.turn, session.title, session.detail) == (
        "idle",
        "t1",
        "fix it",
        "stopped",
    )
    assert store.hook_sessions(since=3.0) == []
    assert store.forget_dormant(cutoff=10.0) >= 0
    assert store.hook_session("s") is None  # quiet since before the cutoff


# the persisted file index


def test_a_version_4_store_gains_the_file_index_and_keeps_its_data(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:4])
    monkeypatch.setattr(schema, "SCHEMA_VERSION", 4)
    old = Store(db)
    old.pause("ses_1", "user", 1.0)
    old.close()
    monkeypatch.undo()
    store = Store(db)
    assert store.warning is None
    assert store.pauses() == {"ses_1": Pause("ses_1", "user", 1.0)}
    assert store.file_summaries(["/w"]) == []
    store.close()


def test_file_summaries_are_read_by_folder_replaced_and_dropped(store: Store) -> None:
    def row(path: str, size: int = 1) -> tuple[object, ...]:
        return (path, size, 2, 1, "[]", "{}")

    store.put_file_summaries([row("/w/a.md"), row("/w/sub/b.md"), row("/w-x/c.md"), row("/v/d.md")])
    assert [r[0] for r in store.file_summaries(["/w"])] == ["/w/a.md", "/w/sub/b.md"]
    assert [r[0] for r in store.file_summaries(["/w/", "/v"])] == [
        "/w/a.md",
        "/w/sub/b.md",
        "/v/d.md",
    ]
    store.put_file_summaries([row("/w/a.md", 9)], dropped=["/w/sub/b.md"])
    assert store.file_summaries(["/w"]) == [row("/w/a.md", 9)]
