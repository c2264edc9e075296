"""`todoLs/status`: the progress of every subscribed file plus the supervisor's state, one
notification per workspace folder (each names its `workspace`; docs/status-and-commands.md).

Built from the folders' counts, kept current by each change's delta (workspace_counts.py), and
bounded in size whatever the workspace's; sent per folder only when it differs from the last
one sent for that folder, and coalesced to at most one round per `MIN_INTERVAL` seconds.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path

from todo_ls.checklist import FileItem, Progress, symbol_name
from todo_ls.core.clock import Clock, SystemClock, Timer
from todo_ls.payloads import STATUS_NOTIFICATION, FileStatus, OpenItem, StatusPayload
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.wire import RawJson, raw_protocol
from todo_ls.workspace import FileState, Folder
from todo_ls.workspace_counts import FileSummary, page_by_path, summed, top_files

MIN_INTERVAL = 0.1
# A rebuild that cost t seconds of CPU waits COST_FACTOR * t before the next one (when that is
# more than MIN_INTERVAL): the status never takes more than 1/COST_FACTOR of a CPU. Only large
# workspaces feel it (200 busy sessions: ~10 ms per rebuild, so about 5 updates a second).
COST_FACTOR = 20.0
BAR_CELLS = 8
FILES_LIMIT = 50  # entries of `files` in a payload (docs/status-and-commands.md)


def status_text(progress: Progress, state_word: str | None) -> str:
    """`📋 ███░░░░░ 8/17 open · working`: 8 cells filled by the done fraction rounded down
    (8 done of 17: 3 cells), the `· word` part only when the supervisor reports one."""
    filled = BAR_CELLS * progress.done // progress.total if progress.total else 0
    bar = "█" * filled + "░" * (BAR_CELLS - filled)
    text = f"📋 {bar} {progress.open}/{progress.total} open"
    return f"{text} · {state_word}" if state_word else text


def _file_entry(summary: FileSummary) -> FileStatus:
    entry: FileStatus = {
        "uri": summary.uri,
        "open": summary.open,
        "total": summary.total,
        "missing": summary.missing,
    }
    if summary.error:
        entry["error"] = summary.error
    return entry


def _folders(ls: TodoLanguageServer, folder: Folder | None) -> list[Folder]:
    return [folder] if folder is not None else ls.workspace_index.folders


def status_payload(ls: TodoLanguageServer, folder: Folder | None) -> StatusPayload:
    """The `todoLs/status` payload of one workspace folder, camelCase. `folder` None sums up
    every folder (`todoLs.list` without a `workspace`), naming the first as `workspace`; the
    server has a folder from `initialize` on (the client's, its root or the current directory).

    Read off the folders' counts, which each change adjusts by its delta, so its cost and size
    do not grow with the workspace: `files` holds at most `FILES_LIMIT` entries (the files
    open in the editor first, then those with the most open items), `filesTotal` counts all."""
    index = ls.workspace_index
    counts = [index.counts(f) for f in _folders(ls, folder)]
    progress = summed(counts)
    files = top_files(counts, FILES_LIMIT, index.open_paths())
    key = folder.key if folder is not None else None
    return {
        "workspace": (folder or index.folders[0]).uri,
        "open": progress.open,
        "done": progress.done,
        "canceled": progress.canceled,
        "total": progress.total,
        "text": status_text(progress, ls.supervision.state_word(key)),
        "files": [_file_entry(summary) for _, summary in files],
        "filesTotal": sum(len(c) for c in counts),
        "supervisor": ls.supervision.status(key),
    }


def files_by_path(
    ls: TodoLanguageServer, folder: Folder | None, offset: int, limit: int
) -> list[FileStatus]:
    """Entries `offset` to `offset + limit` of every subscribed file (of `folder`), sorted by
    path (folder by folder): how a panel lists all of them, a page at a time."""
    counts = [ls.workspace_index.counts(f) for f in _folders(ls, folder)]
    return [_file_entry(summary) for _, summary in page_by_path(counts, offset, limit)]


def _item_entry(state: FileState, item: FileItem) -> OpenItem:
    return {
        "uri": state.uri,
        "path": item.path,
        "line": item.line,
        "state": item.state,
        "text": item.text,
        "name": symbol_name(item.text),  # as the outline names it: one C regex when plain
        "ref": item.ref,
    }


def file_open_items(ls: TodoLanguageServer, path: Path) -> list[OpenItem]:
    """The open items of one subscribed file (none for a file that is not), fresh from disk
    or the editor."""
    index = ls.workspace_index
    folder = index.subscription_folder(path)
    if folder is None:
        return []
    state = index.state(path)
    return [_item_entry(state, item) for item in state.open_items(folder.relative(path))]


def open_items_page(
    ls: TodoLanguageServer, only: Folder | None, offset: int, limit: int
) -> tuple[list[OpenItem], int]:
    """Open items `offset` to `offset + limit` of the subscribed files (of folder `only`), in
    folder, file and document order, and how many there are in all. Only the files holding
    the page are read: the others are skipped by their counted number of open items."""
    index = ls.workspace_index
    if limit == 0:  # the count alone: the folders' totals, with no walk over their files
        return [], summed(index.counts(f) for f in _folders(ls, only)).open
    found: list[OpenItem] = []
    total = 0
    for folder in _folders(ls, only):
        counts = index.counts(folder)
        for path in counts.paths():
            summary = counts.get(path)
            n = summary.open if summary is not None else 0
            if n and total + n > offset and len(found) < limit:
                state = index.state(path)  # re-checked: the page is never stale
                items = state.open_items(folder.relative(path))
                n = len(items)
                skip = max(0, offset - total)
                found += [_item_entry(state, i) for i in items[skip : skip + limit - len(found)]]
            total += n
    return found, total


class StatusPublisher:
    """Sends `todoLs/status` when it changed, at most once per `MIN_INTERVAL`, and rebuilds it
    no sooner than `COST_FACTOR` times its last rebuild's CPU time. Waits on `clock` (real
    time by default; tests pass a `FakeClock`); `cpu` reads the CPU seconds of the thread the
    rebuild runs on (the loop's; tests pass a fake)."""

    def __init__(
        self,
        ls: TodoLanguageServer,
        clock: Clock | None = None,
        cpu: Callable[[], float] = time.thread_time,
    ) -> None:
        self._ls = ls
        self._clock = clock or SystemClock()
        self._cpu = cpu
        self._last: dict[str, StatusPayload] = {}  # by workspace folder URI
        self._last_lens: object = None
        self._last_sent_at = float("-inf")
        self._next_build_at = float("-inf")
        self._build_pause = 0.0  # COST_FACTOR times the last rebuild's duration
        self._pending: Timer | None = None
        self._stopped = False

    def schedule(self) -> None:
        """Publish soon (coalesced); a no-op before the event loop runs or after `stop`."""
        if self._pending is not None or self._stopped:
            return
        try:
            asyncio.get_running_loop()  # the clock's timers run on it
        except RuntimeError:
            return
        now = self._clock.now()
        delay = max(0.0, self._last_sent_at + MIN_INTERVAL - now, self._next_build_at - now)
        # The clock is wall time: set back, the recorded times lie ahead, and the wait must
        # still end after the longest one the rules ask for.
        delay = min(delay, max(MIN_INTERVAL, self._build_pause))
        self._pending = self._clock.call_at(now + delay, self.flush)

    def stop(self) -> None:
        """The server shuts down: send nothing more."""
        self._stopped = True
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None

    def flush(self) -> None:
        """Compute each folder's payload now and send those that changed."""
        self._pending = None
        ls = self._ls
        started = self._clock.now()
        # The rebuild's cost is the CPU time it spent, not the time it took: on a starved
        # machine, or with the store thread holding the interpreter lock, a 2 ms rebuild can
        # take 50 ms of wall time, and 20 times that held the next status back a second
        # (docs/performance.md, "What bench_workspace.py measures now").
        began = self._cpu()
        payloads = {folder.uri: status_payload(ls, folder) for folder in ls.workspace_index.folders}
        self._build_pause = COST_FACTOR * (self._cpu() - began)
        if self._build_pause > MIN_INTERVAL:
            self._next_build_at = started + self._build_pause
        for uri, payload in payloads.items():
            if payload != self._last.get(uri):
                self._last_sent_at = self._clock.now()
                # Encoded here: pygls would copy the payload (an entry per file) through cattrs.
                raw_protocol(ls.protocol).notify_raw(
                    STATUS_NOTIFICATION, RawJson(json.dumps(payload))
                )
        self._last = payloads
        lens = _lens_view(ls, list(payloads.values()))
        if lens != self._last_lens:
            self._last_lens = lens
            if ls.client_features.code_lens_refresh:
                ls.spawn(ls.workspace_code_lens_refresh_async(None), "code lens refresh")


def _lens_view(ls: TodoLanguageServer, payloads: list[StatusPayload]) -> object:
    """What the code lenses show: a refresh only when this changed (not on every session
    detail such as `quiet 4s`), and also when the lenses are switched on or off."""
    settings = ls.settings
    if not settings.code_lens.enabled:
        return None
    view = [
        (
            [(f["uri"], f["open"], f["total"]) for f in payload["files"]],
            payload["text"],
            sorted(s["state"] for s in payload["supervisor"]["sessions"]),
        )
        for payload in payloads
    ]
    return view, settings.supervisor.enabled
