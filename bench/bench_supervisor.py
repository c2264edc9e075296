"""Supervisor: event throughput, memory over a long stream, idle edge → nudge delay.

Events are the real OpenCode 1.18 events of the reference sample (14 recorded scenarios),
copied with their ids rewritten until about 200 distinct sessions take part, wrapped as the
`/global/event` stream sends them (`{directory, payload}`), and encoded as SSE bytes.

- throughput: the bytes go through the adapter's own SSE decoder (fed in 64 KiB chunks, as
  the HTTP client hands them over), `json.loads`, the adapter's `normalize` and the runtime's
  state machine (`Runtime.handle`: tracker, policy, store). Baseline in the same run: the SSE
  decoder and `json.loads` alone.
- memory: RSS of this process at checkpoints while the stream keeps flowing (1,000,000 events
  by default; message, part and call ids are fresh on every pass, session ids are reused).
- nudge delay: with a real clock and a small `settleMs`, each of the ~200 sessions ends a turn
  with open todos; the delay from the idle event to the nudge call, minus `settleMs`.

Budgets (issue 7): >= 30,000 events/s; flat memory; nudge within settleMs + 50 ms at p99.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import gc
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchutil import report, rss_kib, summary

from todo_ls.config import SupervisorSettings
from todo_ls.hosts.base import Capability, HostInfo
from todo_ls.hosts.http import _SseDecoder  # the decoder the adapters' event streams use
from todo_ls.hosts.opencode_v1.events import V1Memory, normalize
from todo_ls.store import Store
from todo_ls.supervisor import events as ev
from todo_ls.supervisor.clock import SystemClock
from todo_ls.supervisor.runtime import Runtime

SAMPLE = Path(__file__).resolve().parents[1] / "tests" / "hosts" / "data"
SAMPLE_FILE = SAMPLE / "opencode-v1-events-sample.jsonl"
BUDGETS = {"events_per_s": 30_000.0, "rss_growth_mb": 10.0, "nudge_delay_p99_ms": 50.0}
CHUNK = 64 * 1024
_ID = re.compile(r"\b(ses|msg|prt|call|evt|per)_([A-Za-z0-9]{8,})")


def sample_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SAMPLE_FILE.read_text().splitlines() if line.strip()]


def rewrite(text: str, copy: int, generation: int, project: str) -> str:
    """Ids of copy `copy`: sessions stay the same across generations, everything else is new."""

    def new_id(match: re.Match[str]) -> str:
        prefix, rest = match.group(1), match.group(2)
        tag = f"c{copy}" if prefix == "ses" else f"c{copy}g{generation}"
        return f"{prefix}_{tag}{rest}"

    return _ID.sub(new_id, text).replace("<tmp>/project", project)


def sse_frames(rows: list[dict[str, Any]], copies: int, generation: int, project: str) -> bytes:
    """One pass over every copy, the copies interleaved event by event like live sessions."""
    frames: list[str] = []
    encoded = [json.dumps({"directory": project, "payload": row["event"]}) for row in rows]
    for line in encoded:
        for copy in range(copies):
            frames.append(f"data: {rewrite(line, copy, generation, project)}\n\n")
    return "".join(frames).encode()


def decode(stream: bytes) -> Iterator[dict[str, Any]]:
    """The adapter's path from bytes to JSON objects: UTF-8, SSE frames, `json.loads`."""
    utf8 = codecs.getincrementaldecoder("utf-8")()
    decoder = _SseDecoder(4 * 1024 * 1024)
    for start in range(0, len(stream), CHUNK):
        for frame in decoder.feed(utf8.decode(stream[start : start + CHUNK])):
            raw = json.loads(frame.data)
            if isinstance(raw, dict):
                yield raw


class MemoryHost:
    """An in-memory OpenCode: records when each nudge call arrives."""

    def __init__(self) -> None:
        self.nudged: dict[str, float] = {}

    @property
    def info(self) -> HostInfo:
        return HostInfo("opencode-v1", "http://127.0.0.1:4096", "1.18.33")

    @property
    def capabilities(self) -> frozenset[Capability]:
        return frozenset(Capability)

    async def watch(self) -> AsyncIterator[ev.HostEvent]:
        yield ev.Connected("opencode-v1", "http://127.0.0.1:4096", "1.18.33")

    async def session(self, session_id: str) -> ev.SessionInfo | None:
        return None

    async def busy_sessions(self) -> Mapping[str, ev.BusyKind]:
        return {}

    def set_directories(self, directories: Sequence[str]) -> None:
        pass  # one folder, never changed

    async def nudge(self, session_id: str, text: str, description: str) -> None:
        self.nudged.setdefault(session_id, time.perf_counter())

    async def toast(self, title: str, message: str, variant: str) -> bool:
        return True

    async def aclose(self) -> None:
        pass


class Folder:
    """The workspace side: one folder, no subscribed files (the session todos are open)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def folders(self) -> list[str]:
        return [self.path]

    def file_items(self, folder: str) -> list[Any]:
        return []


def runtime(root: Path, settings: SupervisorSettings, host: MemoryHost) -> Runtime:
    project = str(root / "project")

    async def connect() -> MemoryHost:
        return host

    rt = Runtime(connect, Store(root / "state.db"), settings, SystemClock(), Folder(project))
    rt.host = host
    rt.handle(ev.Connected("opencode-v1", "http://127.0.0.1:4096", "1.18.33"))
    rt.handle(ev.Resynced(busy={}))
    return rt


async def throughput(root: Path, total_events: int, copies: int) -> dict[str, Any]:
    rows = sample_rows()
    project = str(root / "project")
    settings = SupervisorSettings()
    rt = runtime(root, settings, MemoryHost())
    memory = V1Memory()
    passes = max(1, -(-total_events // (len(rows) * copies)))
    consumed = 0
    pipeline_s = baseline_s = 0.0
    checkpoints: list[tuple[int, float]] = []
    for generation in range(passes):
        stream = sse_frames(rows, copies, generation, project)
        start = time.perf_counter()
        frames = sum(1 for _ in decode(stream))
        baseline_s += time.perf_counter() - start
        start = time.perf_counter()
        for raw in decode(stream):
            for event in normalize(raw, memory):
                rt.handle(event)
        pipeline_s += time.perf_counter() - start
        consumed += frames
        await asyncio.sleep(0)  # let due timers run, as they would between reads
        del stream
        gc.collect()
        checkpoints.append((consumed, rss_kib_self() / 1024))
    await rt.stop()
    rt.store.close()
    settled = checkpoints[len(checkpoints) // 4][1] if len(checkpoints) > 1 else checkpoints[0][1]
    growth = checkpoints[-1][1] - settled
    return {
        "events": consumed,
        "sessions": len(rt.tracker.sessions),
        "events_per_s": round(consumed / pipeline_s),
        "baseline_decode_only_events_per_s": round(consumed / baseline_s),
        "ratio_to_baseline": round(pipeline_s / baseline_s, 2),
        "rss_mb_checkpoints": [[n, round(mb, 1)] for n, mb in checkpoints],
        "rss_growth_mb_after_first_quarter": round(growth, 1),
    }


def rss_kib_self() -> int:
    return rss_kib(os.getpid())["VmRSS"]


async def nudge_delay(root: Path, sessions: int, settle_ms: int) -> dict[str, Any]:
    """Each session of the `todo` scenario ends its turn; delay of its nudge after settleMs."""
    rows = [r for r in sample_rows() if r["scenario"] == "todo"]
    project = str(root / "project")
    settings = SupervisorSettings(settle_ms=settle_ms)
    host = MemoryHost()
    rt = runtime(root, settings, host)
    memory = V1Memory()
    cut = next(
        i
        for i, r in enumerate(rows)
        if r["event"]["type"] == "session.status"
        and r["event"]["properties"]["status"]["type"] == "idle"
    )
    idle_at: dict[str, float] = {}
    for copy in range(sessions):
        for row in rows[:cut]:
            for event in normalize(
                json.loads(rewrite(json.dumps(row["event"]), copy, 0, project)), memory
            ):
                rt.handle(event)
    for copy in range(sessions):
        for n, row in enumerate(rows[cut:]):
            raw = json.loads(rewrite(json.dumps(row["event"]), copy, 0, project))
            for event in normalize(raw, memory):
                if n == 0:
                    idle_at.setdefault(event.session_id, time.perf_counter())
                rt.handle(event)
        await asyncio.sleep(0.002)  # turns end a little apart, as they do in real life
    deadline = time.perf_counter() + settle_ms / 1000 + 10
    while len(host.nudged) < len(idle_at) and time.perf_counter() < deadline:
        await asyncio.sleep(0.01)
    await rt.drain()
    await rt.stop()
    rt.store.close()
    delays = [
        host.nudged[sid] - at - settle_ms / 1000
        for sid, at in idle_at.items()
        if sid in host.nudged
    ]
    return {
        "sessions": len(idle_at),
        "nudged": len(host.nudged),
        "settle_ms": settle_ms,
        "delay_after_settle": summary(delays) if delays else None,
    }


async def main_async(total_events: int, copies: int, sessions: int, settle_ms: int) -> None:
    with tempfile.TemporaryDirectory(prefix="todo-ls-bench-") as tmp:
        root = Path(tmp)
        (root / "project").mkdir()
        (root / "a").mkdir()
        (root / "b").mkdir()
        flow = await throughput(root / "a", total_events, copies)
        delay = await nudge_delay(root / "b", sessions, settle_ms)
    delay_p99 = delay["delay_after_settle"]["p99_ms"] if delay["delay_after_settle"] else None
    within = (
        flow["events_per_s"] >= BUDGETS["events_per_s"]
        and flow["rss_growth_mb_after_first_quarter"] <= BUDGETS["rss_growth_mb"]
        and delay["nudged"] == delay["sessions"]
        and delay_p99 is not None
        and delay_p99 <= BUDGETS["nudge_delay_p99_ms"]
    )
    report(
        "supervisor",
        {
            "throughput": flow,
            "nudge": delay,
            "budget": BUDGETS,
            "within_budget": within,
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000, help="events to stream")
    parser.add_argument("--copies", type=int, default=17, help="sample copies (12 sessions each)")
    parser.add_argument("--sessions", type=int, default=200, help="sessions ending a turn")
    parser.add_argument("--settle-ms", type=int, default=200, help="supervisor.settleMs")
    args = parser.parse_args()
    asyncio.run(main_async(args.events, args.copies, args.sessions, args.settle_ms))


if __name__ == "__main__":
    main()
