"""The pure half of the OpenCode 2.x adapter: frames, envelopes and their translation.

Payload shapes follow the 2.x section of docs/hosts-opencode.md, its build variants included.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from todo_ls.core import events as ev
from todo_ls.hosts.opencode_v2.events import (
    SeqFilter,
    WireMemory,
    normalize,
    parse_frame,
)
from todo_ls.hosts.opencode_v2.identity import judge_identity

SID = "ses_abc"


def env(type_: str, data: dict[str, Any], *, seq: int | None = None) -> dict[str, Any]:
    envelope: dict[str, Any] = {"id": "evt_1", "created": 1, "type": type_, "data": data}
    if seq is not None:
        envelope["durable"] = {"aggregateID": data.get("sessionID", SID), "seq": seq, "version": 1}
    return envelope


def one(type_: str, data: dict[str, Any], memory: WireMemory | None = None) -> ev.SessionEvent:
    events = normalize(env(type_, {"sessionID": SID, **data}), memory)
    assert len(events) == 1, events
    return events[0]


# --- frames -----------------------------------------------------------------------------


def test_parse_frame_accepts_both_framings_and_rejects_garbage() -> None:
    envelope = env("session.execution.started", {"sessionID": SID})
    text = json.dumps(envelope)
    assert parse_frame(text) == envelope
    # The OpenAPI build's item with the event as a JSON string, should it land in a data line.
    assert parse_frame(json.dumps({"id": "evt_1", "event": "message", "data": text})) == envelope
    nested = "[" * 100_000 + "]" * 100_000
    for garbage in ("", "not json", "[1,2]", '{"no":"type"}', '"just a string"', "{", nested):
        assert parse_frame(garbage) is None


def test_seq_filter_drops_replays_per_session_and_passes_ephemeral_events() -> None:
    seqs = SeqFilter()
    a = [env("session.step.started", {"sessionID": "ses_a"}, seq=n) for n in (1, 2, 2, 1, 3)]
    assert [seqs.fresh(e) for e in a] == [True, True, False, False, True]
    # Another session has its own sequence.
    assert seqs.fresh(env("session.step.started", {"sessionID": "ses_b"}, seq=1))
    # Ephemeral events (no durable block) are never dropped.
    delta = env("session.text.delta", {"sessionID": "ses_a"})
    assert seqs.fresh(delta) and seqs.fresh(delta)


def test_session_identity_prefers_the_durable_aggregate() -> None:
    envelope = env("session.execution.started", {"sessionID": "ses_data"})
    envelope["durable"] = {"aggregateID": "ses_agg", "seq": 1, "version": 1}
    assert normalize(envelope) == [ev.TurnStarted("ses_agg")]


# --- busy / idle --------------------------------------------------------------------------


def test_execution_lifecycle() -> None:
    assert one("session.execution.started", {}) == ev.TurnStarted(SID)
    assert one("session.execution.succeeded", {}) == ev.TurnEnded(SID, "completed")
    failed = one("session.execution.failed", {"error": {"type": "provider", "message": "429"}})
    assert failed == ev.TurnEnded(SID, "failed", "429")


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("user", ev.TurnEnded(SID, "interrupted", "user", by_user=True)),
        ("shutdown", ev.TurnEnded(SID, "shutdown", "shutdown")),
        ("superseded", ev.TurnEnded(SID, "interrupted", "superseded", by_user=False)),
        ("inactivity", ev.TurnEnded(SID, "interrupted", "inactivity", by_user=False)),
    ],
)
def test_interrupt_reasons(reason: str, expected: ev.TurnEnded) -> None:
    assert one("session.execution.interrupted", {"reason": reason}) == expected


def test_optional_status_events_of_some_builds_are_extra_signals() -> None:
    # execution.* is the authority: a status `idle` (say, after a shutdown interrupt, whose
    # turn the host resumes) must not end a turn, and `busy` only shows life.
    assert one("session.status", {"status": {"type": "busy"}}) == ev.Activity(SID)
    assert normalize(env("session.status", {"sessionID": SID, "status": {"type": "idle"}})) == []
    assert normalize(env("session.idle", {"sessionID": SID})) == []
    retry = one(
        "session.status",
        {"status": {"type": "retry", "attempt": 2, "message": "rate limited", "next": 5000}},
    )
    assert retry == ev.Retrying(SID, 2, 5.0, "rate limited")
    scheduled = one(
        "session.retry.scheduled",
        {"attempt": 1, "at": 2000, "error": {"type": "http", "message": "503"}},
    )
    assert scheduled == ev.Retrying(SID, 1, 2.0, "503")


# --- steps, spans, tools ------------------------------------------------------------------


def test_steps_keep_their_finish_reason() -> None:
    assert one("session.step.started", {"assistantMessageID": "msg_1"}) == ev.StepStarted(
        SID, "msg_1"
    )
    ended = one("session.step.ended", {"assistantMessageID": "msg_1", "finish": "tool-calls"})
    assert ended == ev.StepEnded(SID, "msg_1", "tool-calls")
    failed = one("session.step.failed", {"assistantMessageID": "msg_1", "error": {}})
    assert failed == ev.StepEnded(SID, "msg_1", "error")


@pytest.mark.parametrize("kind", ["text", "reasoning"])
def test_text_and_reasoning_spans(kind: str) -> None:
    data = {"assistantMessageID": "msg_1", "ordinal": 2}
    started = one(f"session.{kind}.started", data)
    assert started == ev.SpanStarted(SID, kind, "msg_1:2")  # type: ignore[arg-type]
    ended = one(f"session.{kind}.ended", {**data, "text": "done"})
    assert ended == ev.SpanEnded(SID, kind, "msg_1:2")  # type: ignore[arg-type]
    assert one(f"session.{kind}.delta", {**data, "delta": "x"}) == ev.Activity(SID)


def test_tool_call_takes_its_name_from_input_started_when_missing() -> None:
    memory = WireMemory()
    base = {"assistantMessageID": "msg_1", "id": "call_1"}
    assert one("session.tool.input.started", {**base, "name": "bash"}, memory) == ev.SpanStarted(
        SID, "tool-input", "call_1"
    )
    assert one("session.tool.input.delta", {**base, "delta": "{"}, memory) == ev.Activity(SID)
    called = normalize(
        env(
            "session.tool.called",
            {"sessionID": SID, **base, "input": {"command": "pytest -x"}, "executed": True},
        ),
        memory,
    )
    assert called == [
        ev.SpanEnded(SID, "tool-input", "call_1"),
        ev.ToolStarted(SID, "call_1", "bash", "pytest -x"),
    ]
    assert one("session.tool.progress", {**base, "metadata": {}}, memory) == ev.ToolProgress(
        SID, "call_1"
    )
    assert one("session.tool.success", {**base, "content": []}, memory) == ev.ToolEnded(
        SID, "call_1", ok=True
    )
    assert "call_1" not in memory.tool_names


def test_tool_called_with_a_name_and_the_older_call_id_field() -> None:
    data = {"sessionID": SID, "callID": "call_9", "name": "read", "input": {"filePath": "a.py"}}
    assert normalize(env("session.tool.called", data))[-1] == ev.ToolStarted(
        SID, "call_9", "read", "a.py"
    )
    failed = one("session.tool.failed", {"callID": "call_9", "error": {"message": "no"}})
    assert failed == ev.ToolEnded(SID, "call_9", ok=False)


# --- input ----------------------------------------------------------------------------------


def test_a_user_prompt_is_a_real_user_message_and_synthetic_input_is_not() -> None:
    memory = WireMemory()
    user = {"type": "user", "payload": {"text": "go on"}, "delivery": "steer"}
    queued = normalize(
        env("session.inbox.enqueued", {"sessionID": SID, "inboxID": "msg_u", "item": user}),
        memory,
    )
    assert queued == [
        ev.InputQueued(SID, "msg_u"),
        ev.UserMessage(SID, synthetic=False, message_id="msg_u"),
    ]
    assert memory.inbox == {"msg_u": SID}
    assert one("session.inbox.delivered", {"inboxID": "msg_u"}, memory) == ev.InputDelivered(
        SID, "msg_u"
    )
    assert memory.inbox == {}
    synthetic = {"type": "synthetic", "payload": {"text": "nudge"}, "delivery": "steer"}
    assert normalize(
        env("session.inbox.enqueued", {"sessionID": SID, "inboxID": "msg_s", "item": synthetic}),
        memory,
    ) == [ev.InputQueued(SID, "msg_s")]
    assert one("session.inbox.cancelled", {"inboxID": "msg_s"}, memory) == ev.InputDelivered(
        SID, "msg_s"
    )
    said = one("session.synthetic", {"text": "nudge", "description": "todo-ls"})
    assert isinstance(said, ev.UserMessage) and said.synthetic


# --- shells ---------------------------------------------------------------------------------


def _shell_info(**extra: Any) -> dict[str, Any]:
    return {
        "id": "sh_1",
        "status": "running",
        "command": "npm run build",
        "cwd": "/p",
        "shell": "/bin/sh",
        "file": "/tmp/sh_1.out",
        "metadata": {"sessionID": SID},
        "time": {"started": 1},
        **extra,
    }


def test_shells_are_mapped_to_their_session_through_created() -> None:
    memory = WireMemory()
    created = normalize(env("shell.created", {"info": _shell_info()}), memory)
    assert created == [ev.ShellStarted(SID, "sh_1", "npm run build", "/tmp/sh_1.out")]
    # shell.exited has no sessionID: the adapter remembers the owner.
    assert normalize(env("shell.exited", {"id": "sh_1", "exit": 0}), memory) == [
        ev.ShellEnded(SID, "sh_1")
    ]
    assert normalize(env("shell.deleted", {"id": "sh_1"}), memory) == []  # already ended
    assert memory.shells == {} and memory.shell_files == {}


def test_shells_without_a_session_and_already_finished_shells() -> None:
    memory = WireMemory()
    user_shell = _shell_info(metadata={})
    assert normalize(env("shell.created", {"info": user_shell}), memory) == []
    done = normalize(env("shell.created", {"info": _shell_info(status="exited")}), memory)
    assert done[-1] == ev.ShellEnded(SID, "sh_1") and memory.shells == {}
    session_shell = normalize(
        env("session.shell.started", {"sessionID": SID, "shell": _shell_info(id="sh_2")}), memory
    )
    assert session_shell == [ev.ShellStarted(SID, "sh_2", "npm run build", "/tmp/sh_1.out")]
    ended = env("session.shell.ended", {"sessionID": SID, "shell": {"id": "sh_2"}, "output": {}})
    assert normalize(ended, memory) == [ev.ShellEnded(SID, "sh_2")]


def test_memory_stays_bounded_when_close_events_are_lost() -> None:
    memory = WireMemory()
    for n in range(5000):
        normalize(env("shell.created", {"info": _shell_info(id=f"sh_{n}")}), memory)
    assert len(memory.shells) <= 4096 and "sh_4999" in memory.shells


# --- permissions and questions ----------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["permission.v2", "permission"])
def test_permission_variants(prefix: str) -> None:
    asked = one(f"{prefix}.asked", {"id": "per_1", "action": "bash", "resources": ["rm -rf x"]})
    assert asked == ev.PermissionAsked(SID, "per_1", "bash rm -rf x")
    replied = one(f"{prefix}.replied", {"requestID": "per_1", "reply": "reject"})
    assert replied == ev.PermissionReplied(SID, "per_1", "reject")


@pytest.mark.parametrize("prefix", ["question.v2", "question"])
def test_question_variants(prefix: str) -> None:
    assert one(f"{prefix}.asked", {"id": "que_1", "questions": []}) == ev.PermissionAsked(
        SID, "que_1", "question"
    )
    answered = one(f"{prefix}.replied", {"requestID": "que_1", "answers": []})
    assert answered == ev.PermissionReplied(SID, "que_1", "answered")
    assert one(f"{prefix}.rejected", {"requestID": "que_1"}) == ev.PermissionReplied(
        SID, "que_1", "reject"
    )


# --- sessions ---------------------------------------------------------------------------------


def test_session_created_in_the_flat_and_the_v1_like_shapes() -> None:
    flat = one(
        "session.created",
        {"location": {"directory": "/p"}, "parentID": "ses_root", "title": "t", "slug": "s"},
    )
    assert flat == ev.SessionUpdated(ev.SessionInfo(SID, "/p", "ses_root", "t"))
    v1_like = one(
        "session.created",
        {"info": {"id": SID, "location": {"directory": "/q"}, "parentID": "ses_r", "title": "u"}},
    )
    assert v1_like == ev.SessionUpdated(ev.SessionInfo(SID, "/q", "ses_r", "u"))
    older = one("session.updated", {"info": {"id": SID, "directory": "/r", "title": "v"}})
    assert older == ev.SessionUpdated(ev.SessionInfo(SID, "/r", None, "v"))
    assert one("session.deleted", {}) == ev.SessionDeleted(SID)


def test_events_without_session_meaning_are_ignored() -> None:
    for envelope in (
        {"id": "evt_0", "type": "server.connected", "data": {}},
        env("installation.updated", {"version": "2.0.18"}),
        env("todo.updated", {"sessionID": SID, "todos": []}),  # 2.x: no todo list (capability)
        env("session.brand.new", {"sessionID": SID}),
        {"type": 7},
        {"type": "session.execution.started", "data": "not an object"},
    ):
        assert normalize(envelope) == []


# --- identity ---------------------------------------------------------------------------------


def test_identity_is_judged_by_body() -> None:
    assert judge_identity({"version": "2.0.17", "pid": 12, "urls": [], "paths": {}}) is not None
    assert judge_identity({"healthy": True, "version": "2.0.9", "pid": 3}) is not None
    # OpenCode 1.18: `/api/health` without version, `/global/health` without pid, HTML page.
    for body in ({"healthy": True}, {"healthy": True, "version": "1.18.33"}, "<html>", None):
        assert judge_identity(body) is None
    assert judge_identity({"version": "2.0.17", "pid": True}) is None
