"""The predicates that let an event skip the re-evaluation of its session (supervisor/skips.py),
as tables: each row a session as the tracker has it, an event, and whether it may skip."""

from __future__ import annotations

import pytest

from todo_ls.core import events as ev
from todo_ls.supervisor.activity import SessionActivity, ToolRun
from todo_ls.supervisor.policy import Decision
from todo_ls.supervisor.skips import decided_calmly, repeats_busy, repeats_end, still_working

S = "ses_a"


def session(**fields: object) -> SessionActivity:
    return SessionActivity(id=S, first_seen=100.0, **fields)  # type: ignore[arg-type]


def ended() -> SessionActivity:
    """A session whose turn ended (confirmed), nothing in flight since."""
    return session(ended_confirmed=True, turn_seq=2, ended_seq=2, engaged=True)


def working() -> SessionActivity:
    return session(busy="busy", engaged=True, tools={"c1": ToolRun("bash", "make", None)})


def decision(state: str = "working", send: str | None = None) -> Decision:
    return Decision(state, send, "why", None, None, "h", 0.0)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("event", "before", "skips"),
    [
        (ev.TurnStarted(S), session(busy="busy"), True),  # 1.x repeats busy with every step
        (ev.TurnStarted(S), session(busy="retry"), False),  # a retry that works again
        (ev.TurnStarted(S), session(busy="busy", retry_next_at=200.0), False),
        (ev.TurnStarted(S), session(), False),  # a new turn
        (ev.TurnStarted(S), None, False),  # a session never seen
        (ev.StepStarted(S, "s1"), session(busy="busy"), False),
    ],
)
def test_a_repeated_busy_status(
    event: ev.HostEvent, before: SessionActivity | None, skips: bool
) -> None:
    assert repeats_busy(event, before) is skips


@pytest.mark.parametrize(
    ("event", "before", "skips"),
    [
        (ev.TurnEnded(S, "idle"), ended(), True),
        (ev.TurnEnded(S, "completed"), ended(), True),
        (ev.StepEnded(S, "s2", "stop"), ended(), True),  # the final step of 1.x
        (ev.StepEnded(S, "s2", "tool-calls"), ended(), False),  # the turn goes on
        (ev.StepEnded(S, "s2", None), ended(), False),
        (ev.TurnEnded(S, "interrupted"), ended(), False),  # an interrupt is news
        (ev.TurnEnded(S, "idle"), session(ended_confirmed=True, turn_seq=3, ended_seq=2), False),
        (ev.TurnEnded(S, "idle"), session(turn_seq=2, ended_seq=2), False),  # never confirmed
        (ev.TurnEnded(S, "idle"), working(), False),  # in flight: a real end
        (ev.TurnEnded(S, "idle"), None, False),
        (ev.TurnStarted(S), ended(), False),
    ],
)
def test_a_repeated_end_of_turn(
    event: ev.HostEvent, before: SessionActivity | None, skips: bool
) -> None:
    assert repeats_end(event, before) is skips


@pytest.mark.parametrize(
    ("found", "sending", "calm"),
    [
        (decision("idle"), False, True),
        (decision("idle", send="idle"), False, False),  # a nudge is due: decide again
        (decision("idle"), True, False),  # a nudge on its way: its outcome decides
        (None, False, False),  # never decided
    ],
)
def test_a_calm_decision(found: Decision | None, sending: bool, calm: bool) -> None:
    assert decided_calmly(found, sending) is calm


@pytest.mark.parametrize(
    ("event", "repeat", "after", "found", "sending", "skips"),
    [
        (ev.ToolProgress(S, "c1"), False, working(), decision(), False, True),
        (ev.SpanStarted(S, "text", "p1"), False, working(), decision(), False, True),
        (ev.ToolEnded(S, "c0"), False, working(), decision(), False, True),
        (ev.TurnStarted(S), True, working(), decision(), False, True),  # a repeated busy
        (ev.TurnStarted(S), False, working(), decision(), False, False),
        (ev.ToolProgress(S, "c1"), False, working(), decision("stalled"), False, False),
        (ev.ToolProgress(S, "c1"), False, working(), None, False, False),
        (ev.ToolProgress(S, "c1"), False, working(), decision(), True, False),
        (ev.ToolEnded(S, "c1"), False, session(engaged=True), decision(), False, False),
        (ev.ToolProgress(S, "c1"), False, session(busy="busy"), decision(), False, False),
        (
            ev.ToolProgress(S, "c1"),
            False,
            session(busy="busy", engaged=True, permissions={"p": "bash"}),
            decision(),
            False,
            False,
        ),
        (ev.ToolProgress(S, "c1"), False, None, decision(), False, False),
    ],
)
def test_work_that_goes_on(
    event: ev.HostEvent,
    repeat: bool,
    after: SessionActivity | None,
    found: Decision | None,
    sending: bool,
    skips: bool,
) -> None:
    assert still_working(event, repeat, after, found, sending) is skips
