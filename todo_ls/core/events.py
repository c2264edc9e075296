"""The supervisor's own event model.

Host adapters (`todo_ls.hosts`) translate each host's wire events into these; the supervisor
never sees a wire format. Every session event carries `session_id`. Times are not stamped by
adapters: the runtime reads its injected clock when an event arrives.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

TodoStatus = Literal["pending", "in_progress", "completed", "cancelled"]
BusyKind = Literal["busy", "retry"]
SpanKind = Literal["reasoning", "text", "tool-input"]
# idle: v1 `session.status idle` / `session.idle` (a confirmed end of turn, no detail);
# completed / failed: v2 execution.succeeded / failed, v1 `session.error` other than an abort;
# interrupted: an abort (by_user says whether a human did it); shutdown: the host stopped and
# will resume the turn itself, so it is NOT an end of turn.
TurnOutcome = Literal["idle", "completed", "failed", "interrupted", "shutdown"]


@dataclass(frozen=True)
class SessionInfo:
    id: str
    directory: str | None
    parent_id: str | None = None
    title: str = ""


@dataclass(frozen=True)
class SessionTodo:
    content: str
    status: TodoStatus
    priority: str | None = None


# --- host-level events -------------------------------------------------------------------


@dataclass(frozen=True)
class Connected:
    """The event stream is (re)connected; a Resynced follows."""

    kind: str  # "opencode-v1" | "opencode-v2" | "kilo"
    url: str
    version: str | None


@dataclass(frozen=True)
class Disconnected:
    """The stream dropped or the host is unreachable; the adapter is retrying."""

    error: str  # one line, never contains a secret


@dataclass(frozen=True)
class Resynced:
    """Authoritative snapshot read after every (re)connect: trust it over stream continuity."""

    busy: Mapping[str, BusyKind]  # sessions not idle; absent means idle
    sessions: tuple[SessionInfo, ...] = ()
    todos: Mapping[str, tuple[SessionTodo, ...]] = field(default_factory=dict)


# --- session events ----------------------------------------------------------------------


@dataclass(frozen=True)
class SessionUpdated:
    info: SessionInfo

    @property
    def session_id(self) -> str:
        return self.info.id


@dataclass(frozen=True)
class SessionDeleted:
    session_id: str


@dataclass(frozen=True)
class TurnStarted:
    """A busy period began (v1 repeats `session.status busy` per step: treat it as a level)."""

    session_id: str


@dataclass(frozen=True)
class TurnEnded:
    session_id: str
    outcome: TurnOutcome
    detail: str | None = None  # error name / message, interrupt reason
    by_user: bool = False  # for outcome "interrupted": a human interrupted the turn


@dataclass(frozen=True)
class Retrying:
    """The host waits on the provider (429, 5xx, stream timeout) and will retry by itself."""

    session_id: str
    attempt: int
    next_at: float | None  # epoch seconds of the next attempt
    message: str = ""


@dataclass(frozen=True)
class StepStarted:
    session_id: str
    step_id: str


@dataclass(frozen=True)
class StepEnded:
    session_id: str
    step_id: str
    finish: str | None  # "tool-calls" / "unknown" / None: the turn goes on


@dataclass(frozen=True)
class SpanStarted:
    session_id: str
    kind: SpanKind
    span_id: str


@dataclass(frozen=True)
class SpanEnded:
    session_id: str
    kind: SpanKind
    span_id: str


@dataclass(frozen=True)
class ToolStarted:
    session_id: str
    call_id: str
    tool: str
    title: str = ""  # e.g. the bash command or the subagent description
    child_session_id: str | None = None  # the `task` tool's child session


@dataclass(frozen=True)
class ToolProgress:
    """A running tool produced output: activity, not quiet."""

    session_id: str
    call_id: str


@dataclass(frozen=True)
class ToolEnded:
    session_id: str
    call_id: str
    ok: bool = True


@dataclass(frozen=True)
class ShellStarted:
    session_id: str
    shell_id: str
    command: str = ""
    # Grows while the shell prints; the adapter that can see it reports growth as
    # ToolProgress(call_id=shell_id), so the supervisor never reads host files itself.
    capture_file: str | None = None


@dataclass(frozen=True)
class ShellEnded:
    session_id: str
    shell_id: str


@dataclass(frozen=True)
class InputQueued:
    session_id: str
    input_id: str


@dataclass(frozen=True)
class InputDelivered:
    """The queued input was delivered or cancelled."""

    session_id: str
    input_id: str


@dataclass(frozen=True)
class PermissionAsked:
    """A permission or question waits for a human: the session is `waiting`, never nudged."""

    session_id: str
    request_id: str
    what: str = ""


@dataclass(frozen=True)
class PermissionReplied:
    session_id: str
    request_id: str
    reply: str = ""


@dataclass(frozen=True)
class UserMessage:
    """A user message reached the session. `synthetic` ones are nudges (ours or others')."""

    session_id: str
    synthetic: bool
    message_id: str = ""


@dataclass(frozen=True)
class TodosUpdated:
    session_id: str
    todos: tuple[SessionTodo, ...]


@dataclass(frozen=True)
class Activity:
    """Anything else session-scoped that shows the session is alive (deltas, diffs, updates)."""

    session_id: str


SessionEvent = (
    SessionUpdated
    | SessionDeleted
    | TurnStarted
    | TurnEnded
    | Retrying
    | StepStarted
    | StepEnded
    | SpanStarted
    | SpanEnded
    | ToolStarted
    | ToolProgress
    | ToolEnded
    | ShellStarted
    | ShellEnded
    | InputQueued
    | InputDelivered
    | PermissionAsked
    | PermissionReplied
    | UserMessage
    | TodosUpdated
    | Activity
)
HostEvent = Connected | Disconnected | Resynced | SessionEvent
