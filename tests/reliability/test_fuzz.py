"""Fuzzing the agent side: random and mutated real events through both adapters' pure
normalizers, then through the supervisor runtime; garbage through the SSE reader.

What must hold for any input: no exception escapes (a normalizer returns a list, the runtime
logs no error), and no nudge ever reaches a session outside the workspace folder under
`scope: project`, nor a child session. Hypothesis runs derandomized, so a failure reproduces.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import json
import logging
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any, Literal

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.fake_host import FakeHost, FakeWorkspace
from support.reliability_support import load_v1_sample

from todo_ls.checklist.model import FileItem
from todo_ls.core import events as ev
from todo_ls.core.clock import FakeClock
from todo_ls.hosts.http import HostHttp
from todo_ls.hosts.opencode_v1 import events as opencode_v1
from todo_ls.hosts.opencode_v2 import events as opencode_v2
from todo_ls.settings.model import SupervisorSettings
from todo_ls.store import DB_NAME, Store
from todo_ls.supervisor.runtime import Runtime

FUZZ = settings(
    derandomize=True,
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SAMPLE = load_v1_sample()
REAL_V1 = [event for events in SAMPLE.values() for event in events]
FOLDER = "/ws/project"
# Where a session can live, relative to the workspace folder `/ws/project`: inside, nested,
# and several that only look close (a prefix sibling, a `..` escape, relative, empty).
DIRECTORIES = [
    FOLDER,
    FOLDER + "/sub/dir",
    FOLDER + "/",
    "/ws/project-other",
    "/ws/projectX",
    FOLDER + "/../elsewhere",
    "/ws",
    "/",
    "project",
    "",
    "/tmp/other",
]
BIG = "x" * (5 * 1024 * 1024)

# A 2.x corpus in the shapes docs/hosts-opencode.md lists (the fake server emits the same).
V2_SID = "ses_v2a"
V2_CORPUS: list[dict[str, Any]] = [
    {
        "type": "session.created",
        "data": {
            "sessionID": V2_SID,
            "info": {"id": V2_SID, "title": "t", "location": {"directory": FOLDER}},
        },
    },
    {
        "type": "session.updated",
        "data": {"sessionID": V2_SID, "info": {"id": V2_SID, "location": {"directory": FOLDER}}},
    },
    {
        "type": "session.inbox.enqueued",
        "data": {
            "sessionID": V2_SID,
            "inboxID": "msg_u1",
            "item": {"type": "user", "payload": {"text": "go"}},
        },
    },
    {"type": "session.inbox.delivered", "data": {"sessionID": V2_SID, "inboxID": "msg_u1"}},
    {"type": "session.execution.started", "data": {"sessionID": V2_SID}},
    {"type": "session.step.started", "data": {"sessionID": V2_SID, "assistantMessageID": "m1"}},
    {
        "type": "session.text.started",
        "data": {"sessionID": V2_SID, "assistantMessageID": "m1", "ordinal": 0},
    },
    {"type": "session.text.delta", "data": {"sessionID": V2_SID, "delta": "hi"}},
    {
        "type": "session.text.ended",
        "data": {"sessionID": V2_SID, "assistantMessageID": "m1", "ordinal": 0},
    },
    {
        "type": "session.tool.input.started",
        "data": {"sessionID": V2_SID, "id": "c1", "name": "bash"},
    },
    {
        "type": "session.tool.called",
        "data": {"sessionID": V2_SID, "id": "c1", "input": {"command": "pytest"}},
    },
    {"type": "session.tool.progress", "data": {"sessionID": V2_SID, "id": "c1"}},
    {"type": "session.tool.success", "data": {"sessionID": V2_SID, "id": "c1"}},
    {
        "type": "shell.created",
        "data": {
            "info": {
                "id": "sh_1",
                "status": "running",
                "command": "make",
                "cwd": FOLDER,
                "file": "/nonexistent/capture",
                "metadata": {"sessionID": V2_SID},
            }
        },
    },
    {"type": "shell.exited", "data": {"id": "sh_1", "exit": 0}},
    {
        "type": "permission.v2.asked",
        "data": {
            "sessionID": V2_SID,
            "id": "per_1",
            "action": "bash",
            "resources": ["rm -rf build"],
        },
    },
    {
        "type": "permission.v2.replied",
        "data": {"sessionID": V2_SID, "requestID": "per_1", "reply": "once"},
    },
    {
        "type": "session.retry.scheduled",
        "data": {
            "sessionID": V2_SID,
            "attempt": 2,
            "at": 1_800_000_010_000,
            "error": {"message": "429"},
        },
    },
    {
        "type": "session.status",
        "data": {
            "sessionID": V2_SID,
            "status": {"type": "retry", "attempt": 1, "next": 1_800_000_010_000},
        },
    },
    {
        "type": "session.step.ended",
        "data": {"sessionID": V2_SID, "assistantMessageID": "m1", "finish": "stop"},
    },
    {"type": "session.execution.succeeded", "data": {"sessionID": V2_SID}},
    {"type": "session.execution.interrupted", "data": {"sessionID": V2_SID, "reason": "user"}},
    {"type": "session.synthetic", "data": {"sessionID": V2_SID, "text": "nudge"}},
    {"type": "session.deleted", "data": {"sessionID": V2_SID}},
]
V2_TYPES = sorted({e["type"] for e in V2_CORPUS} | {"session.idle", "question.v2.asked"})
V1_TYPES = sorted({e["type"] for e in REAL_V1} | {"question.asked", "question.rejected"})

# --- strategies ---------------------------------------------------------------------------

# Keys the adapters read, so random objects hit real code paths, plus arbitrary ones.
KEYS = st.sampled_from(
    [
        "sessionID",
        "id",
        "type",
        "status",
        "info",
        "attempt",
        "next",
        "at",
        "reason",
        "finish",
        "callID",
        "tool",
        "state",
        "part",
        "time",
        "end",
        "error",
        "message",
        "directory",
        "parentID",
        "location",
        "metadata",
        "todos",
        "content",
        "inboxID",
        "item",
        "shell",
    ]
) | st.text(max_size=10)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
    | st.sampled_from(["ses_a", "busy", "idle", "retry", "running", "user", "tool", "text"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=12,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every key path inside a JSON value (dict keys and list indices)."""
    if isinstance(value, dict):
        for key, child in value.items():
            yield (*prefix, key)
            yield from _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield (*prefix, index)
            yield from _paths(child, (*prefix, index))


@st.composite
def mutated(draw: st.DrawFn, corpus: list[dict[str, Any]], types: list[str]) -> dict[str, Any]:
    """A real event with a few of its values replaced, deleted, or its type swapped."""
    event = copy.deepcopy(draw(st.sampled_from(corpus)))
    for _ in range(draw(st.integers(0, 4))):
        paths = list(_paths(event))
        action = draw(st.sampled_from(["replace", "delete", "type", "grow"]))
        if action == "type" or not paths:
            event["type"] = draw(st.sampled_from([*types, "x.unknown", ""]) | st.text(max_size=8))
            continue
        path = draw(st.sampled_from(paths))
        parent: Any = event
        for key in path[:-1]:
            parent = parent[key]
        if action == "delete" and isinstance(parent, dict):
            del parent[path[-1]]
        elif action == "grow":
            parent[path[-1]] = "y" * draw(st.sampled_from([0, 1, 300, 70_000]))
        else:
            parent[path[-1]] = draw(json_values)
    return event


def v1_events() -> st.SearchStrategy[Any]:
    random_event = st.fixed_dictionaries(
        {"type": st.sampled_from(V1_TYPES), "properties": json_values}
    )
    plain = mutated(REAL_V1, V1_TYPES) | random_event
    # The `/global/event` envelope around some of them, and raw junk.
    return (
        plain
        | st.builds(lambda p, d: {"directory": d, "payload": p}, plain, json_values)
        | (st.dictionaries(st.text(max_size=8), json_values, max_size=3))
    )


def v2_envelopes() -> st.SearchStrategy[Any]:
    random_event = st.fixed_dictionaries(
        {"type": st.sampled_from(V2_TYPES), "data": json_values},
        optional={"durable": json_values, "id": json_values},
    )
    return mutated(V2_CORPUS, V2_TYPES) | random_event


# --- the pure normalizers -----------------------------------------------------------------


@FUZZ
@given(st.lists(v1_events(), max_size=30))
def test_v1_normalize_never_raises(events: list[Any]) -> None:
    memory = opencode_v1.V1Memory()
    for raw in events:
        out = opencode_v1.normalize(raw, memory)
        assert isinstance(out, list)
        assert all(isinstance(e.session_id, str) and e.session_id for e in out)


@FUZZ
@given(st.lists(v2_envelopes(), max_size=30))
def test_v2_normalize_never_raises(envelopes: list[Any]) -> None:
    memory = opencode_v2.WireMemory()
    seqs = opencode_v2.SeqFilter()
    for envelope in envelopes:
        framed = opencode_v2.parse_frame(json.dumps(envelope))
        if framed is None or not seqs.fresh(framed):
            continue
        out = opencode_v2.normalize(framed, memory)
        assert isinstance(out, list)
        assert all(isinstance(e.session_id, str) and e.session_id for e in out)


@FUZZ
@given(st.text(max_size=200) | st.builds(json.dumps, json_values))
def test_v2_parse_frame_takes_any_text(data: str) -> None:
    parsed = opencode_v2.parse_frame(data)
    assert parsed is None or isinstance(parsed.get("type"), str)


NASTY: list[Any] = [
    None,
    "",
    "x",
    -1,
    0,
    1.5,
    float("inf"),
    float("nan"),
    2**70,
    True,
    [],
    [1, "a"],
    {},
    {"type": "busy"},
]


def _representatives(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Up to three events of each type (the sample repeats shapes)."""
    seen: dict[str, int] = {}
    chosen = []
    for event in events:
        kind = str(event.get("type"))
        if seen.get(kind, 0) < 3:
            seen[kind] = seen.get(kind, 0) + 1
            chosen.append(event)
    return chosen


@pytest.mark.parametrize("corpus", ["v1", "v2"])
def test_every_field_of_real_events_takes_any_value(corpus: str) -> None:
    """Exhaustive sweep next to the random search: each field of each event shape replaced by
    each value of the wrong type (or deleted) is normalized without an exception."""
    if corpus == "v1":
        events, normalize = _representatives(REAL_V1), opencode_v1.normalize
    else:
        events, normalize = V2_CORPUS, opencode_v2.normalize  # type: ignore[assignment]
    failures = []
    for original in events:
        for path in _paths(original):
            for value in [*NASTY, KeyError]:
                event = copy.deepcopy(original)
                parent: Any = event
                for key in path[:-1]:
                    parent = parent[key]
                if value is KeyError:
                    del parent[path[-1]]
                else:
                    parent[path[-1]] = value
                try:
                    normalize(event)
                except Exception as exc:
                    failures.append(
                        f"{original['type']} {'.'.join(map(str, path))}={value!r}: "
                        f"{type(exc).__name__}: {exc}"
                    )
    assert not failures, "\n".join(failures[:20])


@pytest.mark.parametrize("corpus", ["v1", "v2"])
def test_oversized_events_are_handled_whole(corpus: str) -> None:
    """A 5 MB text in every string field of every event shape: normalized without error, and
    the big text is never copied into the supervisor's session ids."""
    events = REAL_V1 if corpus == "v1" else V2_CORPUS
    for original in events:
        for path in _paths(original):
            event = copy.deepcopy(original)
            parent: Any = event
            for key in path[:-1]:
                parent = parent[key]
            if not isinstance(parent[path[-1]], str) or "ses" in parent[path[-1]]:
                continue
            parent[path[-1]] = BIG
            normalize = opencode_v1.normalize if corpus == "v1" else opencode_v2.normalize
            out = normalize(event)
            assert all(len(e.session_id) < 100 for e in out)


# --- through the supervisor ---------------------------------------------------------------


def _place(event: Any, directory: str) -> Any:
    """The recorded events say `<tmp>/project`; put the session in `directory` instead."""
    text = json.dumps(event).replace('"<tmp>/project"', json.dumps(directory))
    return json.loads(text)


class _Recorder(FakeHost):
    """Records, at the moment of each nudge, what the runtime believed about the session."""

    def __init__(self, runtime_ref: list[Runtime], kind: str) -> None:
        super().__init__(kind=kind)
        self._runtime_ref = runtime_ref
        self.targets: list[tuple[str, str | None, str | None]] = []

    async def nudge(self, session_id: str, text: str, description: str) -> None:
        session = self._runtime_ref[0].tracker.sessions.get(session_id)
        directory = session.directory if session else None
        parent = session.parent_id if session else None
        self.targets.append((session_id, directory, parent))
        await super().nudge(session_id, text, description)


@contextlib.contextmanager
def errors_logged() -> Iterator[list[str]]:
    """Collects the ERROR records of todo-ls (the runtime logs, never raises, what it cannot
    handle: an error record is an exception that would have escaped)."""
    found: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            found.append(self.format(record) if record.exc_info else record.getMessage())

    handler = Collect(logging.ERROR)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger = logging.getLogger("todo_ls")
    logger.addHandler(handler)
    try:
        yield found
    finally:
        logger.removeHandler(handler)


def _inside(directory: str | None) -> bool:
    if not directory or not directory.startswith("/"):
        return False
    return PurePosixPath(os.path.normpath(directory)).is_relative_to(FOLDER)


async def _supervise(
    events: list[ev.SessionEvent],
    steps: list[float],
    scope: Literal["project", "all"],
    kind: str,
) -> _Recorder:
    """Run the real runtime over `events` (time moving `steps[i]` seconds after event i), then
    let an hour pass so every timer fires."""
    clock = FakeClock()
    ref: list[Runtime] = []
    host = _Recorder(ref, kind)
    workspace = FakeWorkspace([FOLDER], {FOLDER: [FileItem("PLAN.md", 3, "ship it", "open")]})
    config = SupervisorSettings(
        scope=scope,
        settle_ms=1000,
        min_nudge_interval_ms=5000,
        stall_minutes=1,
    )
    with tempfile.TemporaryDirectory() as state:
        store = Store(Path(state) / DB_NAME)

        async def connect() -> FakeHost:
            return host

        runtime = Runtime(connect, store, config, clock, workspace)
        ref.append(runtime)
        runtime.start()
        host.emit(ev.Connected(kind, "http://127.0.0.1:1", "1"), ev.Resynced(busy={}))
        for index, event in enumerate(events):
            host.emit(event)
            await host.drained()
            clock.advance(steps[index % len(steps)] if steps else 0.0)
            await runtime.drain()
        for _ in range(60):
            clock.advance(60.0)
            await runtime.drain()
        await runtime.stop()
        store.close()
    return host


def _assert_in_scope(host: _Recorder) -> None:
    for session_id, directory, parent in host.targets:
        assert parent is None, f"child session {session_id} was nudged"
        assert _inside(directory), f"{session_id} in {directory!r} is outside {FOLDER}"


@FUZZ
@given(
    scenarios=st.lists(st.sampled_from(sorted(SAMPLE)), min_size=1, max_size=3),
    directories=st.lists(st.sampled_from(DIRECTORIES), min_size=3, max_size=3),
    mutations=st.lists(mutated(REAL_V1, V1_TYPES), max_size=8),
    steps=st.lists(st.sampled_from([0.0, 0.5, 2.0, 30.0, 90.0]), max_size=6),
)
def test_v1_streams_through_the_supervisor(
    scenarios: list[str],
    directories: list[str],
    mutations: list[dict[str, Any]],
    steps: list[float],
) -> None:
    """Recorded scenarios (each session placed in or out of the folder) interleaved with
    mutated events: the runtime never logs an error and never nudges out of scope."""
    raw: list[Any] = []
    for index, name in enumerate(scenarios):
        raw += [_place(e, directories[index]) for e in SAMPLE[name]]
    raw += [_place(m, directories[-1]) for m in mutations]
    memory = opencode_v1.V1Memory()
    events = [out for r in raw for out in opencode_v1.normalize(r, memory)]
    with errors_logged() as errors:
        host = asyncio.run(_supervise(events, steps, "project", "opencode-v1"))
    assert not errors, errors
    _assert_in_scope(host)


@FUZZ
@given(
    envelopes=st.lists(v2_envelopes(), max_size=25),
    directory=st.sampled_from(DIRECTORIES),
    steps=st.lists(st.sampled_from([0.0, 1.0, 30.0, 90.0]), max_size=6),
)
def test_v2_streams_through_the_supervisor(
    envelopes: list[Any], directory: str, steps: list[float]
) -> None:
    memory = opencode_v2.WireMemory()
    placed = [
        json.loads(json.dumps(e).replace(json.dumps(FOLDER), json.dumps(directory)))
        for e in [*V2_CORPUS[:9], *envelopes]
    ]
    events = [out for e in placed for out in opencode_v2.normalize(e, memory)]
    with errors_logged() as errors:
        host = asyncio.run(_supervise(events, steps, "project", "opencode-v2"))
    assert not errors, errors
    _assert_in_scope(host)


def test_the_scope_oracle_can_fail() -> None:
    """The same recorded stream nudges a session outside the folder under `scope: all` and
    not under `scope: project`: the property above is not vacuous."""
    memory = opencode_v1.V1Memory()
    raw = [_place(e, "/tmp/other") for e in SAMPLE["todo"]]
    events = [out for r in raw for out in opencode_v1.normalize(r, memory)]
    everywhere = asyncio.run(_supervise(events, [2.0], "all", "opencode-v1"))
    assert everywhere.targets and not _inside(everywhere.targets[0][1])
    memory = opencode_v1.V1Memory()
    events = [out for r in raw for out in opencode_v1.normalize(r, memory)]
    assert asyncio.run(_supervise(events, [2.0], "project", "opencode-v1")).targets == []


# --- the SSE reader -----------------------------------------------------------------------

sse_pieces = st.one_of(
    st.builds(lambda v: ("event", json.dumps({"type": "x", "v": v})), json_values),
    st.builds(
        lambda t: ("garbage", t),
        st.text(
            alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=["Cs"]),
            max_size=40,
        ),
    ),
    st.builds(lambda v: ("lines", json.dumps({"type": "x", "v": v}, indent=1)), json_values),
    st.just(("comment", ": heartbeat")),
    st.just(("broken", '{"type": "x", "v": [1, 2')),
    st.just(("huge", "z" * 70_000)),
)


def _sse_stream(pieces: list[tuple[str, str]], newline: str) -> tuple[bytes, list[str]]:
    """The stream bytes and the data of the events a correct reader must return."""
    out: list[str] = []
    expected: list[str] = []
    for kind, text in pieces:
        if kind == "event":
            out.append(f"data: {text}{newline}{newline}")
            expected.append(text)
        elif kind == "lines":
            # One event over several `data:` lines (the reader joins them with LF), with an id.
            data = "".join(f"data: {line}{newline}" for line in text.split("\n"))
            out.append(f"id: 7{newline}event: message{newline}{data}{newline}")
            expected.append(text)
        elif kind == "broken":
            out.append(f"data: {text}{newline}{newline}")
            expected.append(text)  # the reader frames it; the adapter's JSON parse drops it
        elif kind == "huge":
            out.append(f"data: {text}{newline}{newline}")  # over the limit: dropped whole
        elif kind == "garbage":
            # A line that is no `data` field (SSE ignores unknown fields), then a blank line.
            line = "x" + text.replace(":", "")
            out.append(f"{line}{newline}{newline}")
        else:
            out.append(f"{text}{newline}")
    return "".join(out).encode(), expected


@FUZZ
@given(
    pieces=st.lists(sse_pieces, max_size=12),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
    cuts=st.lists(st.integers(min_value=1, max_value=200_000), max_size=8),
    cut_after_cr=st.booleans(),
)
def test_sse_reader_survives_garbage_and_chunking(
    pieces: list[tuple[str, str]], newline: str, cuts: list[int], cut_after_cr: bool
) -> None:
    """Any mix of events, garbage lines, comments, broken JSON and oversized lines, cut into
    arbitrary chunks (a CRLF may be split between two): exactly the well-formed events come
    out, in order, and nothing raises."""
    body, expected = _sse_stream(pieces, newline)
    cut_at = {c % (len(body) + 1) for c in cuts} | {0, len(body)}
    if cut_after_cr:  # a network read can end between the CR and the LF of one line break
        cut_at |= {i + 1 for i, byte in enumerate(body) if byte == ord("\r")}
    chunks = [body[a:b] for a, b in itertools.pairwise(sorted(cut_at)) if b > a]

    async def read() -> list[str]:
        def handler(request: httpx.Request) -> httpx.Response:
            return httpx.Response(
                200, headers={"content-type": "text/event-stream"}, content=_aiter(chunks)
            )

        http = HostHttp("http://127.0.0.1:1", password=None, transport=httpx.MockTransport(handler))
        got: list[str] = []
        async with http.open_stream("/event", max_event_bytes=64 * 1024) as frames:
            async for frame in frames:
                got.append(frame.data)
        await http.aclose()
        return got

    assert asyncio.run(read()) == expected


async def _aiter(chunks: list[bytes]) -> Any:
    for chunk in chunks:
        yield chunk
