"""The activity tracker: spans, ends of turn, healing, children, resync (pure, no clock)."""

from __future__ import annotations

from todo_ls.core import events as ev
from todo_ls.supervisor.activity import Interrupted, SessionGone, Tracker, UserPrompted

S = "ses_root"
C = "ses_child"


def feed(tracker: Tracker, *events: ev.HostEvent, at: float = 100.0) -> list[object]:
    effects: list[object] = []
    for event in events:
        effects += tracker.apply(event, at).effects
    return effects


def started(tracker: Tracker, at: float = 100.0) -> None:
    feed(
        tracker,
        ev.SessionUpdated(ev.SessionInfo(S, "/p", None, "plan")),
        ev.UserMessage(S, False, "msg_1"),
        ev.TurnStarted(S),
        at=at,
    )


def test_repeated_busy_is_one_turn_and_tool_calls_finish_keeps_it_open() -> None:
    t = Tracker()
    started(t)
    feed(t, ev.StepStarted(S, "m1"), ev.TurnStarted(S), ev.StepEnded(S, "m1", "tool-calls"))
    assert t.view(S).in_flight
    feed(t, ev.TurnStarted(S), ev.StepEnded(S, "m2", "unknown"))
    assert t.view(S).in_flight
    assert t.sessions[S].turn_seq == 0
    assert not t.sessions[S].ended_confirmed


def test_step_finish_stop_is_a_confirmed_end_of_turn() -> None:
    t = Tracker()
    started(t)
    feed(t, ev.StepStarted(S, "m1"), ev.StepEnded(S, "m1", "stop"), at=110.0)
    session = t.sessions[S]
    assert not t.view(S).in_flight
    assert session.ended_confirmed
    assert session.idle_since == 110.0


def test_double_idle_after_abort_is_handled_once() -> None:
    t = Tracker()
    started(t)
    feed(t, ev.ToolStarted(S, "c1", "bash", "sleep 30"))
    effects = feed(t, ev.TurnEnded(S, "interrupted", "MessageAbortedError", True), at=101.0)
    assert effects == [Interrupted(S, "interrupted by the user (MessageAbortedError)")]
    assert t.sessions[S].idle_since == 101.0
    # v1 sends the idle pair twice (and once more after the aborted tool part completes)
    effects = feed(t, ev.TurnEnded(S, "idle"), ev.TurnEnded(S, "idle"), at=101.05)
    effects += feed(t, ev.ToolEnded(S, "c1"), ev.TurnEnded(S, "idle"), at=101.07)
    assert effects == []
    assert t.sessions[S].idle_since == 101.0
    assert t.sessions[S].last_outcome == "interrupted"


def test_interrupt_not_by_user_does_not_pause() -> None:
    t = Tracker()
    started(t)
    assert feed(t, ev.TurnEnded(S, "interrupted", "superseded", by_user=False)) == []
    assert not t.view(S).in_flight


def test_a_second_turn_can_be_interrupted_again() -> None:
    t = Tracker()
    started(t)
    assert len(feed(t, ev.TurnEnded(S, "interrupted", None, True))) == 1
    feed(t, ev.TurnStarted(S))
    assert len(feed(t, ev.TurnEnded(S, "interrupted", None, True))) == 1


def test_shutdown_is_not_an_end_of_turn() -> None:
    t = Tracker()
    started(t)
    feed(t, ev.TurnEnded(S, "shutdown"))
    assert t.view(S).in_flight
    assert not t.sessions[S].ended_confirmed


def test_end_of_turn_heals_lost_closes_but_keeps_background_shells() -> None:
    t = Tracker()
    started(t)
    feed(
        t,
        ev.StepStarted(S, "m1"),
        ev.SpanStarted(S, "text", "p1"),
        ev.SpanStarted(S, "reasoning", "p2"),
        ev.ToolStarted(S, "c1", "bash", "make"),
        ev.PermissionAsked(S, "per_1", "bash rm"),
        ev.ShellStarted(S, "sh_1", "sleep 200", None),
    )
    feed(t, ev.TurnEnded(S, "failed", "APIError"))
    session = t.sessions[S]
    assert not (session.steps or session.spans or session.tools or session.permissions)
    assert session.shells  # a background shell outlives the turn
    assert t.view(S).in_flight
    feed(t, ev.ShellEnded(S, "sh_1"), at=130.0)
    assert not t.view(S).in_flight
    assert session.idle_since == 130.0


def test_permission_is_waiting_and_reject_interrupts() -> None:
    t = Tracker()
    started(t)
    feed(t, ev.PermissionAsked(S, "per_1", "bash ls /etc/hostname"))
    assert t.view(S).waiting == ("bash ls /etc/hostname",)
    effects = feed(t, ev.PermissionReplied(S, "per_1", "reject"))
    assert effects == [Interrupted(S, "permission rejected")]
    assert t.view(S).waiting == ()
    feed(t, ev.PermissionAsked(S, "per_2", "bash ls"))
    assert feed(t, ev.PermissionReplied(S, "per_2", "once")) == []


def test_user_messages_real_synthetic_duplicate_and_child() -> None:
    t = Tracker()
    feed(t, ev.SessionUpdated(ev.SessionInfo(S, "/p")))
    assert feed(t, ev.UserMessage(S, False, "msg_1")) == [UserPrompted(S)]
    assert feed(t, ev.UserMessage(S, False, "msg_1")) == []  # v1 re-sends it at turn end
    assert feed(t, ev.UserMessage(S, True, "msg_2")) == []
    feed(t, ev.SessionUpdated(ev.SessionInfo(C, "/p", S)))
    assert feed(t, ev.UserMessage(C, False, "msg_3")) == []  # the subagent's task prompt


def test_long_lived_session_counts_each_prompt_once_in_bounded_memory() -> None:
    # 1,000 turns, each with a prompt and 3 more queued while it ran; at the turn end v1
    # re-sends the turn's messages. Every prompt starts one episode, no re-send another, and
    # the session remembers a window of ids, not its whole history (the window once held 256
    # ids, ~25 KB a session, which a server watching busy agents for days kept filling).
    t = Tracker()
    feed(t, ev.SessionUpdated(ev.SessionInfo(S, "/p")))
    prompted = 0
    for turn in range(1000):
        ids = [f"msg_{turn}_{n}" for n in range(4)]
        prompted += len(feed(t, ev.UserMessage(S, False, ids[0]), ev.TurnStarted(S)))
        prompted += len(feed(t, *(ev.UserMessage(S, False, i) for i in ids[1:])))
        feed(t, ev.TurnEnded(S, "idle"))
        assert feed(t, *(ev.UserMessage(S, False, i) for i in ids)) == []
    assert prompted == 4000
    assert len(t.sessions[S].seen_messages) <= 32


def test_synthetic_message_is_not_work_but_real_prompt_engages() -> None:
    t = Tracker()
    feed(t, ev.SessionUpdated(ev.SessionInfo(S, "/p")), at=10.0)
    feed(t, ev.UserMessage(S, True, "m1"), at=20.0)
    assert not t.view(S).engaged
    assert t.sessions[S].last_work == 0.0
    feed(t, ev.UserMessage(S, False, "m2"), at=30.0)
    assert t.view(S).engaged
    assert t.sessions[S].last_work == 30.0


def test_busy_child_keeps_root_working_and_its_activity_is_the_roots() -> None:
    t = Tracker()
    started(t, at=100.0)
    feed(t, ev.ToolStarted(S, "c1", "task", "Explore repo", C), at=101.0)
    assert t.sessions[C].parent_id == S
    assert t.root_of(C) == S
    feed(t, ev.ToolEnded(S, "c1"), ev.TurnEnded(S, "idle"), at=102.0)  # root idle
    feed(t, ev.TurnStarted(C), ev.SpanStarted(C, "text", "p"), at=103.0)
    view = t.view(S)
    assert view.in_flight
    assert view.counts["children"] == 1
    assert view.last_activity == 103.0
    assert any(s.startswith(f"subagent {C}") for s in view.quiet_sources)
    feed(t, ev.TurnEnded(C, "idle"), at=104.0)
    assert not t.view(S).in_flight  # the child's idle ends what kept the root busy


def test_child_idle_does_not_make_a_busy_root_idle() -> None:
    t = Tracker()
    started(t)
    feed(t, ev.SessionUpdated(ev.SessionInfo(C, "/p", S)), ev.TurnStarted(C))
    applied = t.apply(ev.TurnEnded(C, "idle"), 101.0)
    assert applied.touched == {S}  # evaluate the root, never the child
    assert t.view(S).in_flight


def test_retry_is_known_until_next_attempt() -> None:
    t = Tracker()
    started(t)
    feed(t, ev.Retrying(S, 2, 160.0, "rate limited"))
    view = t.view(S)
    assert view.retry_until == 160.0
    assert "provider retry #2" in view.quiet_sources
    feed(t, ev.TurnStarted(S))
    assert t.view(S).retry_until is None


def test_quiet_sources_name_the_work() -> None:
    t = Tracker()
    started(t)
    feed(
        t,
        ev.ToolStarted(S, "c1", "bash", "pytest -x"),
        ev.ShellStarted(S, "sh", "sleep 200"),
        ev.InputQueued(S, "in_1"),
    )
    sources = t.view(S).quiet_sources
    assert 'tool bash "pytest -x"' in sources
    assert 'background shell "sleep 200"' in sources
    assert "1 queued input" in sources
    t2 = Tracker()
    started(t2)
    feed(t2, ev.StepStarted(S, "m"))
    assert t2.view(S).quiet_sources == ("open step",)


def test_activity_only_moves_the_quiet_clock() -> None:
    t = Tracker()
    started(t, at=100.0)
    applied = t.apply(ev.Activity(S), 150.0)
    assert not applied.structural
    assert t.sessions[S].last_activity == 150.0
    assert t.sessions[S].last_work == 100.0
    feed(t, ev.ToolStarted(S, "c", "bash", "x"))
    assert not t.apply(ev.ToolProgress(S, "c"), 151.0).structural
    assert t.sessions[S].last_work == 151.0  # output of a running tool is work


def test_resync_marks_busy_sessions_and_heals_the_rest() -> None:
    t = Tracker()
    started(t, at=100.0)
    feed(t, ev.ToolStarted(S, "c1", "bash", "x"))
    snapshot = ev.Resynced(
        busy={"ses_other": "busy"},
        sessions=(ev.SessionInfo("ses_other", "/p"), ev.SessionInfo("ses_old", "/p")),
        todos={"ses_old": (ev.SessionTodo("a", "pending"),)},
    )
    applied = t.apply(snapshot, 200.0)
    assert {S, "ses_other", "ses_old"} <= applied.touched
    assert not t.view(S).in_flight
    assert t.sessions[S].idle_since == 200.0
    assert t.view("ses_other").in_flight and t.view("ses_other").engaged
    assert not t.view("ses_old").engaged  # idle since before we watched: not ours to nudge
    assert t.sessions["ses_old"].todos[0].content == "a"


def test_delete_drops_the_session_and_its_children() -> None:
    t = Tracker()
    started(t)
    feed(t, ev.SessionUpdated(ev.SessionInfo(C, "/p", S)))
    effects = feed(t, ev.SessionDeleted(S))
    assert set(effects) == {SessionGone(S), SessionGone(C)}
    assert t.sessions == {}


def test_parent_cycles_do_not_hang() -> None:
    t = Tracker()
    feed(t, ev.SessionUpdated(ev.SessionInfo("a", "/p", "b")))
    feed(t, ev.SessionUpdated(ev.SessionInfo("b", "/p", "a")))
    assert t.root_of("a") in {"a", "b"}
    assert [s.id for s in t.descendants("a")] == ["b"]
