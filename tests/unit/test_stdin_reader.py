"""`framing.serve` reads whatever stdin is: a pipe (what an editor gives) in the event loop's
own callback, a file and `/dev/null` (which epoll refuses) through the thread pool, the same
messages either way (docs/performance.md, "`workspace/symbol`: searching from a rare
character")."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from pygls.protocol import JsonRPCProtocol, default_converter

from todo_ls.server.framing import StdinReader, serve

MESSAGES = b"".join(
    b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    for body in (
        b'{"jsonrpc": "2.0", "method": "a", "params": {}}',
        b'{"jsonrpc": "2.0", "method": "b", "params": {}}',
    )
)


class Recorder(JsonRPCProtocol):
    """A protocol that keeps the methods of what it is handed."""

    def __init__(self) -> None:
        super().__init__(None, default_converter())  # type: ignore[arg-type]
        self.seen: list[str] = []

    def handle_message(self, message: Any) -> None:
        self.seen.append(message.method)


@pytest.fixture
def executor() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(1) as pool:
        yield pool


async def served(reader: StdinReader) -> list[str]:
    """The methods of the messages `serve` hands on, until the input ends."""
    protocol = Recorder()
    await serve(threading.Event(), reader, protocol)
    return protocol.seen


async def test_a_pipe_is_read_in_the_event_loop(executor: ThreadPoolExecutor) -> None:
    r, w = os.pipe()
    os.write(w, MESSAGES)
    os.close(w)
    with os.fdopen(r, "rb", buffering=0) as stdin:
        reader = StdinReader(stdin, executor)
        assert reader.pollable
        assert await served(reader) == ["a", "b"]


async def test_a_file_is_read_in_the_thread_pool(
    tmp_path: Path, executor: ThreadPoolExecutor
) -> None:
    (tmp_path / "in").write_bytes(MESSAGES)
    with (tmp_path / "in").open("rb") as stdin:
        reader = StdinReader(stdin, executor)
        assert not reader.pollable
        assert await served(reader) == ["a", "b"]


async def test_dev_null_is_the_end_of_input(executor: ThreadPoolExecutor) -> None:
    with open(os.devnull, "rb") as stdin:  # a device: pollable by its mode, refused by epoll
        reader = StdinReader(stdin, executor)
        assert await served(reader) == []
