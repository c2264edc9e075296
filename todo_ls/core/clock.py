"""The injected clock: wall time in epoch seconds plus one-shot timers.

Nothing that waits reads time or sleeps by itself (the runtime, the hosts' retries and
reconnect backoff, the hook sessions' poll, the status publisher): each takes a `Clock`, so
tests drive time with `FakeClock.advance` and never sleep.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # loaded where time runs on a loop: the Stop hook reads only the constant
    import asyncio

# A recorded time further ahead of `now` than this was written before the wall clock was set
# back (no lock wait or timer lag lasts this long); it must not hold anything back until the
# clock catches up.
CLOCK_SET_BACK_S = 300.0


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def now(self) -> float:
        """Epoch seconds (the store and the hosts' retry times use epoch seconds too)."""
        ...

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        """Run `callback` once at `when` (epoch seconds) on the running event loop."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait `seconds` of this clock's time."""
        ...


class SystemClock:
    """Real time on the running asyncio loop."""

    def now(self) -> float:
        return time.time()

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        import asyncio

        loop = asyncio.get_running_loop()
        return loop.call_later(max(0.0, when - time.time()), callback)

    async def sleep(self, seconds: float) -> None:
        import asyncio

        await asyncio.sleep(seconds)


class _FakeTimer:
    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """Time that moves only when a test calls `advance`; due timers then run in time order."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self._now = start
        self._timers: list[tuple[float, int, _FakeTimer]] = []
        self._seq = itertools.count()

    def now(self) -> float:
        return self._now

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        import heapq  # here: only tests use a fake clock, and every `todo-ls hook` loads clock

        timer = _FakeTimer(when, callback)
        heapq.heappush(self._timers, (when, next(self._seq), timer))
        return timer

    async def sleep(self, seconds: float) -> None:
        import asyncio

        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not future.done():
                future.set_result(None)

        self.call_at(self._now + seconds, wake)
        await future

    def advance(self, seconds: float) -> None:
        """Move time forward, running every timer that falls due on the way."""
        import heapq

        target = self._now + seconds
        while self._timers and self._timers[0][0] <= target:
            when, _, timer = heapq.heappop(self._timers)
            self._now = max(self._now, when)
            if not timer.cancelled:
                timer.callback()
        self._now = target

    async def next_wait(self, max_steps: int = 1000) -> float:
        """Let the event loop run until something waits on this clock; the seconds until the
        earliest live timer falls due. Raises `AssertionError` when nothing comes to wait."""
        import asyncio

        for _ in range(max_steps):
            due = self.pending
            if due:
                return due[0] - self._now
            await asyncio.sleep(0)
        raise AssertionError("nothing waits on the clock")

    @property
    def pending(self) -> list[float]:
        """When the live timers fall due (for assertions)."""
        return sorted(when for when, _, t in self._timers if not t.cancelled)
