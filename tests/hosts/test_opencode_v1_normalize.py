"""`normalize` over the real 1.18.33 events of the reference sample (14 recorded scenarios)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from todo_ls.core.events import (
    Activity,
    PermissionAsked,
    PermissionReplied,
    Retrying,
    SessionDeleted,
    SessionEvent,
    SessionUpdated,
    SpanEnded,
    SpanStarted,
    StepEnded,
    StepStarted,
    TodosUpdated,
    ToolEnded,
    ToolProgress,
    ToolStarted,
    TurnEnded,
    UserMessage,
)
from todo_ls.hosts.opencode_v1.events import V1Memory, normalize, normalize_all

SAMPLE = Path(__file__).parent / "data" / "opencode-v1-events-sample.jsonl"


def _scenarios() -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in SAMPLE.read_text().splitlines():
        record = json.loads(line)
        found[record["scenario"]].append(record["event"])
    return found


SCENARIOS = _scenarios()


def _run(name: str) -> list[SessionEvent]:
    memory = V1Memory()
    events = normalize_all(SCENARIOS[name], memory)
    assert memory.unknown_types == set()  # every observed type is known (or known noise)
    return events


def _of(events: list[SessionEvent], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def test_todo_turn() -> None:
    events = _run("todo")
    assert [(u.synthetic) for u in _of(events, UserMessage)] == [False]
    [todos] = _of(events, TodosUpdated)
    assert [(t.content, t.status, t.priority) for t in todos.todos] == [
        ("Write the parser", "in_progress", "high"),
        ("Add unit tests", "pending", "medium"),
        ("Update the README", "pending", "low"),
    ]
    assert [e.finish for e in _of(events, StepEnded)] == ["tool-calls", "stop"]
    assert [e.tool for e in _of(events, ToolStarted)] == ["todowrite"]
    # after the end of turn only info follows: nothing that looks like work
    work = [e for e in events if not isinstance(e, SessionUpdated)]
    assert work[-1] == TurnEnded(work[-1].session_id, "idle")
    title = [e.info.title for e in _of(events, SessionUpdated)][-1]
    assert title == "Plan three tasks"


def test_spans_and_steps_are_balanced_in_every_completed_scenario() -> None:
    for name in SCENARIOS:
        events = _run(name)
        started = {(e.kind, e.span_id) for e in _of(events, SpanStarted)}
        ended = {(e.kind, e.span_id) for e in _of(events, SpanEnded)}
        assert started <= ended, name  # nothing left open once the turn is over
        steps = {e.step_id for e in _of(events, StepStarted)}
        finished = {e.step_id for e in _of(events, StepEnded)}
        if name not in ("abort_tool", "abort_stream", "error", "stall", "permission"):
            assert steps == finished, name


def test_nudge_is_a_synthetic_user_message_and_ignored_parts_are_not_input() -> None:
    assert [u.synthetic for u in _of(_run("nudge_synthetic"), UserMessage)] == [True]
    # one visible, one ignored and one synthetic part in the same message
    assert [u.synthetic for u in _of(_run("ignored_synthetic_parts"), UserMessage)] == [
        False,
        True,
    ]


def test_bash_tool_title_and_output_progress() -> None:
    events = _run("bash")
    [started] = _of(events, ToolStarted)
    assert (started.tool, started.title) == ("bash", "sleep 3; echo hi")
    assert len(_of(events, ToolProgress)) >= 1  # the output grew while it ran
    assert _of(events, ToolEnded)[0].ok


def test_user_abort_is_an_interrupt_by_the_user() -> None:
    for name in ("abort_tool", "abort_stream"):
        ends = _of(_run(name), TurnEnded)
        assert ends[0].outcome == "interrupted"
        assert ends[0].by_user
        assert {e.outcome for e in ends[1:]} == {"idle"}


def test_provider_error_fails_the_turn_with_detail() -> None:
    failed = [e for e in _of(_run("error"), TurnEnded) if e.outcome == "failed"]
    assert [e.detail for e in failed] == ["APIError: bad request (fake)"]


def test_retry_time_is_epoch_seconds() -> None:
    [retry] = _of(_run("retry"), Retrying)
    assert retry.attempt == 1
    assert retry.next_at == pytest.approx(1795985543.875)
    assert retry.message == "rate limited (fake)"


def test_child_session_via_task_tool() -> None:
    events = _run("subtask")
    [task] = [e for e in _of(events, ToolStarted) if e.tool == "task"]
    assert task.title == "Explore repo"
    child = [e.info for e in _of(events, SessionUpdated) if e.info.parent_id]
    assert child and child[0].id == task.child_session_id
    assert child[0].parent_id == task.session_id


def test_permission_asked_and_replied() -> None:
    events = _run("permission")
    [asked] = _of(events, PermissionAsked)
    [replied] = _of(events, PermissionReplied)
    assert asked.what == "bash ls /etc/hostname"
    assert (replied.request_id, replied.reply) == (asked.request_id, "reject")
    assert [e.ok for e in _of(events, ToolEnded)] == [False]


def test_delete_and_global_envelope() -> None:
    [deleted] = SCENARIOS["delete"]
    assert normalize(deleted) == [SessionDeleted(deleted["properties"]["sessionID"])]
    wrapped = {"directory": "/p", "project": "global", "payload": deleted}
    assert normalize(wrapped) == normalize(deleted)


def test_noise_garbage_and_unknown_types() -> None:
    memory = V1Memory()
    assert normalize({"type": "server.heartbeat", "properties": {}}, memory) == []
    assert normalize({"type": "plugin.added", "properties": {"id": "x"}}, memory) == []
    assert normalize({"nonsense": True}, memory) == []
    assert normalize({"type": "brand.new", "properties": {"sessionID": "ses_1"}}, memory) == []
    assert memory.unknown_types == {"brand.new"}
    assert normalize({"type": "message.part.delta", "properties": {"sessionID": "s"}}) == [
        Activity("s")
    ]


def test_memory_stays_bounded() -> None:
    memory = V1Memory()
    for n in range(5000):
        normalize(
            {
                "type": "message.updated",
                "properties": {"sessionID": "s", "info": {"id": f"msg_{n}", "role": "user"}},
            },
            memory,
        )
    assert len(memory.roles.ordered_keys()) == 1024


# --- Kilo's `kilo serve` (7.7.9): the same stream plus its turn events ---------------------


def _kilo(etype: str, **props: object) -> dict[str, object]:
    return {"type": etype, "properties": {"sessionID": "ses_k", **props}}


def test_kilo_turn_close_completed_ends_the_turn_and_closes_its_spans() -> None:
    memory = V1Memory()
    text_part = {"id": "prt_1", "messageID": "msg_1", "type": "text", "time": {"start": 1}}
    normalize(_kilo("message.part.updated", part=text_part), memory)
    assert normalize(_kilo("session.turn.open"), memory) == []  # the busy status says it
    assert normalize(_kilo("session.turn.close", reason="completed"), memory) == [
        SpanEnded("ses_k", "text", "prt_1"),
        TurnEnded("ses_k", "completed"),
    ]
    assert memory.unknown_types == set()


def test_kilo_turn_close_interrupted_is_a_user_abort() -> None:
    [event] = normalize(_kilo("session.turn.close", reason="interrupted"))
    assert event == TurnEnded("ses_k", "interrupted", "turn interrupted", by_user=True)


def test_kilo_turn_close_for_an_error_or_a_superseded_turn_says_nothing_new() -> None:
    # The error comes as `session.error` with its message; a superseded turn's work goes on.
    assert normalize(_kilo("session.turn.close", reason="error")) == []
    assert normalize(_kilo("session.turn.close", reason="superseded")) == []
