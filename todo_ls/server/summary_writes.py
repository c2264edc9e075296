"""The persisted file index's writes, made off the event loop (docs/store.md,
`file_summaries`).

The workspace index hands over each summary it reads from disk (and each file that went);
they wait here, the newest per file, and one store thread writes them in one transaction per
batch, within the server's lock budget. A batch is taken when `BATCH` rows wait, or short of
that after `LINGER_S`: taken at once, the thread kept pace with the index and wrote about one
row per transaction (docs/performance.md, "What `bench_workspace.py` measures now"). The index
is a cache: a busy store is tried again later (with backoff), a failing one is logged and the
waiting rows dropped; nothing here ever delays an answer or tells the user. Encoding the rows
is the thread's work too.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from todo_ls.file_index import Known, encode
from todo_ls.store import StoreError, StoreLocked

if TYPE_CHECKING:
    from todo_ls.store import Store

log = logging.getLogger(__name__)

RETRY_FIRST_S = 0.5
RETRY_CAP_S = 30.0
BATCH = 200  # rows per transaction: held briefly, so the store lock and the write lock never
# keep the event loop (its 50 ms budget) or another process waiting behind the index
# How long a batch waits for more rows before it is written short: the index hands over a row
# per file (~0.3 ms each), and a transaction per row cost more than the index's own work.
LINGER_S = 0.1


class SummaryWrites:
    """A `SummarySink` (workspace.py) over `store`; `states()` is the fingerprint of the
    states the summaries are counted with now (file_index.fingerprint), taken as each one is
    handed over."""

    def __init__(
        self, store: Store, states: Callable[[], str], *, linger_s: float = LINGER_S
    ) -> None:
        """`linger_s`: how long a batch short of `BATCH` rows waits for more."""
        self.store = store
        self._states = states
        self._linger_s = linger_s
        self._mutex = threading.Lock()
        self._full = threading.Event()  # a whole batch waits (or the writer closes)
        self._pending: dict[Path, tuple[Known, str] | None] = {}
        self._gone_if_missing: set[Path] = set()
        self._draining = False
        self._closed = threading.Event()
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="todo-ls-index")

    def __call__(self, path: Path, known: Known | None) -> None:
        self._queue({path: (known, self._states()) if known is not None else None})

    def drop_if_missing(self, paths: set[Path]) -> None:
        """Rows whose files may be gone (not subscribed any more): those whose file does not
        exist are deleted (checked on the store thread)."""
        with self._mutex:
            self._gone_if_missing |= paths
        self._queue({})

    @property
    def waiting(self) -> int:
        with self._mutex:
            return len(self._pending) + len(self._gone_if_missing)

    def _queue(self, rows: dict[Path, tuple[Known, str] | None]) -> None:
        with self._mutex:
            self._pending.update(rows)
            if len(self._pending) >= BATCH and not self._full.is_set():
                self._full.set()
            if self._draining or self._closed.is_set():
                return
            self._draining = True
        self._thread.submit(self._drain)

    def _take(self) -> tuple[dict[Path, tuple[Known, str] | None], set[Path]]:
        with self._mutex:
            # The first BATCH rows only: a copy of all of them (20,000 after the first index)
            # for each batch made the drain quadratic, under the mutex the loop takes too.
            batch = dict(itertools.islice(self._pending.items(), BATCH))
            for path in batch:
                del self._pending[path]
            if len(self._pending) < BATCH and not self._closed.is_set():
                self._full.clear()
            maybe, self._gone_if_missing = self._gone_if_missing, set()
            if not batch and not maybe:
                self._draining = False
        return batch, maybe

    def _write(self, batch: dict[Path, tuple[Known, str] | None], maybe: set[Path]) -> None:
        rows = [encode(p, k[0], k[1]) for p, k in batch.items() if k is not None]
        gone = [str(p) for p, k in batch.items() if k is None]
        gone += [str(p) for p in maybe if not os.path.exists(p)]
        self.store.put_file_summaries(rows, gone)

    def _drain(self) -> None:
        pause = RETRY_FIRST_S
        while not self._closed.is_set():
            self._full.wait(self._linger_s)
            batch, maybe = self._take()
            if not batch and not maybe:
                return
            try:
                self._write(batch, maybe)
                pause = RETRY_FIRST_S
            except StoreLocked as err:
                log.info("the file index waits for the store: %s", err)
                with self._mutex:  # back in line unless newer ones came meanwhile
                    for path, known in batch.items():
                        self._pending.setdefault(path, known)
                    self._gone_if_missing |= maybe
                self._closed.wait(pause)
                pause = min(pause * 2, RETRY_CAP_S)
            except StoreError as err:  # a cache: rebuilt on a later start
                log.warning("the file index was not written: %s", err)
            except Exception:  # never lose the thread
                log.exception("the file index was not written")
        with self._mutex:
            self._draining = False

    def close(self) -> None:
        """Write what waits once more (within the lock budget), then stop the thread."""
        self._closed.set()
        self._full.set()
        self._thread.shutdown(wait=True)
        while True:
            batch, maybe = self._take()
            if not batch and not maybe:
                return
            try:
                self._write(batch, maybe)
            except StoreError as err:
                log.info("file index rows not written at exit: %s", err)
                return
