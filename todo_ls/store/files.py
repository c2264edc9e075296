"""The persisted file index's rows (docs/store.md, `file_summaries`): what each subscribed
file counted, by its size and mtime. Rows go in and out as plain tuples; todo_ls/file_index.py
says what they mean and when one can be trusted.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from todo_ls.store.database import Database

_COLUMNS = "path, size, mtime_ns, format, states, summary"


class Files(Database):
    """The file index's queries, mixed into `Store`."""

    def file_summaries(self, folders: Sequence[str]) -> list[tuple[Any, ...]]:
        """The rows of files inside any of `folders` (absolute paths)."""
        found: list[tuple[Any, ...]] = []
        for folder in folders:
            # Every path below `folder/`: from `folder/` up to the next character after `/`.
            low = folder.rstrip(os.sep) + os.sep
            high = low[:-1] + chr(ord(os.sep) + 1)
            found += self._query(
                f"SELECT {_COLUMNS} FROM file_summaries WHERE path >= ? AND path < ?",
                (low, high),
            )
        return found

    def put_file_summaries(
        self, rows: Iterable[Sequence[object]], dropped: Iterable[str] = ()
    ) -> None:
        """Write `rows` (replacing a file's row) and delete the rows of `dropped`, in one
        transaction."""
        written = list(rows)
        gone = [(path,) for path in dropped]

        def body(c: sqlite3.Connection) -> None:
            c.executemany(
                f"INSERT OR REPLACE INTO file_summaries ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
                written,
            )
            c.executemany("DELETE FROM file_summaries WHERE path = ?", gone)

        self._transaction(body, session="")
