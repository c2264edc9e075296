"""Delivering one nudge: claim it in the shared store, re-check that it is still due, send it,
record the outcome (docs/supervisor.md, "Exactly one nudge per opportunity" and rule 7).

`Delivery.deliver` changes nothing of the runtime: it returns an `Outcome` (sent, or why not,
and what follows: a hold, a fault to show, a session the host no longer knows) that
`Runtime` applies in one place.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from todo_ls.core import events as ev
from todo_ls.core.clock import Clock
from todo_ls.hosts.base import Capability, Host, HostError
from todo_ls.settings.model import SupervisorSettings
from todo_ls.store import Store
from todo_ls.supervisor.activity import Tracker, TreeView
from todo_ls.supervisor.policy import Decision, OpenSet
from todo_ls.supervisor.shared_fetch import SharedFetch
from todo_ls.supervisor.text import Nudge

log = logging.getLogger(__name__)

CLAIM_EXPIRY_S = 60.0  # a claim whose holder died stops blocking others after this
LOST_CLAIM_RETRY_S = 10.0  # another process holds the claim: look again after this
LOST_CLAIM = "another todo-ls process is nudging this session"
GONE = "session not found"

# The policy's decision for a session now, with what it was made from (`Runtime.decide`).
Decide = Callable[[str], tuple[Decision, TreeView, OpenSet]]


@dataclass(frozen=True)
class NudgeSent:
    session_id: str
    kind: str
    number: int
    headline: str


@dataclass(frozen=True)
class Outcome:
    """What one delivery came to."""

    sent: NudgeSent | None = None
    why: str | None = None  # why nothing was sent (None when it was)
    hold_until: float | None = None  # decide nothing before then
    error: str | None = None  # a fault of the host to show in the status
    gone: bool = False  # the host no longer knows the session: drop it


class Delivery:
    """Claims, re-checks and sends the nudges of one runtime."""

    def __init__(
        self, store: Store, clock: Clock, tracker: Tracker, decide: Decide, owner: str
    ) -> None:
        self._store = store
        self._clock = clock
        self._tracker = tracker
        self._decide = decide
        self._owner = owner
        self._busy_snapshots: tuple[Host, SharedFetch[Mapping[str, ev.BusyKind]]] | None = None

    async def deliver(
        self, host: Host, session_id: str, manual: bool, settings: SupervisorSettings
    ) -> Outcome:
        """One nudge of `session_id` (`manual`: the nudge command's), if still due."""
        decision, view, items = self._decide(session_id)
        kind = "manual" if manual else decision.send
        if kind is None:
            return Outcome(why=decision.reason)
        now = self._clock.now()
        min_interval = 0.0 if manual else settings.min_nudge_interval_ms / 1000.0
        claim = self._store.claim_nudge(
            session_id, items.hash, kind, self._owner, now, min_interval, CLAIM_EXPIRY_S
        )
        if claim is None:
            log.info("supervisor: %s: another todo-ls process holds the nudge", session_id)
            return Outcome(why=LOST_CLAIM, hold_until=now + LOST_CLAIM_RETRY_S)
        sent = False
        sent_at = now
        try:
            why = await self._still_due(host, session_id, manual)
            if why is not None:
                return Outcome(why=why)
            decision, view, items = self._decide(session_id)
            nudge = Nudge(
                kind,
                claim.number,
                items,
                decision.quiet_for,
                view.quiet_sources,
                settings.stall_minutes,
            )
            # Recorded as sent when the request left: the agent may react (and finish a
            # whole turn) before the host answers, and that is activity after the nudge.
            sent_at = self._clock.now()
            await host.nudge(session_id, nudge.text(), f"todo-ls {kind} nudge #{claim.number}")
            sent = True
        except HostError as err:
            # Unanswered in time, the request may still have reached the agent: it counts as
            # sent, so the retry can never be a second nudge for the same opportunity.
            sent = err.kind == "timeout"
            return self._failed(session_id, err, settings)
        finally:
            outcome_at = sent_at if sent else self._clock.now()
            self._store.record_claim_outcome(claim.claim_id, sent, outcome_at)
        headline = nudge.headline()
        log.info("supervisor: nudged %s: %s", session_id, headline)
        return Outcome(sent=NudgeSent(session_id, kind, claim.number, headline))

    async def _still_due(self, host: Host, session_id: str, manual: bool) -> str | None:
        """Rule 7: right before sending, the session must still be idle (no race with a
        prompt the user just sent) and the decision unchanged."""
        decision, view, items = self._decide(session_id)
        if view.waiting:
            return "waiting for the user"
        if manual and view.in_flight:
            return "the session is working"
        if not manual and decision.send is None:
            return decision.reason
        if not items.actionable:
            return "nothing open"
        checks_idle = manual or decision.send == "idle"
        if checks_idle and Capability.BUSY_SNAPSHOT in host.capabilities:
            busy = await self._busy_now(host)
            family = {session_id, *(c.id for c in self._tracker.descendants(session_id))}
            now = self._clock.now()
            hit = [sid for sid in family if sid in busy]
            for sid in hit:
                self._tracker.busy_seen(sid, busy[sid], now)
            if hit:
                return "the session is busy"
        if not manual:
            decision, view, items = self._decide(session_id)
            if decision.send is None:
                return decision.reason
        return None

    async def _busy_now(self, host: Host) -> Mapping[str, ev.BusyKind]:
        """The host's busy sessions, from a request sent after this call: nudges due at the
        same moment share one request (shared_fetch.py)."""
        if self._busy_snapshots is None or self._busy_snapshots[0] is not host:
            self._busy_snapshots = (host, SharedFetch(host.busy_sessions))
        return await self._busy_snapshots[1].get()

    def _failed(self, session_id: str, err: HostError, settings: SupervisorSettings) -> Outcome:
        if err.kind == "not-found":
            log.warning("supervisor: session %s is gone (%s); dropping it", session_id, err)
            return Outcome(why=GONE, gone=True)
        interval = settings.min_nudge_interval_ms / 1000.0
        log.warning("supervisor: nudge of %s failed: %s", session_id, err)
        return Outcome(
            why=f"delivery failed: {one_line(err)}",
            hold_until=self._clock.now() + max(interval, 5.0),
            error=f"nudge failed: {one_line(err)}",
        )

    async def close(self) -> None:
        """Stop the shared busy-snapshot request, if one runs."""
        if self._busy_snapshots is not None:
            await self._busy_snapshots[1].close()
            self._busy_snapshots = None


def one_line(err: BaseException) -> str:
    """The first line of an error, for a log line or the status."""
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__
