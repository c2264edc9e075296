"""The state machine and policy driven by the real OpenCode 1.18.33 events of the reference
sample (14 recorded scenarios), translated by the v1 adapter's pure `normalize`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from todo_ls.core import events as ev
from todo_ls.hosts.opencode_v1.events import V1Memory, normalize
from todo_ls.settings.model import SupervisorSettings
from todo_ls.supervisor.activity import (
    Interrupted,
    SessionGone,
    Tracker,
    TurnFailed,
    UserPrompted,
)
from todo_ls.supervisor.policy import Decision, NudgeHistory, evaluate, open_set

SAMPLE = Path(__file__).parents[1] / "hosts" / "data" / "opencode-v1-events-sample.jsonl"
SETTINGS = SupervisorSettings()


def rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip()]


@dataclass
class Replay:
    """One tracker fed scenario after scenario, evaluating every root after every event."""

    settings: SupervisorSettings = SETTINGS
    tracker: Tracker = field(default_factory=Tracker)
    memory: V1Memory = field(default_factory=V1Memory)
    effects: list[object] = field(default_factory=list)
    decisions: list[tuple[float, str, Decision]] = field(default_factory=list)
    touched: set[str] = field(default_factory=set)
    last_t: float = 0.0

    def run(self, *scenarios: str) -> Replay:
        for row in rows():
            if row["scenario"] in scenarios:
                for event in normalize(row["event"], self.memory):
                    self.feed(event, row["t"])
        return self

    def feed(self, event: ev.HostEvent, t: float) -> None:
        applied = self.tracker.apply(event, t)
        self.last_t = t
        self.effects += applied.effects
        self.touched |= applied.touched
        for sid in applied.touched:
            if sid in self.tracker.sessions:
                self.decisions.append((t, sid, self.decide(sid, t)))

    def decide(self, sid: str, now: float) -> Decision:
        view = self.tracker.view(sid)
        items = open_set(view.session.todos, [])
        return evaluate(view, items, self.settings, now, None, NudgeHistory())

    def sends(self) -> Iterator[tuple[float, str, Decision]]:
        return (d for d in self.decisions if d[2].send)


def only_root(replay: Replay) -> str:
    roots = [s.id for s in replay.tracker.roots()]
    assert len(roots) == 1
    return roots[0]


def test_todo_scenario_idle_nudge_after_settle_and_never_during_the_turn() -> None:
    r = Replay().run("todo")
    sid = only_root(r)
    assert not list(r.sends())  # repeated busy, tool-calls steps: no nudge while it works
    assert [d.state for _, _, d in r.decisions[:-1]].count("working") > 10
    end = r.tracker.sessions[sid].idle_since
    assert end is not None
    assert r.tracker.sessions[sid].ended_confirmed
    early = r.decide(sid, end + 1)
    assert (early.state, early.send, early.wake_at) == ("idle", None, end + 5)
    due = r.decide(sid, end + 5)
    assert due.send == "idle"
    assert [t.content for t in r.tracker.sessions[sid].todos if t.status != "completed"] == [
        "Write the parser",
        "Add unit tests",
        "Update the README",
    ]
    assert r.effects == [UserPrompted(sid)]


def test_synthetic_nudge_is_not_a_user_prompt_but_its_turn_is_work() -> None:
    r = Replay().run("todo")
    sid = only_root(r)
    before = len(r.effects)
    end_of_first = r.tracker.sessions[sid].idle_since
    r.run("nudge_synthetic")
    assert r.effects[before:] == []  # no new episode: it was our own kind of message
    session = r.tracker.sessions[sid]
    assert end_of_first is not None and session.last_work > end_of_first
    assert not list(r.sends())


def test_noreply_and_ignored_parts_real_prompts_start_episodes() -> None:
    r = Replay().run("todo", "noreply", "ignored_synthetic_parts")
    sid = only_root(r)
    # the todo prompt, the two noreply prompts and the visible part of the mixed message
    assert r.effects == [UserPrompted(sid)] * 4


@pytest.mark.parametrize("scenario", ["abort_tool", "abort_stream"])
def test_abort_interrupts_once_and_ends_the_turn(scenario: str) -> None:
    r = Replay().run(scenario)
    sid = only_root(r)
    interrupts = [e for e in r.effects if isinstance(e, Interrupted)]
    assert interrupts == [Interrupted(sid, "interrupted by the user (MessageAbortedError)")]
    assert not [e for e in r.effects if isinstance(e, TurnFailed)]  # an abort is no failure
    view = r.tracker.view(sid)
    assert not view.in_flight
    assert r.tracker.sessions[sid].last_outcome == "interrupted"


def replay_until(scenario: str, kind: type, settings: SupervisorSettings = SETTINGS) -> Replay:
    """Replay a scenario up to and including the first event of `kind`."""
    r = Replay(settings=settings)
    for row in rows():
        if row["scenario"] != scenario:
            continue
        events = normalize(row["event"], r.memory)
        for event in events:
            r.feed(event, row["t"])
        if any(isinstance(e, kind) for e in events):
            return r
    raise AssertionError(f"no {kind.__name__} in {scenario}")


def test_bash_tool_keeps_the_session_working_and_named() -> None:
    r = replay_until("bash", ev.ToolStarted)
    sid = only_root(r)
    assert 'tool bash "sleep 3; echo hi"' in r.tracker.view(sid).quiet_sources
    during = r.decide(sid, r.last_t + 3)  # the command printed nothing for 3 s
    assert (during.state, during.send) == ("working", None)
    assert not list(Replay().run("bash").sends())


def test_prompt_while_busy_is_folded_into_the_turn() -> None:
    r = Replay().run("busy_prompt")
    sid = only_root(r)
    assert [e for e in r.effects if isinstance(e, UserPrompted)] == [UserPrompted(sid)]
    # from the first busy until the final step the session never looked idle, also not
    # when the prompt arrived while the bash tool ran
    first_busy = next(t for t, _, d in r.decisions if d.state == "working")
    final_step = r.tracker.sessions[sid].idle_since
    assert final_step is not None
    resting = [t for t, _, d in r.decisions if d.state != "working" and t >= first_busy]
    assert min(resting) >= final_step
    assert not list(r.sends())


def test_subtask_child_is_never_a_candidate_and_keeps_its_root_working() -> None:
    r = Replay().run("subtask")
    roots = r.tracker.roots()
    assert len(roots) == 1
    root = roots[0].id
    children = [s.id for s in r.tracker.sessions.values() if s.parent_id == root]
    assert len(children) == 1
    assert r.touched == {root}  # the child's events re-evaluate its root only
    assert r.effects == [UserPrompted(root)]  # the subagent's prompt is not the user's
    # while the child ran, every decision about the root said working
    child_turn = [d.state for t, _, d in r.decisions if d.state != "done"]
    assert set(child_turn) <= {"working"}


def test_subtask_root_is_busy_while_only_the_child_is() -> None:
    r = Replay()
    child_started = False
    for row in rows():
        if row["scenario"] != "subtask":
            continue
        for event in normalize(row["event"], r.memory):
            r.feed(event, row["t"])
            if isinstance(event, ev.TurnStarted) and r.tracker.sessions[event.session_id].parent_id:
                child_started = True
                root = r.tracker.root_of(event.session_id)
                view = r.tracker.view(root)
                assert view.in_flight and view.counts["children"] == 1
    assert child_started


def test_retry_is_working_until_the_next_attempt() -> None:
    r = Replay().run("retry")
    assert "stalled" not in [d.state for _, _, d in r.decisions]
    r2 = replay_until("retry", ev.Retrying)
    sid = only_root(r2)
    view = r2.tracker.view(sid)
    assert view.retry_until == pytest.approx(1795985543.875)
    assert r2.decide(sid, r2.last_t + 1).state == "working"


def test_provider_error_is_a_confirmed_failed_end_seen_once() -> None:
    r = Replay().run("error")
    sid = only_root(r)
    session = r.tracker.sessions[sid]
    assert session.last_outcome == "failed"
    assert session.last_detail == "APIError: bad request (fake)"
    assert session.ended_confirmed and not r.tracker.view(sid).in_flight
    assert [e for e in r.effects if isinstance(e, Interrupted)] == []
    # Reported once although the real host follows the error with the idle pair twice.
    assert [e for e in r.effects if isinstance(e, TurnFailed)] == [
        TurnFailed(sid, "APIError: bad request (fake)")
    ]


def test_permission_waits_and_a_rejection_pauses() -> None:
    r = Replay().run("permission")
    sid = only_root(r)
    states = [d.state for _, _, d in r.decisions]
    assert "waiting" in states
    assert Interrupted(sid, "permission rejected") in r.effects
    assert not r.tracker.view(sid).waiting


def test_stall_scenario_silent_stream_is_a_stall_with_a_short_threshold() -> None:
    settings = SupervisorSettings(stall_minutes=0.05)  # 3 s; the model went silent for 5 s
    r = replay_until("stall", ev.SpanStarted, settings)
    sid = only_root(r)
    r.tracker.sessions[sid].todos = (ev.SessionTodo("Finish", "pending"),)
    quiet = r.decide(sid, r.last_t + 2)
    assert (quiet.state, quiet.send) == ("working", None)
    stalled = r.decide(sid, r.last_t + 3.5)
    assert (stalled.state, stalled.send) == ("stalled", "stall")
    assert "writing" in r.tracker.view(sid).quiet_sources


def test_delete() -> None:
    r = Replay().run("todo", "delete")
    assert any(isinstance(e, SessionGone) for e in r.effects)
    assert r.tracker.sessions == {}


def test_the_whole_sample_in_order() -> None:
    r = Replay()
    scenarios = list(dict.fromkeys(row["scenario"] for row in rows()))
    r.run(*scenarios)
    for session in r.tracker.sessions.values():
        assert not r.tracker.view(r.tracker.root_of(session.id)).in_flight, session.id
    prompts = [e for e in r.effects if isinstance(e, UserPrompted)]
    interrupts = [e for e in r.effects if isinstance(e, Interrupted)]
    assert len(interrupts) == 3  # two aborts, one rejected permission
    # one per real prompt of a root session: 12 scenarios, noreply has two; the nudge,
    # the prompt sent while busy (synthetic) and the subagent's task prompt do not count
    assert len(prompts) == 13
    assert not list(r.sends())  # no session of the sample has open todos at an idle moment
