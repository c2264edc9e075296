"""The shared HTTP plumbing (todo_ls.hosts.http), against httpx.MockTransport: no server."""

from __future__ import annotations

import asyncio
import base64
import gzip
import logging
from collections.abc import AsyncIterator, Callable

import httpx
import pytest

from todo_ls.core.clock import FakeClock
from todo_ls.hosts.base import HostError
from todo_ls.hosts.http import Backoff, HostHttp, reconnect_forever
from todo_ls.hosts.redaction import Redactor

PASSWORD = "s3cr3t-pw"
TOKEN = base64.b64encode(f"opencode:{PASSWORD}".encode()).decode()


def _http(handler: Callable[[httpx.Request], httpx.Response], **kw: object) -> HostHttp:
    return HostHttp(
        "http://127.0.0.1:1",
        password=PASSWORD,
        auth_hint="check OPENCODE_SERVER_PASSWORD",
        transport=httpx.MockTransport(handler),
        **kw,  # type: ignore[arg-type]
    )


def _sse(chunks: list[bytes], *, stall: bool = False) -> httpx.Response:
    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk
        if stall:
            await asyncio.sleep(3600)

    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())


async def test_basic_auth_sent_and_401_names_the_env_var_not_the_password() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("authorization", ""))
        return httpx.Response(401)

    http = _http(handler)
    with pytest.raises(HostError) as info:
        await http.get_json("/global/health")
    assert info.value.kind == "unauthorized"
    assert "OPENCODE_SERVER_PASSWORD" in str(info.value)
    assert PASSWORD not in str(info.value)
    assert seen == ["Basic " + TOKEN]
    await http.aclose()


async def test_status_codes_map_to_error_kinds() -> None:
    codes = {"/a": 404, "/b": 500, "/c": 400}
    http = _http(lambda r: httpx.Response(codes[r.url.path], json={"name": "X"}))
    kinds = []
    for path in codes:
        with pytest.raises(HostError) as info:
            await http.send("POST", path, json={})
        kinds.append(info.value.kind)
    assert kinds == ["not-found", "server", "protocol"]
    await http.aclose()


async def test_get_retries_a_timeout_but_post_does_not() -> None:
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.method)
        if len(calls) == 1 or request.method == "POST":
            raise httpx.ReadTimeout("hang", request=request)
        return httpx.Response(200, json={"healthy": True})

    clock = FakeClock()
    http = _http(handler, clock=clock)
    answer = asyncio.ensure_future(http.get_json("/global/health"))
    assert await clock.next_wait() == pytest.approx(0.2)  # the pause before the retry
    assert calls == ["GET"] and not answer.done()
    clock.advance(0.2)
    assert await answer == {"healthy": True}
    with pytest.raises(HostError) as info:
        await http.send("POST", "/session/x/prompt_async", json={})
    assert info.value.kind == "timeout"
    assert calls == ["GET", "GET", "POST"]
    await http.aclose()


async def test_refused_connection_is_unreachable_without_the_password() -> None:
    http = HostHttp("http://127.0.0.1:9", password=PASSWORD, retries=0)
    with pytest.raises(HostError) as info:
        await http.get_json("/global/health")
    assert info.value.kind == "unreachable"
    assert PASSWORD not in str(info.value)
    await http.aclose()


async def test_sse_tolerates_garbage_comments_split_chunks_and_drops_oversized() -> None:
    big = b"data: " + b"x" * 5000 + b"\n\n"
    chunks = [
        b": heartbeat\n\n",
        b"garbage line without colon\n",
        b'data: {"a"',
        b": 1}\n\n",
        big,
        b'event: message\r\ndata: {"b": 2}\r\n\r\n',
    ]
    http = _http(lambda r: _sse(chunks))
    async with http.open_stream("/event", max_event_bytes=1000) as frames:
        data = [frame.data async for frame in frames]
    assert data == ['{"a": 1}', '{"b": 2}']
    await http.aclose()


async def test_sse_text_split_inside_a_character_and_a_compressed_stream_read_whole() -> None:
    """The reader decodes the raw body itself: a character split between two HTTP chunks
    arrives whole, and a server that compresses the stream is read through httpx's decoding."""
    event = 'data: {"text": "Grüße, 完了 ✓"}\n\n'.encode()
    cut = event.index("完".encode()) + 1  # inside the three bytes of one character
    http = _http(lambda r: _sse([event[:cut], event[cut:]]))
    async with http.open_stream("/event") as frames:
        split = [frame.data async for frame in frames]
    compressed = httpx.Response(
        200,
        headers={"content-type": "text/event-stream", "content-encoding": "gzip"},
        content=gzip.compress(event * 2),
    )
    http_gzip = _http(lambda r: compressed)
    async with http_gzip.open_stream("/event") as frames:
        unzipped = [frame.data async for frame in frames]
    assert split == ['{"text": "Grüße, 完了 ✓"}']
    assert unzipped == split * 2
    await http.aclose()
    await http_gzip.aclose()


async def test_sse_watchdog_ends_a_silent_stream() -> None:
    http = _http(lambda r: _sse([b'data: {"a": 1}\n\n'], stall=True))
    got = []
    with pytest.raises(HostError) as info:
        async with http.open_stream("/event", idle_timeout=0.2) as frames:
            async for frame in frames:
                got.append(frame.data)
    assert got == ['{"a": 1}']
    assert info.value.kind == "timeout"
    await http.aclose()


async def test_a_reader_cancelled_as_a_chunk_arrives_stops() -> None:
    """The cancel that stops the supervisor can land in the same loop step as the next chunk
    (a heartbeat, an event). It must still stop the reader: asyncio.wait_for before Python 3.12
    returned the chunk and dropped the cancel, so the supervisor never stopped."""
    arrived: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()

    async def body() -> AsyncIterator[bytes]:
        yield b'data: {"a": 1}\n\n'
        yield await arrived
        await asyncio.sleep(3600)

    http = _http(lambda r: httpx.Response(200, headers={"content-type": "text/event-stream"},
                                          content=body()))  # fmt: skip
    got: list[str] = []

    async def read() -> None:
        async with http.open_stream("/event", idle_timeout=60) as frames:
            async for frame in frames:
                got.append(frame.data)

    reader = asyncio.ensure_future(read())
    while not got:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)  # the reader now waits for the next chunk
    arrived.set_result(b'data: {"b": 2}\n\n')
    reader.cancel()
    done, _ = await asyncio.wait({reader}, timeout=2)
    assert done, "the cancelled reader kept reading"
    assert reader.cancelled()
    await http.aclose()


async def test_stream_open_rejects_401_and_html() -> None:
    for response, kind in [
        (httpx.Response(401), "unauthorized"),
        (httpx.Response(200, text="<html>", headers={"content-type": "text/html"}), "protocol"),
    ]:
        http = _http(lambda r, resp=response: resp)
        with pytest.raises(HostError) as info:
            async with http.open_stream("/event"):
                pass
        assert info.value.kind == kind
        await http.aclose()


def test_backoff_is_capped_and_jittered() -> None:
    low = Backoff(initial=1, factor=2, cap=10, random=lambda: 0.0)
    high = Backoff(initial=1, factor=2, cap=10, random=lambda: 1.0)
    assert [low.delay(n) for n in range(6)] == [0.5, 1, 2, 4, 5, 5]
    assert [high.delay(n) for n in range(6)] == [1, 2, 4, 8, 10, 10]
    assert high.delay(10_000) == 10


async def test_reconnect_forever_backs_off_until_healthy() -> None:
    clock = FakeClock()
    runs = 0

    async def connect(mark_healthy: Callable[[], None]) -> AsyncIterator[str]:
        nonlocal runs
        runs += 1
        yield f"open{runs}"
        if runs in (1, 2):
            raise HostError("unreachable", "down")
        mark_healthy()

    backoff = Backoff(initial=1, factor=2, cap=60, random=lambda: 1.0, clock=clock)
    items = reconnect_forever(connect, lambda e: f"drop:{e}", backoff)
    seen = [await anext(items), await anext(items)]
    waited: list[float] = []
    while len(seen) < 8:
        after_drop = asyncio.ensure_future(anext(items))
        waited.append(await clock.next_wait())
        clock.advance(waited[-1] - 0.001)  # not a moment before the backoff is over
        await asyncio.sleep(0)
        assert not after_drop.done()
        clock.advance(0.001)
        seen += [await after_drop, await anext(items)]
    assert seen == ["open1", "drop:down", "open2", "drop:down", "open3", "drop:None", "open4",
                    "drop:None"]  # fmt: skip
    assert waited == pytest.approx([2, 4, 1])


def test_redactor_and_log_records(caplog: pytest.LogCaptureFixture) -> None:
    redactor = Redactor()
    redactor.add_basic_auth("opencode", PASSWORD)
    token = TOKEN
    assert redactor.scrub(f"pw={PASSWORD} hdr={token}") == "pw=*** hdr=***"
    _http(lambda r: httpx.Response(200))  # installs the process-wide log redaction
    with caplog.at_level(logging.DEBUG):
        logging.getLogger("anything").warning("leak %s and %s", PASSWORD, token)
        try:
            raise RuntimeError(PASSWORD)
        except RuntimeError:
            logging.getLogger("anything").exception("boom")
    assert PASSWORD not in caplog.text
    assert token not in caplog.text
