"""The persisted file index's writes (todo_ls/server/summary_writes.py): what the store
thread takes per transaction, and what that costs while 20,000 summaries wait."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from todo_ls.file_index import Known
from todo_ls.server.summary_writes import BATCH, SummaryWrites
from todo_ls.workspace_counts import FileSummary


class RecordingStore:
    """Records each transaction's rows."""

    def __init__(self) -> None:
        self.batches: list[list[Sequence[object]]] = []

    def put_file_summaries(self, rows: Any, dropped: Any = ()) -> None:
        self.batches.append(list(rows))


class CountingDict(dict[Path, Any]):
    """The waiting rows, counting how many of them are looked at."""

    read = 0

    def items(self) -> Iterator[tuple[Path, Any]]:  # type: ignore[override]
        for pair in super().items():
            self.read += 1
            yield pair


def test_each_transaction_takes_its_rows_without_copying_every_waiting_one() -> None:
    store = RecordingStore()
    writes = SummaryWrites(store, lambda: "states")  # type: ignore[arg-type]
    writes.close()  # no store thread: what is handed over now waits for the next close
    waiting = CountingDict()
    writes._pending = waiting  # counted: the rows each batch is taken from
    files = 5 * BATCH
    for n in range(files):
        summary = FileSummary(f"file:///w/{n}.md", {"open": 1}, 1)
        writes(Path(f"/w/{n}.md"), Known((n, 10), summary))
    writes.close()
    assert [len(batch) for batch in store.batches] == [BATCH] * 5
    assert {row[0] for batch in store.batches for row in batch} == {
        f"/w/{n}.md" for n in range(files)
    }
    # A batch looks at its own rows (and one more to see there are no others): a copy of all
    # the waiting rows per batch made the drain quadratic, under the mutex the loop takes.
    assert waiting.read <= files + len(store.batches) + 1


def _hand_over(writes: SummaryWrites, files: int) -> None:
    for n in range(files):
        summary = FileSummary(f"file:///w/{n}.md", {"open": 1}, 1)
        writes(Path(f"/w/{n}.md"), Known((n, 10), summary))


def test_rows_short_of_a_batch_wait_for_more_instead_of_a_transaction_each() -> None:
    # The initial index hands over a row per file: a store thread that took what waited at
    # once kept pace with it and wrote about one row per transaction (13,000 at 20,000 files).
    store = RecordingStore()
    writes = SummaryWrites(store, lambda: "states", linger_s=60)  # type: ignore[arg-type]
    files = 2 * BATCH + 50
    _hand_over(writes, files)
    writes.close()  # wakes the thread out of its wait; what is left is written now
    assert sorted(len(batch) for batch in store.batches) == [50, BATCH, BATCH]


def test_a_full_batch_is_written_without_waiting_out_the_linger() -> None:
    store = RecordingStore()
    written = threading.Event()
    put = store.put_file_summaries

    def recording_put(rows: Any, dropped: Any = ()) -> None:
        put(rows, dropped)
        written.set()

    store.put_file_summaries = recording_put  # type: ignore[method-assign]
    writes = SummaryWrites(store, lambda: "states", linger_s=60)  # type: ignore[arg-type]
    _hand_over(writes, BATCH)
    assert written.wait(10), "a full batch waited for the linger"
    assert [len(batch) for batch in store.batches] == [BATCH]
    writes.close()
