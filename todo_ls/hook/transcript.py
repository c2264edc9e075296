"""An agent's transcript (JSON Lines), read from its end only.

A Stop hook runs at every turn end of sessions whose transcripts reach tens of megabytes, so
nothing here reads more than a fixed tail, `TAIL_BYTES`, for the work evidence and the own
todo list alike. Lines are parsed only when they pass the host's cheap byte tests.

`evidence` is what the work rule reads (docs/hosts-hooks.md, "Work means acting"): where the
latest tool call ends, and which of a tool call, a real prompt, todo-ls's nudge or an
interrupt came last.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar, Literal, NamedTuple, Protocol, TypeVar

from todo_ls.regular_files import NotRegularFile, open_regular

# What a transcript record is, as far as the work rule cares (None: none of these).
LineKind = Literal["tool", "prompt", "nudge", "interrupt"]
NUDGE_MARK = "todo-ls: Stop nudge #"  # how every block reason starts (core.block_reason)

# An own list is found here once and kept in the store, so only a hook that first sees a
# session after its list scrolled out of this window misses it.
TAIL_BYTES = 512 * 1024
_MARK = NUDGE_MARK.encode()
_T = TypeVar("_T")


class LineReader(Protocol):
    """How a host's transcript records are told apart (each `hosts.base.HookHost` is one)."""

    # Cheap byte tests a line must pass before it is parsed.
    line_hints: ClassVar[tuple[bytes, ...]]

    def line_kind(self, record: Mapping[str, Any]) -> LineKind | None:
        """What one parsed record is, or None."""
        ...


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
    def open(
        cls, path: Path, tail: int = TAIL_BYTES, refused: Callable[[str], None] | None = None
    ) -> Transcript | None:
        """The last `tail` bytes of `path`; None when it cannot be read. A FIFO, socket or
        device is told to `refused` (a missing file or a folder is not: some hosts name
        one)."""
        try:
            return cls(path, *_read_tail(path, tail))
        except NotRegularFile as err:
            if refused is not None:
                refused(str(err))
            return None
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
        """The latest record of the tail holding `needle` that `read` accepts (a byte search,
        then only the lines found are parsed)."""
        data = self.data
        at = len(data)
        while True:
            at = data.rfind(needle, 0, at)
            if at < 0:
                return None
            begin = data.rfind(b"\n", 0, at) + 1
            if begin == 0 and self.start > 0:
                return None  # the line starts before the tail
            stop = data.find(b"\n", at)
            record = parse_line(data[begin : len(data) if stop < 0 else stop])
            found = read(record) if record is not None else None
            if found is not None:
                return found
            at = begin


def evidence(transcript: Transcript, host: LineReader) -> Evidence:
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


def read_regular(path: Path, limit: int = TAIL_BYTES) -> bytes:
    """At most `limit` bytes of the regular file `path` (OSError for a FIFO or a device)."""
    with open_regular(path) as handle:
        return handle.read(limit)


def _read_tail(path: Path, size: int) -> tuple[bytes, int]:
    with open_regular(path) as handle:
        end = handle.seek(0, os.SEEK_END)
        start = max(0, end - size)
        handle.seek(start)
        return handle.read(end - start), start
