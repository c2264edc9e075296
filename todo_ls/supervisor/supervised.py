"""One record per session the supervisor runtime knows of (docs/supervisor.md, "Status").

Everything the runtime keeps about a session beside its activity (the `Tracker`'s) lives in
its `Supervised` record: the stored evaluation every reader reads, the one timer, the hold after
a failed or lost delivery, whether a nudge is on its way, whether its folder was asked for, and
what the status last showed of it. `Runtime.forget` is the only place a record leaves.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from todo_ls.core.clock import Timer
from todo_ls.supervisor.activity import TreeView
from todo_ls.supervisor.detail import describe
from todo_ls.supervisor.policy import Decision
from todo_ls.supervisor.session_record import SupervisedSession
from todo_ls.todos.editor_list import ListedTodo, todo_summary


@dataclass(frozen=True)
class Evaluation:
    """What the settle step decided for a supervised session, and the inputs the status shows
    beside it, read in the same step so that they agree."""

    decision: Decision
    open: int  # open items over its own list and the folder's files
    nudges: int  # nudges of the current episode
    todos: tuple[ListedTodo, ...]  # its own list as the editor shows it
    home: str | None  # the workspace folder whose status lists it

    def visible(self, view: TreeView) -> tuple[Any, ...]:
        """What the status shows of the session, but for the clock (the quiet clock, the
        countdown): when it moves, the status is published."""
        state = (self.decision.state, self.decision.paused_reason, self.open, self.nudges)
        counts = tuple(sorted(view.counts.items()))
        return (*state, self.todos, self.home, view.session.title, counts, view.waiting)

    def record(self, session_id: str, view: TreeView, host: str, now: float) -> SupervisedSession:
        """The session as every reader sees it: this evaluation, its live activity (title,
        counts, the quiet clock at `now`)."""
        return SupervisedSession(
            id=session_id,
            host=host,
            title=view.session.title,
            state=self.decision.state,
            detail=describe(view, self.decision, now),
            open=self.open,
            nudges=self.nudges,
            paused_reason=self.decision.paused_reason,
            todos=todo_summary(self.todos),
        )


@dataclass
class Supervised:
    """A root session the runtime has heard of."""

    id: str
    # None: not supervised (idle since before todo-ls watched, out of scope): not listed.
    evaluation: Evaluation | None = None
    timer: Timer | None = None
    hold_until: float | None = None  # no nudge before then (a delivery failed or was lost)
    sending: bool = False  # a nudge of it is being claimed, re-checked or sent
    looked_up: bool = False  # its directory and parent were asked of the host
    shown: tuple[Any, ...] | None = None  # what the status last showed (None: not listed)

    def arm(self, timer: Timer | None) -> None:
        """Replace the session's one timer."""
        if self.timer is not None:
            self.timer.cancel()
        self.timer = timer

    def unsupervise(self) -> bool:
        """No longer supervised (it stays known): whether the status listed it."""
        self.arm(None)
        self.evaluation = None
        self.hold_until = None
        shown, self.shown = self.shown, None
        return shown is not None


def listed(
    records: Mapping[str, Supervised], folder: str | None = None
) -> list[tuple[str, Evaluation]]:
    """The supervised sessions the status lists (of workspace folder `folder`), by id."""
    wanted = None if folder is None else os.path.normpath(folder)
    return [
        (sid, found)
        for sid in sorted(records)
        if (found := records[sid].evaluation) is not None
        and (wanted is None or found.home == wanted)
    ]
