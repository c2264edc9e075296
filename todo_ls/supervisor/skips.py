"""When an event may skip the re-evaluation of its session (docs/supervisor.md, "Status").

Most events of a busy stream change nothing any decision reads: a tool's output, a repeated busy
status, the second and third end of one turn. Re-deciding the session on each of them would
come out the same and cost a store read. These predicates say so; they are pure (the event, the
session's activity, its stored decision and whether a nudge of it is on its way) and
table-tested in tests/unit/test_supervisor_skips.py.
"""

from __future__ import annotations

from todo_ls.core import events as ev
from todo_ls.supervisor.activity import CONTINUING_FINISHES, SessionActivity
from todo_ls.supervisor.policy import Decision

# Events that only show work going on; tools and steps also change the counts the status
# shows ("1 tool"), so they are published even when the decision stands.
COUNTED_WORK = (ev.ToolStarted, ev.ToolEnded, ev.StepStarted, ev.StepEnded)
_STILL_WORKING_EVENTS = (ev.SpanStarted, ev.SpanEnded, ev.ToolProgress, *COUNTED_WORK)


def repeats_busy(event: ev.HostEvent, session: SessionActivity | None) -> bool:
    """A turn start of a session that is busy and not retrying (`session` before the event):
    1.x repeats its busy status with every step, and such a repeat changes nothing but the
    quiet clock."""
    return (
        isinstance(event, ev.TurnStarted)
        and session is not None
        and session.busy == "busy"
        and session.retry_next_at is None
    )


def repeats_end(event: ev.HostEvent, session: SessionActivity | None) -> bool:
    """An end of turn (idle, completed, or a final step) of a session whose turn has already
    ended, with nothing in flight since (`session` before the event): 1.x ends every turn
    three times (the final step, `session.status` idle, `session.idle`). The tracker then only
    moves the quiet clock; the idle rules count from `idle_since`, which does not move, and what
    depends on the time (the settle, the rate limit, a hold) has its timer armed."""
    if isinstance(event, ev.TurnEnded):
        final = event.outcome in ("idle", "completed")
    elif isinstance(event, ev.StepEnded):
        final = event.finish is not None and event.finish not in CONTINUING_FINISHES
    else:
        return False
    return (
        final
        and session is not None
        and session.ended_confirmed
        and session.ended_seq == session.turn_seq
        and not session.in_flight
    )


def decided_calmly(decision: Decision | None, sending: bool) -> bool:
    """The session has a decision that starts nothing (no nudge due) and is not sending:
    re-deciding it on an event that changes nothing it reads would come out the same."""
    return decision is not None and not decision.send and not sending


def still_working(
    event: ev.HostEvent,
    repeat: bool,
    session: SessionActivity | None,
    decision: Decision | None,
    sending: bool,
) -> bool:
    """Work goes on: a span, tool or step event (or a repeated busy status, `repeat`) of a
    session that was working and still has work of its own in flight (`session` after the
    event) changes no decision. Skipping the evaluation leaves the stall timer armed earlier;
    when it falls due, the evaluation re-arms it from the latest activity."""
    return (
        (repeat or isinstance(event, _STILL_WORKING_EVENTS))
        and decision is not None
        and decision.state == "working"
        and session is not None
        and session.engaged
        and session.in_flight
        and not session.permissions
        and not sending
    )
