"""Per-session activity, fed by host events (docs/supervisor.md, "Activity").

Pure: no asyncio, no I/O. Time comes in as `now` (epoch seconds). The `Tracker` keeps one
`SessionActivity` per session and turns each event into state changes plus a few `Effect`s the
runtime must persist (an interrupt or failure pause, a new episode, a deleted session).

A session is idle only when nothing is open: no turn, step, reasoning / text / tool-input span,
running tool, background shell, queued input, pending permission, and no busy child. A confirmed
end of turn (a step finishing with a final reason, or TurnEnded idle / completed / failed /
interrupted) closes everything a turn owns, which heals spans whose close event was lost.

"The agent did something" (`last_work`, rule 4) means the agent's own turn, step, span, tool,
shell or todo list, or a real user prompt. Synthetic input (our nudge, or another tool's
synthetic message: treated alike) and its queueing and delivery are not: they only reach
the session.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from todo_ls.core import events as ev
from todo_ls.core.clock import CLOCK_SET_BACK_S

log = logging.getLogger(__name__)

# Step finish reasons that mean "the turn goes on" (the TUI of OpenCode 2.x treats them so).
CONTINUING_FINISHES = frozenset({"tool-calls", "unknown"})
# Per session: the user message ids already counted. v1 re-sends the message of the turn that
# just ended, so only the latest few matter (a turn takes in the prompts queued while it ran);
# a long window cost ~25 KB per long-lived session, a slow climb over days of events.
_SEEN_MESSAGES = 32


@dataclass
class ToolRun:
    tool: str
    title: str
    child_session_id: str | None


@dataclass
class ShellRun:
    command: str


@dataclass
class SessionActivity:
    """What one session is doing, as far as the events tell."""

    id: str
    first_seen: float
    directory: str | None = None
    parent_id: str | None = None
    title: str = ""
    engaged: bool = False  # showed activity while we watched: only such sessions are supervised
    busy: ev.BusyKind | None = None  # the turn span (v1 busy / retry, v2 execution)
    retry_attempt: int = 0
    retry_next_at: float | None = None
    retry_message: str = ""
    steps: set[str] = field(default_factory=set)
    spans: dict[tuple[str, str], float] = field(default_factory=dict)
    tools: dict[str, ToolRun] = field(default_factory=dict)
    shells: dict[str, ShellRun] = field(default_factory=dict)
    queued: set[str] = field(default_factory=set)
    permissions: dict[str, str] = field(default_factory=dict)
    last_activity: float = 0.0  # any sign of life: the quiet clock starts here
    last_work: float = 0.0  # the agent did something (for "no activity since the last nudge")
    idle_since: float | None = None  # when the session last became idle
    ended_confirmed: bool = False  # a confirmed end-of-turn signal was seen for this session
    turn_seq: int = 0  # counts busy periods
    ended_seq: int = -1  # the busy period whose end we already handled
    interrupt_seq: int = -1  # the busy period whose interrupt we already reported
    failure_seq: int = -1  # the busy period whose failure we already reported
    failure: str | None = None  # why the latest busy period failed (None: it did not)
    last_outcome: ev.TurnOutcome | None = None
    last_detail: str | None = None
    todos: tuple[ev.SessionTodo, ...] = ()
    seen_messages: deque[str] = field(default_factory=lambda: deque(maxlen=_SEEN_MESSAGES))

    def __post_init__(self) -> None:
        self.last_activity = self.last_activity or self.first_seen
        if self.idle_since is None:
            self.idle_since = self.first_seen

    @property
    def in_flight(self) -> bool:
        """Anything of this session itself is open (children not included)."""
        return bool(
            self.busy
            or self.steps
            or self.spans
            or self.tools
            or self.shells
            or self.queued
            or self.permissions
        )

    def heal(self) -> None:
        """Close everything a turn owns. Background shells and queued input outlive a turn."""
        self.busy = None
        self.retry_next_at = None
        self.steps.clear()
        self.spans.clear()
        self.tools.clear()
        self.permissions.clear()


@dataclass(frozen=True)
class Interrupted:
    """The user interrupted the session's turn (or rejected a permission): pause it."""

    session_id: str  # the root session
    why: str


@dataclass(frozen=True)
class TurnFailed:
    """A root session's turn ended in an error the host gave up on (it retries the retryable
    ones itself): pause it, since a nudge would only run into the same error."""

    session_id: str
    why: str


@dataclass(frozen=True)
class UserPrompted:
    """A real (non-synthetic) user message reached a root session: a new episode starts."""

    session_id: str


@dataclass(frozen=True)
class SessionGone:
    session_id: str


Effect = Interrupted | TurnFailed | UserPrompted | SessionGone


@dataclass(frozen=True)
class Applied:
    """What one event changed: effects to persist and the root sessions to re-evaluate."""

    effects: tuple[Effect, ...] = ()
    touched: frozenset[str] = frozenset()
    structural: bool = True  # False: only the quiet clock moved (no re-evaluation needed)


@dataclass(frozen=True)
class TreeView:
    """A root session together with its children, as the policy sees it."""

    session: SessionActivity
    in_flight: bool
    waiting: tuple[str, ...]  # what waits for a human (pending permissions / questions)
    last_activity: float
    last_work: float  # the agent of this tree last did something
    engaged: bool
    retry_until: float | None  # the provider retry is scheduled until then (not a stall)
    quiet_sources: tuple[str, ...]  # what is in flight, for the stall nudge and the status
    counts: dict[str, int]  # tools / shells / children busy, for the status detail


# Events that show the agent doing work (not merely the host talking about the session).
# Input is not among them: a nudge (ours, or another tool's synthetic message) is admitted,
# queued and delivered without the agent doing anything, and counting that as work would let
# every nudge clear rule 4's "the agent did nothing since" for the next one. A real user
# prompt counts through its UserMessage; the turn any input starts counts through its events.
_AGENT_WORK_EVENTS = (
    ev.TurnStarted,
    ev.Retrying,
    ev.StepStarted,
    ev.StepEnded,
    ev.SpanStarted,
    ev.SpanEnded,
    ev.ToolStarted,
    ev.ToolProgress,
    ev.ToolEnded,
    ev.ShellStarted,
    ev.ShellEnded,
    ev.TodosUpdated,
)


class Tracker:
    """Every session we know of, keyed by id."""

    def __init__(self) -> None:
        self.sessions: dict[str, SessionActivity] = {}
        # Every id some session names as its parent (never shrinks): `descendants` of any
        # other session is empty without a scan of all sessions, which it is for most roots
        # on every evaluation. Set `parent_id` through `_set_parent` only.
        self._parents: set[str] = set()

    # --- lookups ----------------------------------------------------------------------------

    def get(self, session_id: str, now: float) -> SessionActivity:
        """The session's record, created on first sight."""
        found = self.sessions.get(session_id)
        if found is None:
            found = SessionActivity(id=session_id, first_seen=now)
            self.sessions[session_id] = found
        return found

    def root_of(self, session_id: str) -> str:
        """The root of a session's parent chain (itself for a root; cycles end the walk)."""
        seen = {session_id}
        current = session_id
        while True:
            parent = self.sessions.get(current)
            if parent is None or parent.parent_id is None or parent.parent_id in seen:
                return current
            current = parent.parent_id
            seen.add(current)

    def descendants(self, session_id: str) -> Iterator[SessionActivity]:
        """Children, grandchildren, … of a session."""
        pending = [session_id]
        seen = {session_id}
        while pending:
            parent = pending.pop()
            if parent not in self._parents:
                continue
            for child in self.sessions.values():
                if child.parent_id == parent and child.id not in seen:
                    seen.add(child.id)
                    pending.append(child.id)
                    yield child

    def roots(self) -> list[SessionActivity]:
        """Sessions without a parent."""
        return [s for s in self.sessions.values() if s.parent_id is None]

    def view(self, root_id: str) -> TreeView:
        """The root plus its busy children: a busy child keeps its root working, and the
        quiet clock of the root includes the activity of its busy children."""
        root = self.sessions[root_id]
        family = [root, *self.descendants(root_id)]
        members = [root] + [c for c in family[1:] if c.in_flight]
        busy_children = len(members) - 1
        waiting = tuple(what for s in members for what in s.permissions.values())
        retry_until = max(
            (s.retry_next_at for s in members if s.retry_next_at is not None), default=None
        )
        sources: list[str] = []
        counts = {"tools": 0, "shells": 0, "children": busy_children, "steps": 0}
        for s in members:
            prefix = "" if s is root else f"subagent {s.id}: "
            for tool in s.tools.values():
                counts["tools"] += 1
                sources.append(prefix + _tool_words(tool))
            for shell in s.shells.values():
                counts["shells"] += 1
                sources.append(prefix + f'background shell "{clip(shell.command)}"')
            for kind, _ in s.spans:
                sources.append(prefix + _SPAN_WORDS.get(kind, kind))
            if s.queued:
                sources.append(prefix + f"{len(s.queued)} queued input")
            if s.busy == "retry":
                sources.append(prefix + f"provider retry #{s.retry_attempt}")
            counts["steps"] += len(s.steps)
            if not (s.tools or s.shells or s.spans or s.queued) and (s.steps or s.busy):
                sources.append(prefix + ("open step" if s.steps else "open turn"))
        return TreeView(
            session=root,
            in_flight=any(s.in_flight for s in members),
            waiting=waiting,
            last_activity=max(s.last_activity for s in members),
            last_work=max(s.last_work for s in family),
            engaged=any(s.engaged for s in family),
            retry_until=retry_until,
            quiet_sources=tuple(sources),
            counts=counts,
        )

    # --- events -----------------------------------------------------------------------------

    def apply(self, event: ev.HostEvent, now: float) -> Applied:
        """Feed one host event. Never raises for odd sequences (lost or repeated events)."""
        if isinstance(event, (ev.Connected, ev.Disconnected)):
            return Applied(touched=frozenset())
        if isinstance(event, ev.Resynced):
            return self._resync(event, now)
        if isinstance(event, ev.SessionDeleted):
            return self._delete(event.session_id)
        known = event.session_id in self.sessions
        session = self.get(event.session_id, now)
        was_in_flight = session.in_flight
        effects: list[Effect] = []
        structural = True
        work = isinstance(event, _AGENT_WORK_EVENTS)
        if isinstance(event, ev.SessionUpdated):
            # OpenCode repeats unchanged infos (every step updates the session's time).
            structural = self._set_info(event.info, now) or not known
        elif isinstance(event, ev.TurnStarted):
            if session.busy is None and session.ended_seq == session.turn_seq:
                session.turn_seq += 1  # a new busy period (v1 repeats busy per step: a level)
                session.failure = None
            session.busy = "busy"
            session.retry_next_at = None
        elif isinstance(event, ev.TurnEnded):
            effects += self._turn_ended(session, event, now)
        elif isinstance(event, ev.Retrying):
            session.busy = "retry"
            session.retry_attempt = event.attempt
            session.retry_next_at = event.next_at
            session.retry_message = event.message
        elif isinstance(event, ev.StepStarted):
            session.steps.add(event.step_id)
        elif isinstance(event, ev.StepEnded):
            session.steps.discard(event.step_id)
            if event.finish is not None and event.finish not in CONTINUING_FINISHES:
                effects += self._end_turn(session, "completed", event.finish, now)
        elif isinstance(event, ev.SpanStarted):
            session.spans[(event.kind, event.span_id)] = now
        elif isinstance(event, ev.SpanEnded):
            session.spans.pop((event.kind, event.span_id), None)
        elif isinstance(event, ev.ToolStarted):
            session.tools[event.call_id] = ToolRun(event.tool, event.title, event.child_session_id)
            if event.child_session_id and event.child_session_id != session.id:
                child = self.get(event.child_session_id, now)
                self._set_parent(child, child.parent_id or session.id)
        elif isinstance(event, ev.ToolProgress):
            structural = event.call_id not in session.tools
        elif isinstance(event, ev.ToolEnded):
            session.tools.pop(event.call_id, None)
        elif isinstance(event, ev.ShellStarted):
            session.shells[event.shell_id] = ShellRun(event.command)
        elif isinstance(event, ev.ShellEnded):
            session.shells.pop(event.shell_id, None)
        elif isinstance(event, ev.InputQueued):
            session.queued.add(event.input_id)
        elif isinstance(event, ev.InputDelivered):
            session.queued.discard(event.input_id)
        elif isinstance(event, ev.PermissionAsked):
            session.permissions[event.request_id] = event.what or "permission"
        elif isinstance(event, ev.PermissionReplied):
            session.permissions.pop(event.request_id, None)
            if event.reply in ("reject", "rejected"):
                effects.append(Interrupted(self.root_of(session.id), "permission rejected"))
        elif isinstance(event, ev.UserMessage):
            if self._first_sight(session, event.message_id):
                if not session.in_flight:
                    session.idle_since = now  # a turn is about to start: do not race it
                work = not event.synthetic
                if work and session.parent_id is None:
                    # A real prompt; synthetic ones are nudges (ours or another tool's), and
                    # a child's prompt comes from its parent's subagent tool.
                    effects.append(UserPrompted(session.id))
        elif isinstance(event, ev.TodosUpdated):
            session.todos = event.todos
        elif isinstance(event, ev.Activity):
            structural = False
        session.last_activity = _later(session.last_activity, now)
        if work:
            session.last_work = _later(session.last_work, now)
            session.engaged = True
        if was_in_flight and not session.in_flight:
            session.idle_since = now
        return Applied(tuple(effects), frozenset({self.root_of(session.id)}), structural)

    def busy_seen(self, session_id: str, kind: ev.BusyKind, now: float) -> None:
        """The host's busy snapshot lists the session although no event said so."""
        session = self.get(session_id, now)
        if session.busy is None:
            session.turn_seq += 1
            session.busy = kind
            session.engaged = True
            session.last_activity = _later(session.last_activity, now)

    def _set_info(self, info: ev.SessionInfo, now: float) -> bool:
        """Record what `info` says; True when the directory, parent or title changed."""
        session = self.get(info.id, now)
        before = (session.directory, session.parent_id, session.title)
        session.directory = info.directory or session.directory
        if info.parent_id and info.parent_id != info.id:
            self._set_parent(session, info.parent_id)
        session.title = info.title or session.title
        return (session.directory, session.parent_id, session.title) != before

    def _set_parent(self, session: SessionActivity, parent_id: str) -> None:
        session.parent_id = parent_id
        self._parents.add(parent_id)

    def _turn_ended(
        self, session: SessionActivity, event: ev.TurnEnded, now: float
    ) -> list[Effect]:
        if event.outcome == "shutdown":
            return []  # the host resumes the turn itself on its next start: not an end of turn
        effects: list[Effect] = []
        interrupt = event.outcome == "interrupted" and event.by_user
        if interrupt and session.interrupt_seq != session.turn_seq:
            session.interrupt_seq = session.turn_seq
            why = "interrupted by the user" + (f" ({event.detail})" if event.detail else "")
            effects.append(Interrupted(self.root_of(session.id), why))
        # A child's failure is its parent's tool error: the parent's turn goes on.
        if event.outcome == "failed":
            session.failure = clip(event.detail or "error", 120)
            if session.parent_id is None and session.failure_seq != session.turn_seq:
                session.failure_seq = session.turn_seq
                effects.append(TurnFailed(session.id, session.failure))
        return effects + self._end_turn(session, event.outcome, event.detail, now)

    def _end_turn(
        self, session: SessionActivity, outcome: ev.TurnOutcome, detail: str | None, now: float
    ) -> list[Effect]:
        already = session.ended_seq == session.turn_seq and not session.in_flight
        session.ended_confirmed = True
        if already:
            return []  # v1 sends the idle pair twice after an abort or an error
        session.ended_seq = session.turn_seq
        session.last_outcome = outcome
        session.last_detail = detail
        session.heal()
        if not session.in_flight:
            session.idle_since = now
        return []

    @staticmethod
    def _first_sight(session: SessionActivity, message_id: str) -> bool:
        if not message_id:
            return True
        if message_id in session.seen_messages:
            return False  # v1 re-sends the user message at the end of every turn
        session.seen_messages.append(message_id)
        return True

    def _delete(self, session_id: str) -> Applied:
        gone = [session_id, *(c.id for c in self.descendants(session_id))]
        root = self.root_of(session_id)
        for sid in gone:
            self.sessions.pop(sid, None)
        touched = frozenset({root} if root in self.sessions else set())
        return Applied(tuple(SessionGone(sid) for sid in gone), touched)

    def _resync(self, event: ev.Resynced, now: float) -> Applied:
        for info in event.sessions:
            self._set_info(info, now)
        for sid, todos in event.todos.items():
            self.get(sid, now).todos = todos
        for sid, kind in event.busy.items():
            self.busy_seen(sid, kind, now)
            self.get(sid, now).busy = kind
        for session in self.sessions.values():
            if session.id not in event.busy and session.in_flight:
                # The snapshot says idle: whatever closed the turn was lost while we were away.
                session.heal()
                if not session.in_flight:
                    session.idle_since = now
        return Applied(touched=frozenset(s.id for s in self.roots()))


_SPAN_WORDS = {"reasoning": "reasoning", "text": "writing", "tool-input": "preparing a tool"}


def clip(text: str, limit: int = 60) -> str:
    """`text` on one line, cut to `limit` characters (for log lines and the status)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tool_words(tool: ToolRun) -> str:
    if tool.child_session_id:
        return f'subagent {tool.child_session_id} "{clip(tool.title)}"'
    return f'tool {tool.tool} "{clip(tool.title)}"' if tool.title else f"tool {tool.tool}"


def _later(recorded: float, now: float) -> float:
    """`now` unless `recorded` is later; a `recorded` far ahead of `now` is from before the
    clock was set back, and keeping it would freeze the quiet clock until the clock caught up."""
    return now if recorded > now + CLOCK_SET_BACK_S else max(recorded, now)
