"""`framing.StdinReader` reads whatever stdin is: a pipe (what an editor gives) through the
event loop, a file and `/dev/null` (which epoll refuses) through the thread pool, the same
bytes either way (docs/performance.md, "`workspace/symbol`: one joined text, and a cheaper
request")."""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from todo_ls.server.framing import StdinReader, read_length

MESSAGE = b"Content-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]"


@pytest.fixture
def executor() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(1) as pool:
        yield pool


async def read_two(reader: StdinReader) -> list[bytes]:
    bodies = []
    for _ in range(2):
        length = await read_length(reader)
        assert length is not None
        bodies.append(await reader.readexactly(length))
    assert await read_length(reader) is None  # then the end of input
    return bodies


async def test_a_pipe_is_read_through_the_event_loop(executor: ThreadPoolExecutor) -> None:
    r, w = os.pipe()
    os.write(w, MESSAGE)
    os.close(w)
    with os.fdopen(r, "rb", buffering=0) as stdin:
        reader = StdinReader(stdin, executor)
        assert reader._pollable
        assert await read_two(reader) == [b"{}", b"[1]"]


async def test_a_file_is_read_in_the_thread_pool(
    tmp_path: Path, executor: ThreadPoolExecutor
) -> None:
    (tmp_path / "in").write_bytes(MESSAGE)
    with (tmp_path / "in").open("rb") as stdin:
        reader = StdinReader(stdin, executor)
        assert not reader._pollable
        assert await read_two(reader) == [b"{}", b"[1]"]


async def test_dev_null_is_the_end_of_input(executor: ThreadPoolExecutor) -> None:
    with open(os.devnull, "rb") as stdin:  # a device: pollable by its mode, refused by epoll
        reader = StdinReader(stdin, executor)
        assert await reader.readline() == b""
        assert await read_length(reader) is None
