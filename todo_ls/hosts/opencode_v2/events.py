"""OpenCode 2.x: the pure translation of the event stream into the supervisor's event model.

`parse_frame` + `normalize` do no I/O. `normalize` keeps the little memory the 2.x stream needs
in a `WireMemory` the caller passes in (tool names from `tool.input.started`, the shellID →
session map, open inbox items). Every build variant the adapter has met is accepted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from todo_ls.core import events as ev

_MEMORY_CAP = 4096  # entries per map: bounded even when the matching close events are lost

Json = Mapping[str, Any]


# --- pure: frames and envelopes -----------------------------------------------------------


def parse_frame(data: str) -> Json | None:
    """The event envelope in one SSE frame's data, or None for anything else.

    Accepts the bare envelope and an Effect `Sse.encode` item `{id, event, data}` whose `data`
    is the envelope's JSON string (some builds put that item in the data line itself).
    """
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):  # RecursionError: absurdly nested JSON
        return None
    if isinstance(value, dict) and "type" not in value and isinstance(value.get("data"), str):
        return parse_frame(value["data"])
    if isinstance(value, dict) and isinstance(value.get("type"), str):
        return value
    return None


def session_of(envelope: Json) -> str | None:
    """Session identity: `durable.aggregateID`, else `data.sessionID` (`sessionIDOf`)."""
    durable = envelope.get("durable")
    if isinstance(durable, dict) and isinstance(durable.get("aggregateID"), str):
        return str(durable["aggregateID"])
    data = envelope.get("data")
    if isinstance(data, dict) and isinstance(data.get("sessionID"), str):
        return str(data["sessionID"])
    return None


def durable_seq(envelope: Json) -> int | None:
    durable = envelope.get("durable")
    seq = durable.get("seq") if isinstance(durable, dict) else None
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else None


@dataclass
class SeqFilter:
    """Drops a durable event whose `seq` is not above the last one seen for its session."""

    last: dict[str, int] = field(default_factory=dict)

    def fresh(self, envelope: Json) -> bool:
        seq, session_id = durable_seq(envelope), session_of(envelope)
        if seq is None or session_id is None:
            return True  # ephemeral events carry no seq: nothing to compare
        if seq <= self.last.get(session_id, -1):
            return False
        self.last[session_id] = seq
        return True


@dataclass
class WireMemory:
    """What normalizing the 2.x stream has to remember between events."""

    tool_names: dict[str, str] = field(default_factory=dict)  # tool call id → name
    shells: dict[str, str] = field(default_factory=dict)  # shell id → session id
    shell_files: dict[str, str] = field(default_factory=dict)  # shell id → capture file
    shell_cwds: dict[str, str] = field(default_factory=dict)  # shell id → cwd (its location)
    inbox: dict[str, str] = field(default_factory=dict)  # open inbox item id → session id


def _remember(table: dict[str, str], key: str, value: str) -> None:
    table[key] = value
    if len(table) > _MEMORY_CAP:
        del table[next(iter(table))]  # oldest first: its close event was lost long ago


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _attempt(value: Any) -> int:
    # A wire value of any other type (text, a float like inf, null) must not break the stream.
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _session_info(session_id: str, data: Json) -> ev.SessionInfo:
    """From the flat `session.created` data or a `Session.Info` (or a v1-like `info`)."""
    location = _dict(data.get("location"))
    directory = _str(location.get("directory")) or _str(data.get("directory"))
    return ev.SessionInfo(
        id=_str(data.get("id")) or session_id,
        directory=directory,
        parent_id=_str(data.get("parentID")),
        title=_str(data.get("title")) or "",
    )


def _tool_title(tool_input: Json) -> str:
    for key in ("description", "command", "filePath", "path", "pattern", "url"):
        text = _str(tool_input.get(key))
        if text:
            return text
    return ""


_SPANS: dict[str, ev.SpanKind] = {"session.text": "text", "session.reasoning": "reasoning"}
_ASKED = ("permission.v2.asked", "permission.asked", "question.v2.asked", "question.asked")
_REPLIED = (
    "permission.v2.replied",
    "permission.replied",
    "question.v2.replied",
    "question.replied",
)
_REJECTED = ("question.v2.rejected", "question.rejected")
_ALIVE = (
    "session.text.delta",
    "session.reasoning.delta",
    "session.tool.input.delta",
    "session.step.streamed",
    "session.usage.updated",
    "session.compaction.started",
    "session.compaction.delta",
    "session.compaction.ended",
    "session.compaction.failed",
)


def normalize(envelope: Json, memory: WireMemory | None = None) -> list[ev.SessionEvent]:
    """Translate one 2.x event envelope into session events ([] for everything else).

    Pure: no I/O; the only state is `memory` (a fresh one when omitted), which it updates.
    """
    memory = WireMemory() if memory is None else memory
    kind = envelope.get("type")
    data = _dict(envelope.get("data"))
    if not isinstance(kind, str):
        return []
    if kind.startswith("shell."):
        return _shell(kind, data, memory)
    sid = session_of(envelope)
    if sid is None:
        return []
    if kind in ("session.created", "session.updated", "session.moved"):
        info = data.get("info")
        return [ev.SessionUpdated(_session_info(sid, info if isinstance(info, dict) else data))]
    if kind == "session.deleted":
        return [ev.SessionDeleted(sid)]
    if kind.startswith("session.execution."):
        return _execution(sid, kind.removeprefix("session.execution."), data)
    if kind.startswith("session.step."):
        return _step(sid, kind.removeprefix("session.step."), data)
    if kind.startswith("session.tool."):
        return _tool(sid, kind.removeprefix("session.tool."), data, memory)
    if kind.startswith("session.inbox."):
        return _inbox(sid, kind.removeprefix("session.inbox."), data, memory)
    span_kind = _SPANS.get(kind.rpartition(".")[0])
    if span_kind is not None and kind.endswith((".started", ".ended")):
        span_id = f"{data.get('assistantMessageID')}:{data.get('ordinal', 0)}"
        if kind.endswith(".started"):
            return [ev.SpanStarted(sid, span_kind, span_id)]
        return [ev.SpanEnded(sid, span_kind, span_id)]
    if kind == "session.synthetic":
        return [ev.UserMessage(sid, synthetic=True, message_id=_str(envelope.get("id")) or "")]
    if kind == "session.retry.scheduled":
        at = data.get("at")
        message = _str(_dict(data.get("error")).get("message")) or ""
        next_at = at / 1000 if isinstance(at, (int, float)) else None
        return [ev.Retrying(sid, _attempt(data.get("attempt")), next_at, message)]
    if kind in ("session.shell.started", "session.shell.ended"):
        shell = _dict(data.get("shell"))
        shell_id = _str(shell.get("id"))
        if shell_id is None:
            return []
        if kind.endswith("started"):
            return [_shell_started(sid, shell, shell_id, memory)]
        memory.shells.pop(shell_id, None)
        return [ev.ShellEnded(sid, shell_id)]
    if kind in _ASKED:
        request_id = _str(data.get("id")) or _str(data.get("requestID")) or ""
        return [ev.PermissionAsked(sid, request_id, _asked_what(kind, data))]
    if kind in _REPLIED or kind in _REJECTED:
        request_id = _str(data.get("requestID")) or _str(data.get("id")) or ""
        reply = "reject" if kind in _REJECTED else str(data.get("reply") or "answered")
        return [ev.PermissionReplied(sid, request_id, reply)]
    if kind == "session.status":
        return _status(sid, _dict(data.get("status")))
    if kind in _ALIVE:
        return [ev.Activity(sid)]
    return []


def _execution(sid: str, phase: str, data: Json) -> list[ev.SessionEvent]:
    if phase == "started":
        return [ev.TurnStarted(sid)]
    if phase == "succeeded":
        return [ev.TurnEnded(sid, "completed")]
    if phase == "failed":
        error = _dict(data.get("error"))
        detail = _str(error.get("message")) or _str(error.get("type")) or "failed"
        return [ev.TurnEnded(sid, "failed", detail)]
    if phase == "interrupted":
        reason = _str(data.get("reason")) or "unknown"
        if reason == "shutdown":
            # The claim survives: the host resumes this turn on its next start.
            return [ev.TurnEnded(sid, "shutdown", reason)]
        # superseded / inactivity: the host ended the turn; only `user` is a person.
        return [ev.TurnEnded(sid, "interrupted", reason, by_user=reason == "user")]
    return []


def _step(sid: str, phase: str, data: Json) -> list[ev.SessionEvent]:
    step_id = _str(data.get("assistantMessageID")) or ""
    if phase == "started":
        return [ev.StepStarted(sid, step_id)]
    if phase == "ended":
        return [ev.StepEnded(sid, step_id, _str(data.get("finish")))]
    if phase == "failed":
        return [ev.StepEnded(sid, step_id, _str(data.get("finish")) or "error")]
    if phase == "streamed":
        return [ev.Activity(sid)]
    return []


def _tool(sid: str, phase: str, data: Json, memory: WireMemory) -> list[ev.SessionEvent]:
    call_id = _str(data.get("id")) or _str(data.get("callID"))
    if call_id is None:
        return []
    name = _str(data.get("name"))
    if phase == "input.started":
        if name:
            _remember(memory.tool_names, call_id, name)
        return [ev.SpanStarted(sid, "tool-input", call_id)]
    if phase == "input.ended":
        return [ev.SpanEnded(sid, "tool-input", call_id)]
    if phase == "input.delta":
        return [ev.Activity(sid)]
    if phase == "called":
        tool = name or memory.tool_names.get(call_id) or "tool"
        title = _tool_title(_dict(data.get("input")))
        # A call without input events still closes any tool-input span of the same id.
        return [ev.SpanEnded(sid, "tool-input", call_id), ev.ToolStarted(sid, call_id, tool, title)]
    if phase == "progress":
        return [ev.ToolProgress(sid, call_id)]
    if phase in ("success", "failed"):
        memory.tool_names.pop(call_id, None)
        return [ev.ToolEnded(sid, call_id, ok=phase == "success")]
    return []


def _inbox(sid: str, phase: str, data: Json, memory: WireMemory) -> list[ev.SessionEvent]:
    inbox_id = _str(data.get("inboxID"))
    if inbox_id is None:
        return []
    if phase == "enqueued":
        _remember(memory.inbox, inbox_id, sid)
        item = _dict(data.get("item"))
        queued: list[ev.SessionEvent] = [ev.InputQueued(sid, inbox_id)]
        if item.get("type") == "user":
            # A person wrote to the session: admitted input is the real user prompt
            # (synthetic input is reported by `session.synthetic`).
            queued.append(ev.UserMessage(sid, synthetic=False, message_id=inbox_id))
        return queued
    if phase in ("delivered", "cancelled"):
        memory.inbox.pop(inbox_id, None)
        return [ev.InputDelivered(sid, inbox_id)]
    return []


def _shell(kind: str, data: Json, memory: WireMemory) -> list[ev.SessionEvent]:
    if kind == "shell.created":
        info = _dict(data.get("info"))
        shell_id = _str(info.get("id"))
        sid = _str(_dict(info.get("metadata")).get("sessionID"))
        if shell_id is None or sid is None:
            return []  # a shell of the user's, not of a session
        started = _shell_started(sid, info, shell_id, memory)
        if info.get("status", "running") != "running":
            memory.shells.pop(shell_id, None)
            return [started, ev.ShellEnded(sid, shell_id)]
        return [started]
    if kind in ("shell.exited", "shell.deleted"):
        shell_id = _str(data.get("id"))
        owner = memory.shells.pop(shell_id, None) if shell_id else None
        if shell_id is None or owner is None:
            return []
        memory.shell_files.pop(shell_id, None)
        memory.shell_cwds.pop(shell_id, None)
        return [ev.ShellEnded(owner, shell_id)]
    return []


def _shell_started(sid: str, info: Json, shell_id: str, memory: WireMemory) -> ev.ShellStarted:
    capture = _str(info.get("file"))
    _remember(memory.shells, shell_id, sid)
    if capture:
        _remember(memory.shell_files, shell_id, capture)
    cwd = _str(info.get("cwd"))
    if cwd:
        _remember(memory.shell_cwds, shell_id, cwd)
    return ev.ShellStarted(sid, shell_id, _str(info.get("command")) or "", capture)


def _asked_what(kind: str, data: Json) -> str:
    if kind.startswith("question."):
        return "question"
    action = _str(data.get("action")) or _str(data.get("permission")) or "permission"
    resources = data.get("resources") or data.get("patterns")
    if isinstance(resources, list) and resources:
        return f"{action} {' '.join(str(r) for r in resources[:3])}"
    return action


def _status(sid: str, status: Json) -> list[ev.SessionEvent]:
    """The optional `session.status` of some builds: an extra signal, never the authority.

    `session.execution.*` decides busy and idle. `busy` only shows life, and `idle` (like the
    deprecated `session.idle`) is ignored: after a `shutdown` interrupt it would end a turn the
    host is going to resume. `retry` carries when the provider is tried again.
    """
    state = status.get("type")
    if state == "busy":
        return [ev.Activity(sid)]
    if state == "retry":
        nxt = status.get("next")
        next_at = nxt / 1000 if isinstance(nxt, (int, float)) else None
        attempt = _attempt(status.get("attempt"))
        return [ev.Retrying(sid, attempt, next_at, str(status.get("message") or ""))]
    return []
