"""The initial index: every subscribed file counted once, with work-done progress.

Run from `initialized` right after the settings are loaded, so the first `todoLs/status` finds
every file counted: parsed, or, when its size and mtime are those of its persisted summary,
counted from that without a read (the warm start, file_index.py). The client is asked for a
progress token *before* the settings are pulled: creating it is a round trip, and while it is
under way a status publish scheduled by the new settings would parse every file itself, with
no progress shown.
The loop itself does not yield to the event loop for the same reason (a pending status
publish would take over the remaining files).
"""

from __future__ import annotations

import gc
import logging
import uuid

from lsprotocol import types

from todo_ls.server.core import TodoLanguageServer

log = logging.getLogger(__name__)

TITLE = "todo-ls: indexing"
REPORTS = 20  # at most this many `report`s, however many files


async def progress_token(ls: TodoLanguageServer) -> str | None:
    """A work-done progress token created by the client, None when it cannot show progress."""
    if not ls.client_features.work_done_progress:
        return None
    token = str(uuid.uuid4())  # fresh: pygls never forgets a token
    try:
        await ls.work_done_progress.create_async(token)
    except Exception as exc:  # a client that refuses: index without progress
        log.info("work-done progress refused: %s", exc)
        return None
    return token


def index_subscribed(ls: TodoLanguageServer, token: str | None) -> int:
    """Count every subscribed file (parsed, or from its persisted summary when unchanged:
    the warm start, file_index.py); returns their number."""
    progress = ls.work_done_progress if token is not None else None
    total = len(ls.workspace_index.all_subscribed())
    if progress is not None and token is not None:
        progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title=TITLE, message=f"0/{total} files", percentage=0, cancellable=False
            ),
        )
    step = max(1, total // REPORTS)

    def report(done: int, total: int) -> None:
        if progress is not None and token is not None and done % step == 0 and done < total:
            progress.report(
                token,
                types.WorkDoneProgressReport(
                    message=f"{done}/{total} files", percentage=100 * done // total
                ),
            )

    # No cyclic collection while counting: what the index makes is freed by reference counts
    # (none found by a collection right after 20,000 files), and the young collections over
    # the kept parses grew faster than the files (0.02 s at 1,000, 0.8-1.2 s at 20,000:
    # docs/performance.md, "What `bench_workspace.py` measures now").
    collecting = gc.isenabled()
    gc.disable()
    try:
        ls.workspace_index.build_counts(report)
    finally:
        if collecting:
            gc.enable()
    ls.forget_unsubscribed()
    # The parses just made are most of the heap (1.3 million objects at 20,000 files) and live
    # on: a full collection scanning them paused the loop 0.8-1.7 s. Frozen, they are never
    # scanned again; what is made later is collected as usual.
    gc.freeze()
    if progress is not None and token is not None:
        progress.end(token, types.WorkDoneProgressEnd(message=f"{total} files"))
    return total
