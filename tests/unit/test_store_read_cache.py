"""The store's read cache never serves a stale answer: writes through the same store and
commits by another connection (another todo-ls process) are seen by the next read."""

from __future__ import annotations

import asyncio
from pathlib import Path

from todo_ls.store import Store


def test_reads_see_writes_of_another_connection(tmp_path: Path) -> None:
    mine, other = Store(tmp_path / "state.db"), Store(tmp_path / "state.db")
    assert mine.pauses() == {}
    assert mine.last_sent("ses_a") is None
    other.pause("ses_a", "user", 1.0)
    assert set(mine.pauses()) == {"ses_a"}
    claim = other.claim_nudge("ses_a", "h1", "idle", "other", 2.0, 0.0, 60.0)
    assert claim is not None
    other.record_claim_outcome(claim.claim_id, True, 3.0)
    last = mine.last_sent("ses_a")
    assert last is not None and last.open_hash == "h1"
    assert mine.episode_nudge_count("ses_a") == 1
    assert mine.consecutive_same_hash("ses_a", "h1") == 1
    mine.close()
    other.close()


def test_reads_see_own_writes_and_callers_cannot_corrupt_the_cache(tmp_path: Path) -> None:
    store = Store(tmp_path / "state.db")
    store.pause("ses_a", "user", 1.0)
    paused = store.pauses()
    paused.clear()  # a caller's copy
    assert set(store.pauses()) == {"ses_a"}
    store.resume("ses_a")
    assert store.pauses() == {}
    store.start_episode("ses_a", 2.0)
    assert store.episode_nudge_count("ses_a") == 0
    store.close()


async def test_on_an_event_loop_another_processs_commit_is_seen_at_the_next_turn(
    tmp_path: Path,
) -> None:
    """One freshness check serves a whole turn of the loop (the language server reads the
    store for every event it decides), and never longer: the next turn sees the commit."""
    mine, other = Store(tmp_path / "state.db"), Store(tmp_path / "state.db")
    assert mine.paused("ses_a") is None
    other.pause("ses_a", "user", 1.0)
    assert mine.paused("ses_a") is None  # same turn: the check already made still holds
    await asyncio.sleep(0)  # the next turn of the loop
    paused = mine.paused("ses_a")
    assert paused is not None and paused.reason == "user"
    mine.close()
    other.close()


async def test_within_one_turn_the_stores_own_writes_are_seen(tmp_path: Path) -> None:
    mine, other = Store(tmp_path / "state.db"), Store(tmp_path / "state.db")
    assert mine.paused("ses_a") is None
    mine.pause("ses_a", "interrupt", 1.0)  # a write of this store clears the cache
    paused = mine.paused("ses_a")
    assert paused is not None and paused.reason == "interrupt"
    await asyncio.sleep(0)
    other.resume("ses_a")
    await asyncio.sleep(0)
    assert mine.paused("ses_a") is None
    mine.close()
    other.close()


def _reads_of(store: Store, sid: str) -> tuple[object, ...]:
    """Every cached read of one session, and the reads over all sessions."""
    return (
        store.paused(sid),
        store.last_sent(sid),
        store.episode_nudge_count(sid),
        store.consecutive_same_hash(sid, "h1"),
        store.session_todos(sid),
        sorted(store.pauses()),
    )


async def test_within_one_turn_each_write_is_seen_by_the_reads_of_its_session(
    tmp_path: Path,
) -> None:
    """Inside one turn of the loop no version check helps: a write must forget exactly the
    cached reads it changes (those of its session and those over every session)."""
    store = Store(tmp_path / "state.db")
    other_before = _reads_of(store, "ses_b")
    _reads_of(store, "ses_a")
    store.pause("ses_a", "user", 1.0)
    assert store.paused("ses_a") is not None and set(store.pauses()) == {"ses_a"}
    claim = store.claim_nudge("ses_a", "h1", "idle", "me", 2.0, 0.0, 60.0)
    assert claim is not None
    store.record_claim_outcome(claim.claim_id, True, 3.0)
    last = store.last_sent("ses_a")
    assert last is not None and last.open_hash == "h1"
    assert store.consecutive_same_hash("ses_a", "h1") == 1
    store.set_session_todos("ses_a", [{"content": "x", "status": "pending"}], 4.0, progress=True)
    assert store.session_todos("ses_a") == [{"content": "x", "status": "pending"}]
    assert store.consecutive_same_hash("ses_a", "h1") == 0  # the todo write was progress
    assert store.set_session_todo_status("ses_a", 0, "x", "completed", 5.0) is None
    assert store.session_todos("ses_a") == [{"content": "x", "status": "completed"}]
    assert store.episode_nudge_count("ses_a") == 1
    store.start_episode("ses_a", 6.0)
    assert store.episode_nudge_count("ses_a") == 0
    store.resume("ses_a")
    assert store.paused("ses_a") is None and store.pauses() == {}
    assert _reads_of(store, "ses_b") == other_before
    store.close()


async def test_a_write_for_one_session_keeps_the_cached_reads_of_the_others(
    tmp_path: Path,
) -> None:
    """An interrupt or a new episode of one session must not make the next decision of every
    other session (200 on a busy stream) query the store again."""
    store = Store(tmp_path / "state.db")
    _reads_of(store, "ses_b")
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)
    store.start_episode("ses_a", 1.0)
    store.pause("ses_a", "interrupt", 2.0)
    statements.clear()
    _reads_of(store, "ses_b")
    assert statements == ["SELECT session_id, reason, since FROM pauses"]  # only `pauses()`
    store.close()
