"""The persisted file index's writes (todo_ls/server/summary_writes.py): what the store
thread takes per transaction, and what that costs while 20,000 summaries wait."""

from __future__ import annotations

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
