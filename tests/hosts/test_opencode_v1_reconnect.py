"""How the 1.x adapter logs a server that goes away: once, not at every reconnect attempt.

Over `httpx.MockTransport` (no server): the event route refuses a few connections, then serves
a stream that stays open until the test ends it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import httpx
import pytest

from todo_ls.core import events as ev
from todo_ls.hosts.http import Backoff, HostHttp
from todo_ls.hosts.opencode_v1.adapter import OpenCodeV1Host

pytestmark = pytest.mark.timeout(30)


class FlakyServer:
    """A 1.x server whose event route refuses `refusals` connections first."""

    def __init__(self, refusals: int) -> None:
        self.refusals = refusals
        self.end_stream = asyncio.Event()

    async def handler(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/global/event":
            if self.refusals > 0:
                self.refusals -= 1
                raise httpx.ConnectError("connection refused", request=request)
            return httpx.Response(
                200, headers={"content-type": "text/event-stream"}, content=self._stream()
            )
        answers = {
            "/global/health": {"healthy": True, "version": "1.18.33"},
            "/session/status": {},
            "/session": [],
        }
        return httpx.Response(200, json=answers[path])

    async def _stream(self) -> AsyncIterator[bytes]:
        yield b": connected\n\n"
        await self.end_stream.wait()


async def _until(stream: AsyncIterator[ev.HostEvent], kind: type) -> list[ev.HostEvent]:
    got: list[ev.HostEvent] = []
    async for event in stream:
        got.append(event)
        if isinstance(event, kind):
            return got
    raise AssertionError(f"the stream ended before a {kind.__name__}: {got}")


async def test_an_outage_is_logged_once_and_the_recovery_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = FlakyServer(refusals=4)
    http = HostHttp(
        "http://127.0.0.1:4096", password=None, transport=httpx.MockTransport(server.handler)
    )
    host = OpenCodeV1Host(http, version=None, backoff=Backoff(initial=0.0))
    stream = host.watch()
    caplog.set_level(logging.DEBUG, logger="todo_ls.hosts.opencode_v1.adapter")

    def lines(level: int) -> list[str]:
        return [
            r.getMessage()
            for r in caplog.records
            if r.name == "todo_ls.hosts.opencode_v1.adapter" and r.levelno == level
        ]

    try:
        got = await _until(stream, ev.Resynced)
        assert sum(isinstance(e, ev.Disconnected) for e in got) == 4  # each attempt is seen
        [warning] = lines(logging.WARNING)
        assert "lost" in warning and "unreachable" in warning
        assert sum("still unavailable" in m for m in lines(logging.DEBUG)) == 3
        assert [m for m in lines(logging.INFO) if "reconnected" in m] == [
            "OpenCode event stream reconnected"
        ]
        # A later outage is a new one: it is logged again.
        server.end_stream.set()
        await _until(stream, ev.Disconnected)
        assert len(lines(logging.WARNING)) == 2
    finally:
        await stream.aclose()  # type: ignore[attr-defined]
        await host.aclose()
