"""The supervised session as every reader sees it: one typed record per session, whatever
source watches it (the OpenCode runtime, the hook hosts' sessions in the store).

The status (`todoLs/status`, `todoLs.list`), the code lens, the commands' answers and
`todo-ls supervise` all read these records; `SupervisedSession.to_wire` is the only place the
session entry of the status payload is written, as the `SessionStatus` that todo_ls/payloads.py
declares (and the clients declare alike; docs/status-and-commands.md).

Pure: no store, no host, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass

from todo_ls.core.counts import TodoCount
from todo_ls.payloads import SessionStatus
from todo_ls.supervisor.policy import SessionState

# How the parts of a detail are joined for a person (`1 tool · quiet 4s`).
DETAIL_SEPARATOR = " · "


@dataclass(frozen=True)
class SessionDetail:
    """What a session is doing or waiting for, in parts: `steady` holds still while nothing
    happens (`1 tool`, `paused: no-progress`, a waiting permission), `clock` moves with time
    alone (`quiet 4s`, `nudge in 3s`), so a reader can tell a change from the clock ticking."""

    steady: tuple[str, ...] = ()
    clock: tuple[str, ...] = ()

    @classmethod
    def of(cls, text: str) -> SessionDetail:
        """A detail that is one steady part (a hook host's stored detail, a waiting reason)."""
        return cls((text,))

    @property
    def text(self) -> str:
        """The detail as the status shows it, e.g. `1 tool · quiet 4s`."""
        return DETAIL_SEPARATOR.join((*self.steady, *self.clock))


@dataclass(frozen=True)
class SupervisedSession:
    """One supervised session: the entry of `supervisor.sessions` in `todoLs/status`."""

    id: str
    host: str  # its host kind: `opencode-v1`, `claude-code`, … (`auto` before detection)
    title: str | None
    state: SessionState
    detail: SessionDetail | None
    open: int  # open items over every source it is nudged about (own list and files)
    nudges: int  # nudges since the user's last real prompt
    paused_reason: str | None
    todos: TodoCount | None  # None: the session keeps no list of its own

    def to_wire(self) -> SessionStatus:
        """The status payload's session entry (camelCase); `todos` only when it has a list."""
        entry: SessionStatus = {
            "id": self.id,
            "host": self.host,
            "title": self.title,
            "state": self.state,
            "detail": None if self.detail is None else self.detail.text,
            "open": self.open,
            "nudges": self.nudges,
            "pausedReason": self.paused_reason,
        }
        if self.todos is not None:
            entry["todos"] = self.todos.to_wire()
        return entry
