"""The language server's subscription writes, made off its event loop (docs/store.md).

`todoLs.subscribe` and `todoLs.unsubscribe` change the workspace index in memory and answer at
once; the store write goes to one store thread. That thread waits for a store held by another
process within the server's lock budget and, when the budget runs out, tries again later (with
backoff) until the write lands: a busy store never delays an answer and never loses the user's
change. The user is told once that changes wait, and reads of the subscriptions see the
waiting changes on top of the stored ones, so nothing flickers back.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Literal

from todo_ls.store import StoreError, SubscriptionOverrides

if TYPE_CHECKING:
    from todo_ls.store import Store

log = logging.getLogger(__name__)

Action = Literal["subscribe", "unsubscribe"]

# Between two tries of writes a busy or failing store refused (doubling up to the cap).
RETRY_FIRST_S = 0.5
RETRY_CAP_S = 30.0


class SubscriptionWrites:
    """The workspace index's `SubscriptionStore` over `store`: reads go to the store (they never
    wait: docs/store.md), writes to the store thread. `tell(message)` shows the user a warning;
    it is called from the store thread (the caller makes it safe to)."""

    def __init__(self, store: Store, tell: Callable[[str], None]) -> None:
        self.store = store
        self._tell = tell
        self._mutex = threading.Lock()
        # The latest change per (workspace, path) not yet in the store.
        self._pending: dict[tuple[str, str], Action] = {}
        self._draining = False
        self._told = False
        self._closed = threading.Event()
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="todo-ls-store")

    # --- SubscriptionStore ---------------------------------------------------------------

    def subscription_overrides(self, workspace: str) -> SubscriptionOverrides:
        """The stored overrides of `workspace` with the changes still waiting on top."""
        found = self.store.subscription_overrides(workspace)
        with self._mutex:
            waiting = [(p, a) for (w, p), a in self._pending.items() if w == workspace]
        if not waiting:
            return found
        added, removed = set(found.added), set(found.removed)
        for path, action in waiting:
            (added if action == "subscribe" else removed).add(path)
            (removed if action == "subscribe" else added).discard(path)
        return SubscriptionOverrides(frozenset(added), frozenset(removed))

    def subscribe(self, workspace: str, path: str) -> None:
        self._queue(workspace, path, "subscribe")

    def unsubscribe(self, workspace: str, path: str) -> None:
        self._queue(workspace, path, "unsubscribe")

    # --- the store thread ----------------------------------------------------------------

    @property
    def waiting(self) -> int:
        """How many changes are not in the store yet."""
        with self._mutex:
            return len(self._pending)

    def _queue(self, workspace: str, path: str, action: Action) -> None:
        with self._mutex:
            self._pending[(workspace, path)] = action
            if self._draining or self._closed.is_set():
                return
            self._draining = True
        self._thread.submit(self._drain)

    def _drain(self) -> None:
        """Write what waits until nothing does (runs on the store thread)."""
        pause = RETRY_FIRST_S
        while True:
            with self._mutex:
                batch = dict(self._pending)
                if not batch or self._closed.is_set():
                    self._draining = False
                    return
            try:
                for (workspace, path), action in batch.items():
                    getattr(self.store, action)(workspace, path)
                    with self._mutex:
                        if self._pending.get((workspace, path)) == action:
                            del self._pending[(workspace, path)]
            except StoreError as err:
                log.warning("subscription changes wait for the store: %s", err)
                if not self._told:
                    self._told = True
                    self._tell(
                        f"todo-ls: {err}; subscription changes are kept and saved when it "
                        "can be written again"
                    )
                self._closed.wait(pause)
                pause = min(pause * 2, RETRY_CAP_S)
                continue
            except Exception:  # never lose the thread: the next change tries again
                log.exception("subscription changes could not be written")
                with self._mutex:
                    self._draining = False
                return
            if self._told:
                log.info("subscription changes that waited are in the store now")
            pause = RETRY_FIRST_S

    def close(self) -> None:
        """Write what waits once more (within the lock budget), then stop the thread; what
        still could not be written is logged by name."""
        self._closed.set()
        self._thread.shutdown(wait=True)
        with self._mutex:
            left = dict(self._pending)
        for (workspace, path), action in left.items():
            try:
                getattr(self.store, action)(workspace, path)
            except StoreError as err:
                log.warning("not stored (%s): %s of %s in %s", err, action, path, workspace)
