"""`todoLs/status`: the progress of every subscribed file plus the supervisor's state, one
notification per workspace folder (each names its `workspace`; docs/status-and-commands.md).

Built from cached parses (an unopened file costs one stat unless it changed), sent per folder
only when it differs from the last one sent for that folder, and coalesced to at most one round
per `MIN_INTERVAL` seconds.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from todo_ls.checklist import FileItem, Progress
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.wire import RawJson, raw_protocol
from todo_ls.supervisor.clock import Clock, SystemClock, Timer
from todo_ls.workspace import FileState, Folder

METHOD = "todoLs/status"
MIN_INTERVAL = 0.1
# A rebuild that took t seconds waits COST_FACTOR * t before the next one (when that is more
# than MIN_INTERVAL): the status never takes more than 1/COST_FACTOR of a CPU. Only large
# workspaces feel it (200 busy sessions: ~10 ms per rebuild, so about 5 updates a second).
COST_FACTOR = 20.0
BAR_CELLS = 8


def status_text(progress: Progress, state_word: str | None) -> str:
    """`📋 ███░░░░░ 8/17 open · working`: 8 cells filled by the done fraction rounded down
    (8 done of 17: 3 cells), the `· word` part only when the supervisor reports one."""
    filled = BAR_CELLS * progress.done // progress.total if progress.total else 0
    bar = "█" * filled + "░" * (BAR_CELLS - filled)
    text = f"📋 {bar} {progress.open}/{progress.total} open"
    return f"{text} · {state_word}" if state_word else text


def _file_entry(state: FileState) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "uri": state.uri,
        "open": state.progress.open,
        "total": state.progress.total,
        "missing": state.missing,
    }
    if state.error:
        entry["error"] = state.error
    return entry


def subscribed_states(
    ls: TodoLanguageServer, only: Folder | None = None
) -> list[tuple[Folder, FileState]]:
    """Every subscribed file's current state (of folder `only` when given); unreadable files
    warn once and count 0 items."""
    index = ls.workspace_index
    found = []
    for folder, path in index.all_subscribed():
        if only is not None and folder != only:
            continue
        state = index.state(path)
        if state.error:
            ls.warn_once(f"todo-ls skips {state.error}")
        found.append((folder, state))
    return found


def status_payload(ls: TodoLanguageServer, folder: Folder | None) -> dict[str, Any]:
    """The `todoLs/status` payload of one workspace folder, camelCase. `folder` None sums up
    every folder (`todoLs.list` without a `workspace`), naming the first as `workspace`."""
    states = subscribed_states(ls, folder)
    counts: dict[str, int] = {}
    for _, state in states:
        for name, n in state.progress.by_state.items():
            counts[name] = counts.get(name, 0) + n
    progress = Progress(counts)
    folders = ls.workspace_index.folders
    named = folder or (folders[0] if folders else None)
    key = folder.key if folder is not None else None
    return {
        "workspace": named.uri if named else None,
        "open": progress.open,
        "done": progress.done,
        "canceled": progress.canceled,
        "total": progress.total,
        "text": status_text(progress, ls.supervision.state_word(key)),
        "files": [_file_entry(state) for _, state in states],
        "supervisor": ls.supervision.status(key),
    }


def open_items(ls: TodoLanguageServer, only: Folder | None) -> list[dict[str, Any]]:
    """Every open item of the subscribed files (of folder `only`), for `todoLs.list`."""
    found = []
    for folder, state in subscribed_states(ls, only):
        items: list[FileItem] = state.open_items(folder.relative(state.path))
        found += [
            {
                "uri": state.uri,
                "path": item.path,
                "line": item.line,
                "state": item.state,
                "text": item.text,
                "ref": item.ref,
            }
            for item in items
        ]
    return found


class StatusPublisher:
    """Sends `todoLs/status` when it changed, at most once per `MIN_INTERVAL`, and rebuilds it
    no sooner than `COST_FACTOR` times its last rebuild's duration. Waits on `clock` (real
    time by default; tests pass a `FakeClock`)."""

    def __init__(self, ls: TodoLanguageServer, clock: Clock | None = None) -> None:
        self._ls = ls
        self._clock = clock or SystemClock()
        self._last: dict[str, dict[str, Any]] = {}  # by workspace folder URI
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
        # The rebuild's cost is CPU time spent, measured, not waited: a performance counter.
        began = time.perf_counter()
        payloads = {folder.uri: status_payload(ls, folder) for folder in ls.workspace_index.folders}
        self._build_pause = COST_FACTOR * (time.perf_counter() - began)
        if self._build_pause > MIN_INTERVAL:
            self._next_build_at = started + self._build_pause
        for uri, payload in payloads.items():
            if payload != self._last.get(uri):
                self._last_sent_at = self._clock.now()
                # Encoded here: pygls would copy the payload (an entry per file) through cattrs.
                raw_protocol(ls.protocol).notify_raw(METHOD, RawJson(json.dumps(payload)))
        self._last = payloads
        lens = _lens_view(ls, list(payloads.values()))
        if lens != self._last_lens:
            self._last_lens = lens
            if ls.client_features.code_lens_refresh:
                ls.spawn(ls.workspace_code_lens_refresh_async(None), "code lens refresh")


def _lens_view(ls: TodoLanguageServer, payloads: list[dict[str, Any]]) -> object:
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
