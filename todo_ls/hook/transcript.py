"""An agent's transcript (JSON Lines), read from its end only.

A Stop hook runs at every turn end of sessions whose transcripts reach tens of megabytes, so
nothing here reads more than a fixed tail: `TAIL_BYTES` for the work evidence, at most
`FAR_BYTES` when an own todo list is looked for further back. Lines are parsed only when they
pass the host's cheap byte tests.

`evidence` is what the work rule reads (docs/hosts-hooks.md, "Work means acting"): where the
latest tool call ends, and which of a tool call, a real prompt, todo-ls's nudge or an
interrupt came last.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from todo_ls.hook.hosts.base import NUDGE_MARK, HookHost, LineKind

TAIL_BYTES = 512 * 1024
# An own list set long ago: at most this far back. Once found, the store keeps it, so only a
# hook that first sees a session late looks this far.
FAR_BYTES = 1024 * 1024
_MARK = NUDGE_MARK.encode()
_T = TypeVar("_T")


class Evidence(NamedTuple):
    """What the transcript's tail shows of the agent's latest acts."""

    tool_end: int | None  # the file offset where the latest tool call ends (None: none seen)
    latest: LineKind | None  # the latest of a tool call, a real prompt, a nudge, an interrupt


class Transcript:
    """The tail of one transcript file, read once."""

    def __init__(self, path: Path, data: bytes, start: int) -> None:
        self.path = path
        self.data = data
        self.start = start  # the file offset of `data`

    @classmethod
    def open(cls, path: Path, tail: int = TAIL_BYTES) -> Transcript | None:
        """The last `tail` bytes of `path`; None when it cannot be read."""
        try:
            return cls(path, *_read_tail(path, tail))
        except OSError:
            return None

    def lines(self) -> Iterator[tuple[int, bytes]]:
        """Complete lines, the latest first, with the file offset where each ends (a line
        cut by the start of the tail is left out)."""
        data = self.data
        end = len(data)
        while end > 0:
            begin = data.rfind(b"\n", 0, end - 1) + 1
            if begin == 0 and self.start > 0:
                return
            line = data[begin:end].strip()
            if line:
                yield self.start + end, line
            end = begin

    def records(self, hints: tuple[bytes, ...]) -> Iterator[tuple[int, Mapping[str, Any]]]:
        """The JSON object lines passing any of `hints`, the latest first."""
        for end, line in self.lines():
            if hints and not any(h in line for h in hints):
                continue
            record = parse_line(line)
            if record is not None:
                yield end, record

    def last(self, needle: bytes, read: Callable[[Mapping[str, Any]], _T | None]) -> _T | None:
        """The latest record holding `needle` that `read` accepts, looked for in the tail and
        then up to `FAR_BYTES` back."""
        found = _last_in(self.data, self.start, self.start > 0, needle, read)
        if found is not None or self.start == 0:
            return found
        try:
            data, start = _read_tail(self.path, FAR_BYTES, upto=self.start + len(self.data))
        except OSError:
            return None
        return _last_in(data, start, start > 0, needle, read)


def evidence(transcript: Transcript, host: HookHost) -> Evidence:
    """The work evidence of the transcript's tail, classified by `host`."""
    tool_end: int | None = None
    latest: LineKind | None = None
    hints = (*host.line_hints, _MARK) if host.line_hints else ()
    for end, record in transcript.records(hints):
        kind = host.line_kind(record)
        if kind is None:
            continue
        if latest is None:
            latest = kind
        if kind == "tool":
            tool_end = end
            break
    return Evidence(tool_end, latest)


def mentions_nudge(texts: list[str]) -> bool:
    """Whether a message's texts carry todo-ls's nudge."""
    return any(NUDGE_MARK in t for t in texts)


def parse_line(line: bytes) -> Mapping[str, Any] | None:
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _read_tail(path: Path, size: int, upto: int | None = None) -> tuple[bytes, int]:
    with path.open("rb") as handle:
        end = handle.seek(0, os.SEEK_END) if upto is None else upto
        start = max(0, end - size)
        handle.seek(start)
        return handle.read(end - start), start


def _last_in(
    data: bytes,
    start: int,
    cut: bool,
    needle: bytes,
    read: Callable[[Mapping[str, Any]], _T | None],
) -> _T | None:
    at = len(data)
    while True:
        at = data.rfind(needle, 0, at)
        if at < 0:
            return None
        begin = data.rfind(b"\n", 0, at) + 1
        if begin == 0 and cut:
            return None  # the line starts before the window
        stop = data.find(b"\n", at)
        record = parse_line(data[begin : len(data) if stop < 0 else stop])
        found = read(record) if record is not None else None
        if found is not None:
            return found
        at = begin
