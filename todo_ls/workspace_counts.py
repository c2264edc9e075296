"""Per-folder item counts kept current by each file's delta (docs/performance.md, "Scale").

A change to one file costs the same in a folder of 20 files as in one of 20,000: the folder's
totals are adjusted by the file's old and new summary, and its files stay ranked by open items
(a sorted list, updated by bisection), so the status payload's top files are read off its head
instead of being sorted again. No pygls, no disk: the workspace index feeds the summaries in.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from todo_ls.checklist import Progress


@dataclass(frozen=True, slots=True)
class FileSummary:
    """What the status shows of one subscribed file."""

    uri: str
    by_state: Mapping[str, int]
    open: int
    missing: bool = False
    error: str | None = None

    @property
    def total(self) -> int:
        return sum(self.by_state.values())

    @classmethod
    def of(
        cls, uri: str, progress: Progress, *, missing: bool = False, error: str | None = None
    ) -> FileSummary:
        return cls(uri, dict(progress.by_state), progress.open, missing, error)


# (-open items, path as text, path): the most open items first, ties by path.
_Rank = tuple[int, str, Path]


class FolderCounts:
    """The summed counts of one folder's subscribed files and those files ranked."""

    def __init__(self) -> None:
        self._summaries: dict[Path, FileSummary] = {}
        self._counts: dict[str, int] = {}
        self._ranked: list[_Rank] = []
        # The files by path, sorted when a page asks for them after a file came or went
        # (a change of counts keeps it): never re-sorted per change.
        self._by_path: list[tuple[str, Path]] | None = None

    def __len__(self) -> int:
        return len(self._summaries)

    def __contains__(self, path: object) -> bool:
        return path in self._summaries

    def get(self, path: Path) -> FileSummary | None:
        return self._summaries.get(path)

    def paths(self) -> Iterable[Path]:
        """The counted files, in the order they were first counted."""
        return self._summaries.keys()

    def set(self, path: Path, summary: FileSummary) -> None:
        """Count `path` as `summary` says (replacing what it said before)."""
        old = self._summaries.get(path)
        if old == summary:
            return
        if old is not None:
            self._uncount(path, old)
        else:
            self._by_path = None
        self._summaries[path] = summary
        for state, n in summary.by_state.items():
            self._counts[state] = self._counts.get(state, 0) + n
        bisect.insort(self._ranked, (-summary.open, str(path), path))

    def remove(self, path: Path) -> None:
        """Stop counting `path`."""
        old = self._summaries.pop(path, None)
        if old is not None:
            self._uncount(path, old)
            self._by_path = None

    def _uncount(self, path: Path, old: FileSummary) -> None:
        for state, n in old.by_state.items():
            left = self._counts[state] - n
            if left:
                self._counts[state] = left
            else:
                del self._counts[state]
        at = bisect.bisect_left(self._ranked, (-old.open, str(path), path))
        del self._ranked[at]

    def progress(self) -> Progress:
        """The folder's totals per state."""
        return Progress(dict(self._counts))

    def top(self, limit: int, first: Collection[Path] = ()) -> list[tuple[Path, FileSummary]]:
        """At most `limit` files: those of `first` (the editor's open files) counted here,
        then the rest by most open items, ties by path."""
        chosen = sorted(
            (-s.open, str(p), p) for p in first if (s := self._summaries.get(p)) is not None
        )[:limit]
        taken = {rank[2] for rank in chosen}
        for rank in self._ranked:
            if len(chosen) >= limit:
                break
            if rank[2] not in taken:
                chosen.append(rank)
        return [(rank[2], self._summaries[rank[2]]) for rank in chosen]

    def page_by_path(self, offset: int, limit: int) -> list[tuple[Path, FileSummary]]:
        """Files `offset` to `offset + limit` of this folder, sorted by path: how a panel lists
        every file, a page at a time."""
        if self._by_path is None:
            self._by_path = sorted((str(p), p) for p in self._summaries)
        return [(p, self._summaries[p]) for _, p in self._by_path[offset : offset + limit]]


def page_by_path(
    folders: Iterable[FolderCounts], offset: int, limit: int
) -> list[tuple[Path, FileSummary]]:
    """`FolderCounts.page_by_path` over several folders, one after the other in their order."""
    found: list[tuple[Path, FileSummary]] = []
    for counts in folders:
        if len(found) >= limit:
            break
        n = len(counts)
        if offset >= n:
            offset -= n
            continue
        found += counts.page_by_path(offset, limit - len(found))
        offset = 0
    return found


def top_files(
    folders: Iterable[FolderCounts], limit: int, first: Collection[Path] = ()
) -> list[tuple[Path, FileSummary]]:
    """`FolderCounts.top` over several folders: each one's top holds its share of the whole."""
    candidates = [entry for counts in folders for entry in counts.top(limit, first)]
    candidates.sort(key=lambda e: (e[0] not in first, -e[1].open, str(e[0])))
    return candidates[:limit]


def summed(folders: Iterable[FolderCounts]) -> Progress:
    """The totals of several folders."""
    counts: dict[str, int] = {}
    for folder in folders:
        for state, n in folder.progress().by_state.items():
            counts[state] = counts.get(state, 0) + n
    return Progress(counts)
