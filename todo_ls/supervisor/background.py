"""The runtime's background work (lookups, sends, toasts): started, drained and cancelled
together, and never an unhandled error."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import Any

from todo_ls.hosts.base import HostError
from todo_ls.supervisor.delivery import one_line

log = logging.getLogger(__name__)


class Background:
    """Tasks one runtime started on the running loop."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def spawn(self, work: Coroutine[Any, Any, Any], what: str) -> None:
        """Run `work` in the background; a failure is logged (`what` names it), not raised."""

        async def guarded() -> None:
            try:
                await work
            except asyncio.CancelledError:
                raise
            except HostError as err:
                # The host refused or did not answer: expected, one line (no traceback).
                log.warning("supervisor: %s failed: %s", what, one_line(err))
            except Exception:
                log.exception("supervisor: %s failed", what)  # a bug: keep the traceback

        def done(task: asyncio.Task[None]) -> None:
            self._tasks.discard(task)
            # Cancelled before it ran (the runtime stopped): `work` was never started; closed,
            # it is not reported as a coroutine never awaited.
            work.close()

        task = asyncio.get_running_loop().create_task(guarded())
        self._tasks.add(task)
        task.add_done_callback(done)

    async def drain(self) -> None:
        """Wait until no background work is left: for tests and shutdown."""
        for _ in range(1000):
            await asyncio.sleep(0)
            pending = [t for t in self._tasks if not t.done()]
            if not pending:
                return
            await asyncio.wait(pending)

    async def cancel(self, *more: asyncio.Task[None] | None) -> None:
        """Cancel every task (and `more`) and wait for them to end."""
        tasks = [t for t in (*more, *self._tasks) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
