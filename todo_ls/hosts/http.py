"""HTTP plumbing shared by the host adapters (OpenCode 1.x and 2.x). Host-neutral.

What lives here, and why:

- `HostHttp`: one `httpx.AsyncClient` per host with Basic auth built from a password, a short
  timeout on every call (early requests to a starting OpenCode can hang forever, so nothing
  waits without a limit) and the mapping of every failure to a `HostError` whose message never
  contains the password. `get_json` retries idempotent reads on timeouts and refused
  connections; `send` retries only when the request cannot have reached the server.
- `HostHttp.open_stream`: an SSE reader for the event stream. It does its own line decoding
  (httpx-sse's decoder drops comment lines, which are the 2.x keep-alive, and buffers an event
  of any size): every byte that arrives, comments included, feeds an idle watchdog, garbage
  lines are skipped, an event larger than `max_event_bytes` is dropped whole, and frames come
  out as `httpx_sse.ServerSentEvent`. The stream read itself has no timeout: the watchdog ends
  it (as a `HostError("timeout")`) when nothing arrives for `idle_timeout` seconds.
- `Backoff` and `reconnect_forever`: capped, jittered reconnect with an injectable clock and
  random (every wait here is on a `Clock`, so tests drive time instead of sleeping);
  `OutageLog`: one log line when a connection is lost and one when it is back, not one per retry.
- Secrets are scrubbed from error text and from the process's log records by
  `todo_ls.hosts.redaction`.
"""

from __future__ import annotations

import asyncio
import codecs
import logging
import random
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
from httpx_sse import ServerSentEvent

from todo_ls.core.clock import Clock, SystemClock
from todo_ls.hosts.base import ErrorKind, HostError
from todo_ls.hosts.redaction import Redactor, install_log_redaction

log = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_USERNAME = "opencode"
# Host requests in flight at once per connection to a host (the event stream not counted);
# below httpx's 20 kept-alive connections, so the connections are reused. A host answers on
# loopback in about a millisecond, and httpcore's pool does more work per request the more
# connections it holds: 200 sessions nudged at once, p99 after settleMs 44-48 ms with 16
# against 33-43 ms with 4 (bench_supervisor --only nudge, load ~2).
MAX_CONCURRENT_REQUESTS = 4
RETRY_PAUSE_S = 0.2  # `send` waits this, then twice this, ... between its attempts


# --- backoff and reconnect ----------------------------------------------------------------


@dataclass
class Backoff:
    """Capped exponential backoff with jitter: attempt n waits between half and all of
    `min(cap, initial * factor**n)` seconds, on `clock`. `clock` and `random` are for tests."""

    initial: float = 0.5
    factor: float = 2.0
    cap: float = 30.0
    random: Callable[[], float] = field(default=random.random)
    clock: Clock = field(default_factory=SystemClock)

    def delay(self, attempt: int) -> float:
        """Seconds to wait before reconnect attempt `attempt` (0-based)."""
        base = min(self.cap, self.initial * self.factor ** min(attempt, 64))
        return base * (0.5 + 0.5 * self.random())

    async def wait(self, attempt: int) -> None:
        await self.clock.sleep(self.delay(attempt))


class OutageLog:
    """How an adapter logs its lost connection: the first failure once at `level`, each further
    failed attempt at DEBUG (a server that stays down must not flood the log), and one INFO line
    when a connection is usable again."""

    def __init__(self, logger: logging.Logger, what: str, level: int = logging.WARNING) -> None:
        self._log = logger
        self._what = what
        self._level = level
        self._down = False

    def lost(self, reason: str) -> None:
        """A connection attempt failed or a connection ended."""
        if self._down:
            self._log.debug("%s still unavailable: %s; retrying", self._what, reason)
            return
        self._down = True
        self._log.log(self._level, "%s lost: %s; reconnecting", self._what, reason)

    def restored(self) -> None:
        """A connection is usable again (after its resync)."""
        if self._down:
            self._down = False
            self._log.info("%s reconnected", self._what)


async def reconnect_forever(
    connect: Callable[[Callable[[], None]], AsyncIterator[T]],
    dropped: Callable[[HostError | None], T],
    backoff: Backoff,
) -> AsyncIterator[T]:
    """Run `connect` again and again, yielding what it yields.

    `connect(mark_healthy)` opens a connection and yields items until it ends (return: the
    server closed it; `HostError`: it failed). Each time, `dropped(error)` is yielded (None for
    a clean close) and the loop waits `backoff.delay(attempt)`. `connect` calls `mark_healthy()`
    once the connection is really usable (e.g. after a successful resync), which resets the
    backoff; a connection that opens and fails at once keeps backing off.
    """
    attempt = 0
    while True:
        healthy = False

        def mark_healthy() -> None:
            nonlocal healthy
            healthy = True

        error: HostError | None = None
        try:
            async for item in connect(mark_healthy):
                yield item
        except HostError as exc:
            error = exc
        attempt = 0 if healthy else attempt + 1
        yield dropped(error)
        await backoff.wait(attempt)


# --- SSE ----------------------------------------------------------------------------------


class _SseDecoder:
    """Incremental SSE decoder with a size bound. Lines of unknown fields are ignored."""

    def __init__(self, max_event_bytes: int) -> None:
        self._max = max_event_bytes
        self._pending = ""
        self._event = ""
        self._id = ""
        self._data: list[str] = []
        self._size = 0
        self._oversized = False
        self.dropped = 0  # events dropped for size, for the log
        self._after_cr = False  # the last chunk ended with CR

    def feed(self, text: str) -> list[ServerSentEvent]:
        # A read can end between the CR and the LF of one CRLF: that LF ends no second line.
        split_crlf = self._after_cr and text.startswith("\n")
        if text:
            self._after_cr = text.endswith("\r")
        if split_crlf:
            text = text[1:]
        text = self._pending + text
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        self._pending = lines.pop()
        if len(self._pending) > self._max:
            # An endless line: drop it and the event it belongs to.
            self._pending = ""
            self._oversized = True
        frames: list[ServerSentEvent] = []
        for line in lines:
            # `data:` lines and blank lines are nearly all of a stream: handled here, without
            # a call each (a tenth of the reader's time went to these two calls per event).
            if line[:4] == "data" and line[4:5] in (":", ""):  # `data: x`, `data:x`, `data`
                value = line[6:] if line[5:6] == " " else line[5:]
                self._size += len(value) + 1
                if self._size > self._max:
                    self._oversized = True
                elif not self._oversized:
                    self._data.append(value)
                continue
            frame = self._line(line)
            if frame is not None:
                frames.append(frame)
        return frames

    def _line(self, line: str) -> ServerSentEvent | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None  # comment (keep-alive): it already fed the watchdog
        name, _, value = line.partition(":")  # `data:` lines were taken by `feed`
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._id = value
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        frame = None
        if self._oversized:
            self.dropped += 1
        elif self._data:
            frame = ServerSentEvent(event=self._event, data="\n".join(self._data), id=self._id)
        self._event, self._data, self._size, self._oversized = "", [], 0, False
        return frame


async def _within(awaitable: Awaitable[T], seconds: float | None) -> T:
    """`await awaitable`, raising `asyncio.TimeoutError` after `seconds` (None: never).

    Not `asyncio.wait_for`: before Python 3.12 it returns the result and drops a cancellation
    that lands in the same loop step as that result, so a stream reader cancelled as a
    heartbeat arrives reads on forever and the supervisor never stops. `asyncio.timeout`
    awaits in the caller's task and keeps the cancellation.
    """
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(seconds):
            return await awaitable
    task = asyncio.ensure_future(awaitable)
    try:
        done, _ = await asyncio.wait({task}, timeout=seconds)
    finally:
        if not task.done():
            task.cancel()  # our own cancellation or the timeout: the read stops too
    if not done:
        raise asyncio.TimeoutError
    return task.result()


class _ReadWatchdog:
    """`_within` for a stream's reads, with one timer per `seconds` instead of one per read.

    A stream reads once per event (one HTTP chunk each), and an `asyncio.timeout` around every
    read (a timer armed and cancelled per event) cost a tenth of the language server's time on
    a busy stream. Here one timer looks at when the current read began: a read that waits
    `seconds` has its task cancelled and raises `asyncio.TimeoutError`; otherwise the timer
    re-arms for the current read's deadline. Only our own cancellation becomes the timeout
    (`Task.uncancel`, Python 3.11+): one from outside still cancels.
    """

    def __init__(self, seconds: float) -> None:
        self._seconds = seconds
        self._loop = asyncio.get_running_loop()
        self._task: asyncio.Task[Any] | None = None
        self._started: float | None = None  # when the current read began; None: not reading
        self._fired = False
        self._handle = self._loop.call_later(seconds, self._check)

    async def read(self, awaitable: Awaitable[T]) -> T:
        """`await awaitable`; `asyncio.TimeoutError` when it waits `seconds` or more."""
        # The reading task can change between reads (an adapter may read in a task per frame).
        self._task = asyncio.current_task()
        self._started = self._loop.time()
        try:
            return await awaitable
        except asyncio.CancelledError:
            if sys.version_info >= (3, 11) and self._fired and self._task is not None:
                if self._task.uncancel() == 0:
                    raise asyncio.TimeoutError from None
            raise
        finally:
            self._started = None

    def _check(self) -> None:
        now, started = self._loop.time(), self._started
        if started is not None and now - started >= self._seconds and self._task is not None:
            self._fired = True
            self._task.cancel()
            return
        due = (started if started is not None else now) + self._seconds
        self._handle = self._loop.call_at(due, self._check)

    def close(self) -> None:
        self._handle.cancel()


# --- the HTTP client ----------------------------------------------------------------------


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


class HostHttp:
    """The HTTP side of one host connection. All methods raise `HostError` only.

    `base_url` is the server root; `password` None means no auth. `auth_hint` ends the 401
    message (e.g. "check OPENCODE_SERVER_PASSWORD"). `transport` lets tests plug in
    `httpx.MockTransport`; the pause between retries is on `clock` (real time by default), which
    the adapters' reconnect backoff uses too.
    """

    def __init__(
        self,
        base_url: str,
        *,
        password: str | None,
        username: str = DEFAULT_USERNAME,
        auth_hint: str = "check the password",
        timeout: float = 5.0,
        connect_timeout: float = 2.0,
        retries: int = 2,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.clock = clock or SystemClock()
        self.redactor = Redactor()
        auth: httpx.BasicAuth | None = None
        if password:
            self.redactor.add_basic_auth(username, password)
            install_log_redaction(self.redactor)
            auth = httpx.BasicAuth(username, password)
        self._auth_hint = auth_hint
        self._retries = retries
        self._timeout = httpx.Timeout(timeout, connect=connect_timeout)
        # Requests beyond this many wait here, not in httpx's connection pool: the pool's
        # queue costs time quadratic in its length (200 sessions ending their turns together
        # queued 600 requests and took seconds of CPU), and a wait there counts against the
        # request's own timeout.
        self._slots = asyncio.Semaphore(MAX_CONCURRENT_REQUESTS)
        self.client = httpx.AsyncClient(
            base_url=self.base_url,
            auth=auth,
            timeout=self._timeout,
            transport=transport,
            headers={"accept": "application/json"},
        )

    # errors

    def error(self, exc: BaseException, what: str) -> HostError:
        """Map any failure of `what` (e.g. "GET /session") to a HostError, scrubbed."""
        if isinstance(exc, HostError):
            return exc
        kind: ErrorKind
        if isinstance(exc, httpx.TimeoutException):
            kind, text = "timeout", f"{what}: no answer from {self.base_url} in time"
        elif isinstance(exc, (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError)):
            kind, text = "unreachable", f"{what}: {self.base_url} unreachable ({_describe(exc)})"
        else:
            kind, text = "protocol", f"{what}: {_describe(exc)}"
        return HostError(kind, self.redactor.scrub(text))

    def status_error(self, response: httpx.Response, what: str) -> HostError:
        """The HostError for a non-success response."""
        code = response.status_code
        if code == 401:
            return HostError("unauthorized", f"{what}: 401: {self._auth_hint}")
        body = self.redactor.scrub(response.text[:200].strip())
        detail = f"{what}: {code}" + (f" {body}" if body else "")
        if code == 404:
            return HostError("not-found", detail)
        if code >= 500:
            return HostError("server", detail)
        return HostError("protocol", detail)

    # requests

    async def send(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        json: Any = None,
        idempotent: bool | None = None,
        timeout: float | None = None,
    ) -> httpx.Response:
        """One request; a non-2xx answer raises. Retried on refused connections always, and on
        timeouts only when idempotent (default: GET), since a timed-out POST may have landed."""
        idempotent = method == "GET" if idempotent is None else idempotent
        what = f"{method} {path}"
        last: BaseException | None = None
        for attempt in range(self._retries + 1):
            try:
                async with self._slots:
                    response = await self.client.request(
                        method,
                        path,
                        params=params,
                        json=json,
                        timeout=self._timeout if timeout is None else httpx.Timeout(timeout),
                    )
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
                last = exc  # never reached the server: safe to retry
            except httpx.TimeoutException as exc:
                if not idempotent:
                    raise self.error(exc, what) from None
                last = exc
            except httpx.HTTPError as exc:
                raise self.error(exc, what) from None
            else:
                if response.is_success:
                    return response
                raise self.status_error(response, what)
            if attempt < self._retries:
                log.debug("%s failed (%s); retrying", what, self.redactor.scrub(_describe(last)))
                await self.clock.sleep(RETRY_PAUSE_S * (attempt + 1))
        assert last is not None
        raise self.error(last, what) from None

    async def get_json(self, path: str, params: Mapping[str, str] | None = None) -> Any:
        """GET a JSON body (retried on timeouts); a non-JSON body raises `protocol`."""
        response = await self.send("GET", path, params=params)
        try:
            return response.json()
        except ValueError:
            raise HostError("protocol", f"GET {path}: the answer is not JSON") from None

    @asynccontextmanager
    async def open_stream(
        self,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        idle_timeout: float = 25.0,
        max_event_bytes: int = 4 * 1024 * 1024,
    ) -> AsyncIterator[AsyncIterator[ServerSentEvent]]:
        """Open an SSE stream; the context value iterates its frames until the server closes it.

        Raises `HostError` on open (401, unreachable, not an event stream) and while reading:
        `timeout` when nothing at all (not even a keep-alive) arrived for `idle_timeout`.
        """
        what = f"GET {path}"
        # No read timeout on the body (the watchdog guards it), but the answer itself must come
        # in time: a request that hits a starting OpenCode can go unanswered forever.
        stream_timeout = httpx.Timeout(self._timeout.read, connect=self._timeout.connect, read=None)
        request = self.client.build_request(
            "GET",
            path,
            params=params,
            headers={"accept": "text/event-stream", "cache-control": "no-store"},
            timeout=stream_timeout,
        )
        try:
            response = await _within(self.client.send(request, stream=True), self._timeout.read)
        except asyncio.TimeoutError:
            raise HostError("timeout", f"{what}: no answer from {self.base_url} in time") from None
        except (httpx.HTTPError, OSError) as exc:
            raise self.error(exc, what) from None
        try:
            if not response.is_success:
                await response.aread()
                raise self.status_error(response, what)
            content_type = response.headers.get("content-type", "")
            if "text/event-stream" not in content_type:
                raise HostError("protocol", f"{what}: not an event stream ({content_type})")
            yield self._frames(response, what, idle_timeout, max_event_bytes)
        except (httpx.HTTPError, OSError) as exc:
            raise self.error(exc, what) from None
        finally:
            await response.aclose()

    async def _frames(
        self, response: httpx.Response, what: str, idle_timeout: float, max_event_bytes: int
    ) -> AsyncIterator[ServerSentEvent]:
        decoder = _SseDecoder(max_event_bytes)
        # The raw body, decoded here: OpenCode writes one HTTP chunk per event, and
        # `aiter_text` adds two generator layers (content decoding, text decoding) per chunk.
        # SSE is UTF-8 by definition. A body the server did compress goes through httpx's
        # content decoding.
        encoded = response.headers.get("content-encoding", "identity") != "identity"
        chunks = (response.aiter_bytes() if encoded else response.aiter_raw()).__aiter__()
        text = codecs.getincrementaldecoder("utf-8")("replace")
        watchdog = _ReadWatchdog(idle_timeout) if sys.version_info >= (3, 11) else None
        try:
            while True:
                try:
                    if watchdog is not None:
                        chunk = await watchdog.read(chunks.__anext__())
                    else:
                        chunk = await _within(chunks.__anext__(), idle_timeout)
                except StopAsyncIteration:
                    return
                except asyncio.TimeoutError:
                    raise HostError(
                        "timeout", f"{what}: nothing received for {idle_timeout:g} s"
                    ) from None
                except (httpx.HTTPError, OSError) as exc:
                    raise self.error(exc, what) from None
                before = decoder.dropped
                for frame in decoder.feed(text.decode(chunk)):
                    yield frame
                if decoder.dropped != before:
                    log.warning("%s: dropped an event larger than %d bytes", what, max_event_bytes)
        finally:
            if watchdog is not None:
                watchdog.close()

    async def aclose(self) -> None:
        await self.client.aclose()
