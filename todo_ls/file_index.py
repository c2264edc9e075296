"""The persisted file index: each subscribed file's summary by its size and mtime, so a second
start on unchanged files counts them without reading them (docs/store.md, `file_summaries`).

Pure: rows in and out of the store's shape, and whether a row can stand for a file as it is
now. A row stands for a file only when its encoding is this one (`FORMAT`), it was parsed with
the same states (`fingerprint`), its size and mtime are the file's, and its summary decodes to
exactly the fields a `FileSummary` has; anything else is ignored (and rewritten once the file
is read), so an old or damaged index costs a cold start, never a wrong count.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from todo_ls.checklist import StateRegistry
from todo_ls.workspace_counts import FileSummary

# The summary's encoding; a change to what a row holds bumps it, and rows of another are
# ignored (rebuilt as files are read).
FORMAT = 1

Stamp = tuple[int, int]  # (mtime_ns, size), as the workspace index keeps a disk read's
# path, size, mtime_ns, format, fingerprint, summary: a row of the store's table.
Row = tuple[str, int, int, int, str, str]


class Known(NamedTuple):
    """A file's summary and the size and mtime of the text it was read from."""

    stamp: Stamp
    summary: FileSummary


def fingerprint(registry: StateRegistry) -> str:
    """The states a summary was counted with: another `states` setting counts differently."""
    # Asked for each summary handed to the store: one registry serves them all.
    global _last
    if _last is None or _last[0] is not registry:
        markers = sorted((state, list(ms)) for state, ms in registry.markers.items())
        _last = (registry, json.dumps(markers))
    return _last[1]


_last: tuple[StateRegistry, str] | None = None


def encode(path: Path, known: Known, print_: str) -> Row:
    """The store's row for `path`."""
    summary = known.summary
    body = {
        "uri": summary.uri,
        "by_state": dict(summary.by_state),
        "open": summary.open,
        "missing": summary.missing,
        "error": summary.error,
    }
    mtime_ns, size = known.stamp
    return (str(path), size, mtime_ns, FORMAT, print_, json.dumps(body, separators=(",", ":")))


def decode(row: Iterable[Any], print_: str) -> tuple[Path, Known] | None:
    """The file and summary a row holds, None when it cannot be trusted: another format or
    states, or any field of another type (a damaged row)."""
    try:
        path, size, mtime_ns, format_, row_print, text = row
    except (TypeError, ValueError):
        return None
    if format_ != FORMAT or row_print != print_:
        return None
    if not isinstance(path, str) or not _ints(size, mtime_ns) or not isinstance(text, str):
        return None
    try:
        body = json.loads(text)
    except ValueError:
        return None
    summary = _summary(body)
    if summary is None:
        return None
    return Path(path), Known((mtime_ns, size), summary)


def _ints(*values: object) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values)


def _summary(body: object) -> FileSummary | None:
    if not isinstance(body, dict) or set(body) != {"uri", "by_state", "open", "missing", "error"}:
        return None
    uri, by_state, open_, missing, error = (
        body["uri"],
        body["by_state"],
        body["open"],
        body["missing"],
        body["error"],
    )
    if not isinstance(uri, str) or not isinstance(by_state, dict) or not _ints(open_):
        return None
    if not all(isinstance(k, str) and _ints(v) for k, v in by_state.items()):
        return None
    if not isinstance(missing, bool) or not (error is None or isinstance(error, str)):
        return None
    if open_ > sum(by_state.values()):
        return None
    return FileSummary(uri, by_state, open_, missing, error)


def load(rows: Iterable[Iterable[Any]], registry: StateRegistry) -> dict[Path, Known]:
    """The rows that can be trusted with `registry`'s states, by path."""
    print_ = fingerprint(registry)
    found: dict[Path, Known] = {}
    for row in rows:
        decoded = decode(row, print_)
        if decoded is not None:
            found[decoded[0]] = decoded[1]
    return found


def usable(known: Mapping[Path, Known], path: Path, stamp: Stamp | None) -> FileSummary | None:
    """The persisted summary of `path` when the file is still what it was read as."""
    entry = known.get(path)
    if entry is None or stamp is None or entry.stamp != stamp:
        return None
    return entry.summary
