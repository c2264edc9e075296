"""OpenCode 1.x: the pure translation of the event stream into supervisor events.

`normalize(raw, memory)` takes one wire event (bare `{type, properties}` or the
`/global/event` envelope `{directory, payload}`). A few events need context from earlier ones
(which message is the user's, whether a tool already ran, a span already started); that
context is the `V1Memory` passed in, bounded in size. No I/O, no clock.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

from todo_ls.core.events import (
    Activity,
    PermissionAsked,
    PermissionReplied,
    Retrying,
    SessionDeleted,
    SessionEvent,
    SessionInfo,
    SessionTodo,
    SessionUpdated,
    SpanEnded,
    SpanKind,
    SpanStarted,
    StepEnded,
    StepStarted,
    TodoStatus,
    TodosUpdated,
    ToolEnded,
    ToolProgress,
    ToolStarted,
    TurnEnded,
    TurnStarted,
    UserMessage,
)

# Events that say nothing about a session's work: dropped without a log line.
NOISE = frozenset(
    {
        "server.connected",
        "server.heartbeat",
        "server.instance.disposed",
        "plugin.added",
        "catalog.updated",
        "reference.updated",
        "integration.updated",
        "project.updated",
        "tui.toast.show",
        "installation.updated",
        "installation.update-available",
        "lsp.updated",
        "lsp.client.diagnostics",
        "file.edited",
        "file.watcher.updated",
        "vcs.branch.updated",
        "command.executed",
        "message.removed",
        "message.part.removed",
        "session.compacted",
        # Sent with every step and once more after the end of turn: redundant with the step
        # events, and the trailing one would look like work after the session went idle.
        "session.diff",
        "pty.created",
        "pty.updated",
        "pty.exited",
        "pty.deleted",
        # Kilo (`kilo serve`): a turn opens while the session is busy; its busy status says it.
        "session.turn.open",
    }
)
_TODO_STATUSES: frozenset[str] = frozenset({"pending", "in_progress", "completed", "cancelled"})
_MAX_OPEN_SPANS = 1024  # per session (spans are ended by their own events or at turn end)
_ENDED = "\0ended"  # V1Memory.tools value of a finished call (no output can equal it)

K = TypeVar("K")
V = TypeVar("V")


class Bounded(Generic[K, V]):
    """A dict that forgets its least recently written keys beyond `size` (keeps memory flat
    however long the server runs)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._data: OrderedDict[K, V] = OrderedDict()

    def __setitem__(self, key: K, value: V) -> None:
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self._size:
            self._data.popitem(last=False)

    def get(self, key: K) -> V | None:
        return self._data.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def ordered_keys(self) -> list[K]:
        """Keys, most recently written last."""
        return list(self._data)


@dataclass
class V1Memory:
    """What normalization remembers between events. Every map is bounded."""

    roles: Bounded[str, str] = field(default_factory=lambda: Bounded(1024))  # messageID → role
    tools: Bounded[str, str] = field(default_factory=lambda: Bounded(512))  # callID → last output
    # partID / callID → (session, kind, still open)
    spans: Bounded[str, tuple[str, SpanKind, bool]] = field(default_factory=lambda: Bounded(1024))
    users: Bounded[tuple[str, bool], None] = field(default_factory=lambda: Bounded(512))
    # session → its open span ids in start order: a turn end closes them without a scan of
    # every remembered span (that scan dominated the cost of a busy stream)
    open_spans: Bounded[str, dict[str, None]] = field(default_factory=lambda: Bounded(1024))
    unknown_types: set[str] = field(default_factory=set)  # for one log line per type


def _dict(value: Any) -> Mapping[str, Any]:
    return cast(Mapping[str, Any], value) if isinstance(value, Mapping) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def session_info(raw: Any) -> SessionInfo | None:
    """A `Session` object of the v1 API as SessionInfo (None when it has no id)."""
    info = _dict(raw)
    sid = _str(info.get("id"))
    if sid is None:
        return None
    return SessionInfo(
        id=sid,
        directory=_str(info.get("directory")),
        parent_id=_str(info.get("parentID")),
        title=_str(info.get("title")) or "",
    )


def todo_list(raw: Any) -> tuple[SessionTodo, ...]:
    """A v1 todo list (`todo.updated` or `GET /session/{id}/todo`); bad entries are skipped."""
    todos = []
    for item in raw if isinstance(raw, list) else []:
        entry = _dict(item)
        content, status = entry.get("content"), entry.get("status")
        if isinstance(content, str) and isinstance(status, str) and status in _TODO_STATUSES:
            priority = _str(entry.get("priority"))
            todos.append(SessionTodo(content, cast(TodoStatus, status), priority))
    return tuple(todos)


def _tool_title(tool: str, state: Mapping[str, Any]) -> str:
    given = _dict(state.get("input"))
    key = {"bash": "command", "task": "description"}.get(tool)
    title = _str(given.get(key)) if key else None
    return title or _str(state.get("title")) or tool


def _part_events(sid: str, part: Mapping[str, Any], memory: V1Memory) -> list[SessionEvent]:
    kind = part.get("type")
    part_id = _str(part.get("id")) or ""
    message_id = _str(part.get("messageID")) or ""
    if kind == "step-start":
        return [StepStarted(sid, message_id)]  # one step per assistant message (retries reuse it)
    if kind == "step-finish":
        return [StepEnded(sid, message_id, _str(part.get("reason")))]
    if kind == "tool":
        return _tool_events(sid, part, memory)
    if kind not in ("text", "reasoning"):
        return [Activity(sid)]
    times = part.get("time")
    role = memory.roles.get(message_id)
    # Assistant text always carries time.start; user text never does. That tells the role
    # when the stream was joined after the message's `message.updated`.
    if kind == "text" and (role == "user" or (role is None and not isinstance(times, Mapping))):
        if part.get("ignored") is True:
            return []  # stored but never shown to the model: not input
        synthetic = part.get("synthetic") is True
        if (message_id, synthetic) in memory.users:
            return []
        memory.users[(message_id, synthetic)] = None
        return [UserMessage(sid, synthetic, message_id)]
    span_kind: SpanKind = "text" if kind == "text" else "reasoning"
    if isinstance(times, Mapping) and times.get("end") is not None:
        return _end_span(memory, sid, span_kind, part_id) or [Activity(sid)]
    return _start_span(memory, sid, span_kind, part_id) or [Activity(sid)]


def _start_span(memory: V1Memory, sid: str, kind: SpanKind, span_id: str) -> list[SessionEvent]:
    if span_id in memory.spans:
        return []
    memory.spans[span_id] = (sid, kind, True)
    open_ids = memory.open_spans.get(sid)
    if open_ids is None:
        open_ids = {}
        memory.open_spans[sid] = open_ids
    open_ids[span_id] = None
    if len(open_ids) > _MAX_OPEN_SPANS:
        del open_ids[next(iter(open_ids))]
    return [SpanStarted(sid, kind, span_id)]


def _end_span(memory: V1Memory, sid: str, kind: SpanKind, span_id: str) -> list[SessionEvent]:
    known = memory.spans.get(span_id)
    if known is not None and not known[2]:
        return []
    memory.spans[span_id] = (sid, kind, False)
    open_ids = memory.open_spans.get(known[0] if known is not None else sid)
    if open_ids is not None:
        open_ids.pop(span_id, None)
    return [SpanEnded(sid, kind, span_id)]


def _end_session_spans(memory: V1Memory, sid: str) -> list[SessionEvent]:
    """Close what a turn end or a provider retry leaves open: after a retry OpenCode keeps the
    partial text part without ever ending it, and an abort can cut a part short."""
    events: list[SessionEvent] = []
    for span_id in list(memory.open_spans.get(sid) or ()):
        known = memory.spans.get(span_id)  # None once forgotten: not ended, as before
        if known is not None and known[0] == sid and known[2]:
            events += _end_span(memory, sid, known[1], span_id)
    return events


def _tool_events(sid: str, part: Mapping[str, Any], memory: V1Memory) -> list[SessionEvent]:
    call_id = _str(part.get("callID")) or _str(part.get("id")) or ""
    tool = _str(part.get("tool")) or "tool"
    state = _dict(part.get("state"))
    status = state.get("status")
    if status == "pending":
        return _start_span(memory, sid, "tool-input", call_id)
    known = memory.spans.get(call_id)
    events = _end_span(memory, sid, "tool-input", call_id) if known and known[2] else []
    output = _dict(state.get("metadata")).get("output")
    output_key = output if isinstance(output, str) else ""
    if status == "running":
        seen = memory.tools.get(call_id)
        if call_id not in memory.tools:
            child = _str(_dict(state.get("metadata")).get("sessionId"))
            events.append(ToolStarted(sid, call_id, tool, _tool_title(tool, state), child))
        elif seen != output_key:
            events.append(ToolProgress(sid, call_id))
        memory.tools[call_id] = output_key
    elif status in ("completed", "error") and memory.tools.get(call_id) != _ENDED:
        memory.tools[call_id] = _ENDED
        events.append(ToolEnded(sid, call_id, ok=status == "completed"))
    return events


def _permission_what(props: Mapping[str, Any]) -> str:
    name = _str(props.get("permission")) or _str(props.get("action")) or "permission"
    targets = props.get("patterns") or props.get("resources") or []
    shown = " ".join(t for t in targets if isinstance(t, str)) if isinstance(targets, list) else ""
    return f"{name} {shown}".strip()


def _question_what(props: Mapping[str, Any]) -> str:
    questions = props.get("questions")
    first = _dict(questions[0]) if isinstance(questions, list) and questions else {}
    text = _str(first.get("question")) or _str(first.get("header")) or ""
    return f"question {text}".strip()


def _turn_close(sid: str, props: Mapping[str, Any], memory: V1Memory) -> list[SessionEvent]:
    """Kilo's `session.turn.close {reason}`: `completed` is a clean end of turn, `interrupted`
    a user abort. `error` and `superseded` say nothing the other events do not (the error
    comes as `session.error` with its message; a superseded turn's work goes on)."""
    reason = props.get("reason")
    if reason == "completed":
        return [*_end_session_spans(memory, sid), TurnEnded(sid, "completed")]
    if reason == "interrupted":
        closed = _end_session_spans(memory, sid)
        return [*closed, TurnEnded(sid, "interrupted", "turn interrupted", by_user=True)]
    return []


def normalize(raw: Mapping[str, Any], memory: V1Memory | None = None) -> list[SessionEvent]:
    """Translate one v1 wire event into supervisor events (often none, sometimes several).

    `memory` carries context between events of one stream; without it a fresh one is used,
    which is right for a single event in isolation. Pure: no I/O, no clock.
    """
    memory = memory if memory is not None else V1Memory()
    event = _dict(raw.get("payload")) if "payload" in raw else raw
    etype = event.get("type")
    props = _dict(event.get("properties"))
    if not isinstance(etype, str) or etype in NOISE:
        return []
    sid = _str(props.get("sessionID"))
    if sid is None:
        if etype not in memory.unknown_types:
            memory.unknown_types.add(etype)
        return []
    if etype in ("session.created", "session.updated"):
        info = session_info(props.get("info")) or SessionInfo(sid, None)
        return [SessionUpdated(info)]
    if etype == "session.deleted":
        return [SessionDeleted(sid)]
    if etype == "session.status":
        status = _dict(props.get("status"))
        kind = status.get("type")
        if kind == "busy":
            return [TurnStarted(sid)]
        if kind == "idle":
            return [*_end_session_spans(memory, sid), TurnEnded(sid, "idle")]
        if kind == "retry":
            attempt = status.get("attempt")
            next_ms = status.get("next")
            return [
                *_end_session_spans(memory, sid),
                Retrying(
                    sid,
                    attempt if isinstance(attempt, int) else 0,
                    next_ms / 1000 if isinstance(next_ms, (int, float)) else None,
                    _str(status.get("message")) or "",
                ),
            ]
        return []
    if etype == "session.idle":
        return [*_end_session_spans(memory, sid), TurnEnded(sid, "idle")]
    if etype == "session.turn.close":
        return _turn_close(sid, props, memory)
    if etype == "session.error":
        error = _dict(props.get("error"))
        name = _str(error.get("name")) or "error"
        closed = _end_session_spans(memory, sid)
        if name == "MessageAbortedError":
            return [*closed, TurnEnded(sid, "interrupted", name, by_user=True)]
        message = _str(_dict(error.get("data")).get("message"))
        return [*closed, TurnEnded(sid, "failed", f"{name}: {message}" if message else name)]
    if etype == "message.updated":
        msg_info = _dict(props.get("info"))
        message_id, role = _str(msg_info.get("id")), _str(msg_info.get("role"))
        if message_id and role:
            memory.roles[message_id] = role
        return []
    if etype == "message.part.updated":
        return _part_events(sid, _dict(props.get("part")), memory)
    if etype == "message.part.delta":
        return [Activity(sid)]
    if etype == "todo.updated":
        return [TodosUpdated(sid, todo_list(props.get("todos")))]
    if etype in ("permission.asked", "permission.v2.asked"):
        return [PermissionAsked(sid, _str(props.get("id")) or "", _permission_what(props))]
    if etype in ("question.asked", "question.v2.asked"):
        return [PermissionAsked(sid, _str(props.get("id")) or "", _question_what(props))]
    if etype in ("permission.replied", "permission.v2.replied"):
        reply = props.get("reply")
        return [PermissionReplied(sid, _str(props.get("requestID")) or "", str(reply or ""))]
    if etype in ("question.replied", "question.v2.replied"):
        return [PermissionReplied(sid, _str(props.get("requestID")) or "", "answered")]
    if etype in ("question.rejected", "question.v2.rejected"):
        return [PermissionReplied(sid, _str(props.get("requestID")) or "", "rejected")]
    memory.unknown_types.add(etype)
    return []


def normalize_all(
    events: Iterable[Mapping[str, Any]], memory: V1Memory | None = None
) -> list[SessionEvent]:
    """`normalize` over a sequence with one shared memory (e.g. a recorded stream)."""
    memory = memory if memory is not None else V1Memory()
    return [out for raw in events for out in normalize(raw, memory)]
