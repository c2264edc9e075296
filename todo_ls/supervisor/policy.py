"""When to nudge (docs/supervisor.md, rules 1-7). Pure: time comes in as `now`.

`evaluate` looks at one root session (its `TreeView`), the open items of its sources, its pause
and its nudge history, and says what to send now (or why not), which state word the status shows,
and when to look again, so the runtime arms exactly one timer per session.

`evaluate_stop` is the same policy for a host that asks at the end of each turn whether its
agent may stop (a Stop hook): that question *is* the confirmed end of turn, and the answer
cannot wait, so the settle delay and the rate limit become a rule about progress (block again
only when the open set changed or the agent did work since the last block).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal, NamedTuple, Protocol

from todo_ls.checklist.model import FileItem
from todo_ls.core.clock import CLOCK_SET_BACK_S

if TYPE_CHECKING:  # the Stop hook uses this module without the activity model (start-up time)
    from todo_ls.supervisor.activity import TreeView

SessionState = Literal["working", "idle", "waiting", "stalled", "paused", "done"]
NudgeKind = Literal["idle", "stall"]

# The most urgent first: the aggregate state of a workspace is the first one any session has.
STATE_URGENCY: tuple[SessionState, ...] = (
    "waiting",
    "stalled",
    "working",
    "paused",
    "idle",
    "done",
)

SETTLING = "settling after the end of the turn"
# Pauses a real user prompt lifts; a pause made by the pause command waits for resume.
LIFTED_BY_PROMPT = frozenset({"interrupt", "error", "no-progress", "episode-cap"})
NO_PROGRESS_SINCE = "open items unchanged and no activity since nudge #{}"
_TODO_STATES = {"pending": "open", "in_progress": "inProgress"}


class OpenItem(NamedTuple):
    """One open item of any source: a session todo or a task item of a subscribed file."""

    text: str
    state: str  # "open" | "inProgress" | "blocked"
    ref: str | None = None  # `path:line` for file items
    priority: str | None = None

    @property
    def blocked(self) -> bool:
        return self.state == "blocked"

    @property
    def key(self) -> str:
        # Without the line number: inserting a line above an item is not progress.
        path = self.ref.rsplit(":", 1)[0] if self.ref else ""
        return f"{path}\x1f{self.state}\x1f{self.text}"


class OpenSet(NamedTuple):
    """The open items of a session's sources and how many items there are in all."""

    items: tuple[OpenItem, ...]
    total: int

    @property
    def actionable(self) -> tuple[OpenItem, ...]:
        """Open items that may be the subject of a nudge (blocked ones wait for a human)."""
        return tuple(i for i in self.items if not i.blocked)

    @property
    def has_file_items(self) -> bool:
        return any(i.ref for i in self.items)

    @property
    def hash(self) -> str:
        """Identifies the open set (order-insensitive); "" when nothing is open."""
        if not self.items:
            return ""
        keys = "\n".join(sorted(i.key for i in self.items))
        return hashlib.sha256(keys.encode()).hexdigest()[:16]


class TodoEntry(Protocol):
    """An entry of a session's own todo list (`events.SessionTodo` and the hook's)."""

    @property
    def content(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def priority(self) -> str | None: ...


def open_set(todos: Iterable[TodoEntry], file_items: Iterable[FileItem]) -> OpenSet:
    """Open items from the session's todo list plus the subscribed files of its folder."""
    items: list[OpenItem] = []
    total = 0
    for todo in todos:
        total += 1
        state = _TODO_STATES.get(todo.status)
        if state:
            items.append(OpenItem(todo.content.strip(), state, None, todo.priority))
    for item in file_items:
        total += 1
        if item.state in ("open", "inProgress", "blocked"):
            items.append(OpenItem(item.text, item.state, item.ref))
    return OpenSet(tuple(items), total)


class PolicySettings(Protocol):
    """The settings the policy reads (`settings.model.SupervisorSettings` has them; the Stop
    hook passes its own small object so that it never loads pydantic)."""

    @property
    def settle_ms(self) -> int: ...
    @property
    def min_nudge_interval_ms(self) -> int: ...
    @property
    def stall_minutes(self) -> float: ...
    @property
    def max_no_progress_nudges(self) -> int: ...
    @property
    def max_nudges_per_episode(self) -> int: ...


class NudgeHistory(NamedTuple):
    """What the shared store knows about earlier nudges of the session (all processes)."""

    last_at: float | None = None  # the latest sent nudge
    last_hash: str | None = None
    last_number: int = 0
    episode_count: int = 0  # sent since the last real user prompt
    same_hash_streak: int = 0  # latest nudges of this episode, in a row, for the current set


class NudgeLedger(Protocol):
    """What the nudge history is read from (the shared store)."""

    def last_sent(self, session_id: str) -> _SentNudge | None: ...
    def episode_nudge_count(self, session_id: str) -> int: ...
    def consecutive_same_hash(self, session_id: str, open_hash: str) -> int: ...


class _SentNudge(Protocol):
    @property
    def at(self) -> float: ...
    @property
    def open_hash(self) -> str: ...
    @property
    def number(self) -> int: ...


def read_history(ledger: NudgeLedger, session_id: str, open_hash: str) -> NudgeHistory:
    """The session's nudge history for the open set `open_hash`, from every process."""
    last = ledger.last_sent(session_id)
    return NudgeHistory(
        last_at=last.at if last else None,
        last_hash=last.open_hash if last else None,
        last_number=last.number if last else 0,
        episode_count=ledger.episode_nudge_count(session_id),
        same_hash_streak=ledger.consecutive_same_hash(session_id, open_hash),
    )


class Decision(NamedTuple):
    """The outcome of one evaluation."""

    state: SessionState
    send: NudgeKind | None  # a nudge to send now
    reason: str  # why it sends, or why not
    wake_at: float | None  # evaluate again then (None: only on the next event)
    paused_reason: str | None
    open_hash: str
    quiet_for: float  # seconds since the last activity


def evaluate(
    view: TreeView,
    items: OpenSet,
    settings: PolicySettings,
    now: float,
    pause_reason: str | None,
    history: NudgeHistory,
    hold_until: float | None = None,
) -> Decision:
    """Apply rules 1-5 (docs/supervisor.md) to a root session. `pause_reason` is the stored pause
    (interrupt / user); `hold_until` delays a retry after a failed delivery."""
    stall_s = settings.stall_minutes * 60.0
    quiet_ref = max(view.last_activity, view.retry_until or 0.0)
    quiet = max(0.0, now - view.last_activity)
    actionable = items.actionable
    pause_reason = _cap_pause(pause_reason, items, settings, history)

    def decide(
        state: SessionState,
        reason: str,
        wake_at: float | None = None,
        send: NudgeKind | None = None,
    ) -> Decision:
        return Decision(state, send, reason, wake_at, pause_reason, items.hash, quiet)

    if view.waiting:
        return decide("waiting", f"waiting for the user: {', '.join(view.waiting)}")
    if view.in_flight:
        stall_at = quiet_ref + stall_s
        stalled = now >= stall_at
        state: SessionState = "stalled" if stalled else "working"
        if pause_reason:
            return decide("paused", f"paused ({pause_reason})")
        if not items.items:
            return decide(state, "nothing open")
        if not actionable:
            return decide(state, "only blocked items are open")
        if not stalled:
            return decide(state, "working", stall_at)
        return _gate(decide, "stall", state, view, items, settings, now, history, hold_until)
    if not items.items:
        return decide("done", "nothing open")
    if pause_reason:
        return decide("paused", f"paused ({pause_reason})")
    if not actionable:
        return decide("waiting", "only blocked items are open: they wait for the user")
    if not view.engaged:
        return decide("idle", "no activity seen since todo-ls started watching")
    settle_s = settings.settle_ms / 1000.0 if view.session.ended_confirmed else stall_s
    due = (view.session.idle_since or now) + settle_s
    if now < due:
        return decide("idle", SETTLING, due)
    return _gate(decide, "idle", "idle", view, items, settings, now, history, hold_until)


def evaluate_stop(
    items: OpenSet,
    settings: PolicySettings,
    pause_reason: str | None,
    history: NudgeHistory,
    worked_since_last: bool,
) -> Decision:
    """Rules 1, 4 and 5 for an agent that asks whether it may stop (a Stop hook).

    The question is the confirmed end of the turn, so there is no settle delay, and a refused
    block is final for that turn, so there is no rate limit either: the session may be blocked
    again only when its open set changed or the agent did work since the last block
    (`worked_since_last`). The no-progress and per-episode caps hold as they do everywhere.
    `send` is "idle" when the agent must go on.
    """
    pause_reason = _cap_pause(pause_reason, items, settings, history)

    def decide(state: SessionState, reason: str, send: NudgeKind | None = None) -> Decision:
        return Decision(state, send, reason, None, pause_reason, items.hash, 0.0)

    if not items.items:
        return decide("done", "nothing open")
    if pause_reason:
        return decide("paused", f"paused ({pause_reason})")
    if not items.actionable:
        return decide("waiting", "only blocked items are open: they wait for the user")
    if history.last_hash == items.hash and history.last_at is not None and not worked_since_last:
        return decide("idle", NO_PROGRESS_SINCE.format(history.last_number))
    return decide("idle", "stopped with open items", "idle")


def _cap_pause(
    pause_reason: str | None, items: OpenSet, settings: PolicySettings, history: NudgeHistory
) -> str | None:
    """Rule 5: the stored pause, else the pause the nudge history has earned."""
    if pause_reason is None and items.actionable:
        if history.same_hash_streak >= settings.max_no_progress_nudges:
            return "no-progress"
        if history.episode_count >= settings.max_nudges_per_episode:
            return "episode-cap"
    return pause_reason


class _Decide(Protocol):
    def __call__(
        self,
        state: SessionState,
        reason: str,
        wake_at: float | None = None,
        send: NudgeKind | None = None,
    ) -> Decision: ...


def _gate(
    decide: _Decide,
    kind: NudgeKind,
    state: SessionState,
    view: TreeView,
    items: OpenSet,
    settings: PolicySettings,
    now: float,
    history: NudgeHistory,
    hold_until: float | None,
) -> Decision:
    """Rule 4: the rate limit and the open-set dedupe, then a failed delivery's back-off.

    A last nudge that reads far in the future was sent before the clock was set back: how
    long ago is unknown, so it limits nothing (as in the store's claim); the next one does.
    Work that reads far in the future was done before the set back, so before that one."""
    set_back = now + CLOCK_SET_BACK_S
    if history.last_at is not None and history.last_at <= set_back:
        allowed_at = history.last_at + settings.min_nudge_interval_ms / 1000.0
        if now < allowed_at:
            return decide(state, "rate limited", allowed_at)
        worked_since = history.last_at < view.last_work <= set_back
        if history.last_hash == items.hash and not worked_since:
            return decide(state, NO_PROGRESS_SINCE.format(history.last_number))
    if hold_until is not None and now < hold_until:
        return decide(state, "retrying after a failed delivery", hold_until)
    why = (
        f"quiet for {now - view.last_activity:.0f}s with work in flight"
        if kind == "stall"
        else "idle with open items"
    )
    return decide(state, why, None, kind)


def aggregate_state(states: Iterable[SessionState]) -> SessionState | None:
    """The most urgent state of several sessions (None for none)."""
    present = set(states)
    return next((s for s in STATE_URGENCY if s in present), None)
