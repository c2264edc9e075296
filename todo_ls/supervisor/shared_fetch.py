"""One host request answering every nudge that needs it at the same time.

Right before a nudge the runtime asks the host which sessions are busy (docs/supervisor.md,
rule 7). When many sessions end their turns together (200 agents of one OpenCode server, in
`bench/bench_supervisor.py`), one request per nudge queued hundreds of identical reads and
delayed every nudge behind them (docs/performance.md). A `SharedFetch` runs at most one request
at a time; whoever asks while one is in flight shares the next one. So an answer always comes
from a request sent after its caller asked: a snapshot taken before a caller's decision could
miss the prompt the user sent since, which is what the check is there to see.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class SharedFetch(Generic[T]):
    """Coalesces concurrent calls of `fetch`: each caller gets the answer (or the error) of a
    call started after it asked, and at most one call runs at a time."""

    def __init__(self, fetch: Callable[[], Awaitable[T]]) -> None:
        self._fetch = fetch
        self._next: asyncio.Future[T] | None = None  # the answer of the call not yet started
        self._runner: asyncio.Task[None] | None = None

    async def get(self) -> T:
        """The answer of a `fetch` started no earlier than this call."""
        if self._next is None:
            self._next = asyncio.get_running_loop().create_future()
            # Nobody may be left to read an error (every caller cancelled): mark it read.
            self._next.add_done_callback(_consume_error)
            if self._runner is None or self._runner.done():
                self._runner = asyncio.get_running_loop().create_task(self._run())
        # A cancelled caller must not cancel the answer the others wait for.
        return await asyncio.shield(self._next)

    async def close(self) -> None:
        """Stop the call in flight; its waiters see it cancelled."""
        runner, self._runner = self._runner, None
        if runner is not None:
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner
        if self._next is not None:
            self._next.cancel()
            self._next = None

    async def _run(self) -> None:
        while self._next is not None:
            answer, self._next = self._next, None
            try:
                answer.set_result(await self._fetch())
            except asyncio.CancelledError:
                answer.cancel()
                raise
            except Exception as err:
                answer.set_exception(err)


def _consume_error(answer: asyncio.Future[Any]) -> None:
    if not answer.cancelled():
        answer.exception()
