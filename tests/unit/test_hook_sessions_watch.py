"""`HookSessions.watch` on a `FakeClock`: another process's write to the store is noticed at
the next poll, and only a write is."""

from __future__ import annotations

import asyncio
from pathlib import Path

from todo_ls.core.clock import FakeClock
from todo_ls.store import Store
from todo_ls.supervisor.hook_sessions import POLL_S, HookSessions


async def test_a_write_by_another_process_is_noticed_at_the_next_poll(tmp_path: Path) -> None:
    ours, theirs = Store.open(tmp_path), Store.open(tmp_path)  # two connections, as two processes
    clock = FakeClock()
    hooks = HookSessions(ours, lambda: [str(tmp_path)], lambda _: [], clock)
    changes: list[float] = []
    watch = asyncio.ensure_future(hooks.watch(lambda: changes.append(clock.now())))
    try:
        assert await clock.next_wait() == POLL_S  # the first look: nothing to report yet
        clock.advance(POLL_S)
        assert await clock.next_wait() == POLL_S
        assert changes == []  # no write, no change
        theirs.record_hook_session("ses_h", "claude-code", str(tmp_path), "working", clock.now())
        clock.advance(POLL_S - 0.01)
        assert changes == []  # not before the poll
        clock.advance(0.01)
        await clock.next_wait()
        assert changes == [clock.now()]
        clock.advance(POLL_S)
        await clock.next_wait()
        assert len(changes) == 1  # seen once
    finally:
        watch.cancel()
        ours.close()
        theirs.close()
