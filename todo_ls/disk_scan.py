"""The re-check of subscribed files on disk, off the event loop (docs/performance.md, "Scale").

A worker thread expands the folders' `markdownFiles` and stats every file they name, and hands
on only what changed since its last round: files that appeared, files that went, files whose
size or mtime moved. The server feeds those into the same path as the editor's
`workspace/didChangeWatchedFiles`, so its event loop does work in proportion to the change,
never to the workspace. It is how a client without file-watcher registration (Neovim on Linux,
Helix) sees edits made on disk, and, at a slower pace, the backstop for events a watcher missed
(the counts "re-check size and mtime", DESIGN).

Why a polling thread and not native watching (inotify through `watchfiles`): it needs no
compiled dependency in a server shipped as a wheel per platform, it sees changes on network
and WSL file systems that send no events, it does not take an inotify watch per folder of the
tree (a `node_modules` below a glob's root cannot be left out of a recursive watch), and the
same round is the backstop every client needs. Its price, a change seen within one round, is
bounded by pacing: a round that cost t waits `COST_FACTOR * t` before the next, so the scan
never takes more than 1/COST_FACTOR of a CPU, and it yields the interpreter lock every
`CHUNK` files so a request never waits behind a round.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from todo_ls.globs import expand_inside, normalize, split_glob, walk_files

log = logging.getLogger(__name__)

COST_FACTOR = 20.0
CHUNK = 256  # files between two yields of the interpreter lock

# (mtime_ns, size) of a file as the workspace index keeps it; None: missing.
Stamp = tuple[int, int] | None


@dataclass(frozen=True)
class FolderPlan:
    """One workspace folder's patterns as the workspace index expands them."""

    base: Path
    patterns: tuple[str, ...]
    confined: bool = False


@dataclass(frozen=True)
class ScanPlan:
    """What a round looks at: each folder's patterns, and files named otherwise (subscribed
    by command, the folders' project files)."""

    folders: tuple[FolderPlan, ...] = ()
    files: frozenset[Path] = frozenset()


@dataclass
class Delta:
    """What changed on disk between two rounds."""

    created: list[Path] = field(default_factory=list)
    deleted: list[Path] = field(default_factory=list)
    changed: list[Path] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.created or self.deleted or self.changed)


def stamp(path: str | Path) -> Stamp:
    """`path`'s (mtime_ns, size), None when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def expand(plan: ScanPlan) -> set[str]:
    """Every file the plan names (the folders' expansions and its own files), as the text of
    the paths `expand_patterns` / `expand_inside` yield: a round makes no `Path` per file."""
    found = {str(path) for path in plan.files}
    for folder in plan.folders:
        if folder.confined:  # project files' patterns: rare, and the symlink checks matter
            found.update(str(p) for p in expand_inside(folder.base, folder.patterns).paths)
            continue
        for pattern in folder.patterns:
            split = split_glob(folder.base, pattern)
            if split is None:
                found.add(str(normalize(folder.base / pattern)))
                continue
            root, regex = split
            skip = len(str(root).rstrip(os.sep)) + 1
            for path in walk_files(root):
                rel = path[skip:] if os.sep == "/" else path[skip:].replace(os.sep, "/")
                if regex.fullmatch(rel):
                    found.add(os.path.normpath(path))
    return found


def diff(before: Mapping[str, Stamp], after: Mapping[str, Stamp]) -> Delta:
    """`created`: named now, not before; `deleted`: the other way; `changed`: named both
    times with another stamp (a plain path's file appearing or going counts as changed).
    Each list sorted, so what the server is told does not depend on hashing."""
    created: list[str] = []
    changed: list[str] = []
    for path, now in after.items():
        if path not in before:
            created.append(path)
        elif before[path] != now:
            changed.append(path)
    deleted = [path for path in before if path not in after]
    return Delta(
        [Path(p) for p in sorted(created)],
        [Path(p) for p in sorted(deleted)],
        [Path(p) for p in sorted(changed)],
    )


def scan(plan: ScanPlan, pause: Callable[[], None] = lambda: None) -> dict[str, Stamp]:
    """One round: the stamp of every file the plan names; `pause` is called every `CHUNK`
    files (the thread yields there)."""
    found: dict[str, Stamp] = {}
    for n, path in enumerate(expand(plan), 1):
        found[path] = stamp(path)
        if n % CHUNK == 0:
            pause()
    return found


class DiskScanner:
    """Runs `scan` on a daemon thread, no sooner than `floor` seconds apart (and paced by
    cost), and calls `post(delta)` from that thread when a round found something; `post` must
    be safe to call from another thread (the server hands it to its loop)."""

    def __init__(
        self,
        plan: ScanPlan,
        baseline: Mapping[Path, Stamp],
        post: Callable[[Delta], None],
        floor: float,
    ) -> None:
        """`baseline`: what the caller already knows of each file (so the first round reports
        what changed since the caller read it, not everything)."""
        self.plan = plan
        self._baseline: Mapping[Path, Stamp] | None = baseline  # made text on the thread
        self._seen: dict[str, Stamp] = {}
        self._post = post
        self._floor = floor
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="todo-ls-disk-scan", daemon=True)
        self.rounds = 0

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop after the current round (its result is dropped); does not wait."""
        self._stop.set()

    def round(self) -> Delta:
        """One round now, on the calling thread: what changed since the last."""
        if self._baseline is not None:
            self._seen = {str(path): known for path, known in self._baseline.items()}
            self._baseline = None
        now = scan(self.plan, lambda: time.sleep(0))
        delta = diff(self._seen, now)
        self._seen = now
        self.rounds += 1
        return delta

    def _run(self) -> None:
        wait = self._floor
        while not self._stop.wait(wait):
            # The round's cost is the CPU time this thread spent, not time waited (for the
            # interpreter lock, for a busy disk): a CPU clock, not the injected one.
            began = time.thread_time()
            try:
                delta = self.round()
            except Exception:  # never lose the thread: the next round tries again
                log.exception("disk re-check failed")
                delta = Delta()
            if delta and not self._stop.is_set():
                self._post(delta)
            wait = max(self._floor, COST_FACTOR * (time.thread_time() - began))


def plan_of(folders: Iterable[tuple[Path, Iterable[str], bool]], files: Iterable[Path]) -> ScanPlan:
    """A `ScanPlan` from (base, patterns, confined) per folder and the extra files."""
    return ScanPlan(
        tuple(FolderPlan(base, tuple(patterns), confined) for base, patterns, confined in folders),
        frozenset(files),
    )
