"""The LSP base protocol's framing, read with limits (docs/reliability.md#framing-limits).

pygls's reader trusts the client: it reads whatever `Content-Length` says into memory in one
call (`Content-Length: 99999999999` is a MemoryError that ends the server; 2 GB keeps it
waiting for the bytes, deaf to everything else), reads header lines of any length, and logs a
body that is not JSON with a traceback, answering nothing. This loop replaces pygls's
`run_async` for stdio and TCP:

* a body over `MAX_BODY` is read and dropped in chunks (never held), with one warning, and
  the next message is served;
* a header line is read at most `MAX_HEADER_LINE` bytes at a time;
* a body that is not JSON is answered `-32700` Parse error (id null); JSON that is not a
  JSON-RPC 2.0 message object is answered `-32600` Invalid Request (with its id when it has
  a usable one, else null). Both are the client's mistakes: a warning line, no traceback.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import select
import stat
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, BinaryIO, Protocol

from lsprotocol.types import ResponseErrorMessage
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcParseError
from pygls.protocol import JsonRPCProtocol

log = logging.getLogger(__name__)

MAX_BODY = 64 << 20  # 64 MiB: ten times the largest document todo-ls indexes (10 MB files)
MAX_HEADER_LINE = 8 << 10  # header lines are short (`Content-Length: …`, `Content-Type: …`)
CHUNK = 1 << 20  # what one read of a skipped body holds
READ = 64 << 10  # one read of a small message: a heap buffer, not a mapping made and dropped
_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*(\d+)[ \t]*\r?\n?", re.IGNORECASE)


class Reader(Protocol):
    """An asynchronous byte source (the stdin reader below or an `asyncio.StreamReader`)."""

    def readline(self) -> Awaitable[bytes]: ...

    def readexactly(self, n: int) -> Awaitable[bytes]: ...


class StdinReader:
    """stdin, read into a buffer of its own: a header line at most `MAX_HEADER_LINE` bytes
    (pygls's own reader has no bound), and `pending()` knows whether the client has sent
    more than what was handled (coalesced pushes wait for it).

    A pipe, socket or terminal (what an editor gives) is waited for by the event loop and
    then read once, which cannot block; anything else (a file) is read in the server's
    thread pool, as pygls reads. The loop's wait spares every message two thread switches
    (the pool's worker woken, then the loop woken by it): about a quarter of a millisecond
    of CPU per request (docs/performance.md "`workspace/symbol` ranked")."""

    def __init__(self, stdin: BinaryIO, executor: ThreadPoolExecutor) -> None:
        self._fd = stdin.fileno()
        self._executor = executor
        self._buffer = bytearray()
        self._ended = False
        try:
            mode = os.fstat(self._fd).st_mode
        except OSError:
            mode = 0
        self._pollable = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)

    def pending(self) -> bool:
        """Input has arrived that no read has returned yet."""
        if self._buffer:
            return True
        try:
            readable, _, _ = select.select([self._fd], [], [], 0)
        except (OSError, ValueError):
            return False
        return bool(readable) and not self._ended

    async def _fill(self, want: int = READ) -> bool:
        if self._ended:
            return False
        loop = asyncio.get_running_loop()
        size = min(max(want, READ), CHUNK)
        if self._pollable and await self._readable(loop):
            data = os.read(self._fd, size)
        else:
            data = await loop.run_in_executor(self._executor, os.read, self._fd, size)
        if not data:
            self._ended = True
            return False
        self._buffer += data
        return True

    async def readline(self) -> bytes:
        while True:
            end = self._buffer.find(b"\n", 0, MAX_HEADER_LINE)
            if end >= 0 or len(self._buffer) >= MAX_HEADER_LINE:
                size = end + 1 if end >= 0 else MAX_HEADER_LINE
                line = bytes(self._buffer[:size])
                del self._buffer[:size]
                return line
            if not await self._fill():
                line = bytes(self._buffer)
                self._buffer.clear()
                return line

    async def _readable(self, loop: asyncio.AbstractEventLoop) -> bool:
        """Wait until stdin can be read; False when the loop cannot watch it (`/dev/null`
        and other devices epoll refuses: read in the thread pool from then on)."""
        ready: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            if not ready.done():
                ready.set_result(None)

        try:
            loop.add_reader(self._fd, wake)
        except (OSError, ValueError, NotImplementedError):
            self._pollable = False
            return False
        try:
            await ready
        finally:
            loop.remove_reader(self._fd)
        return True

    async def readexactly(self, n: int) -> bytes:
        while len(self._buffer) < n and await self._fill(n - len(self._buffer)):
            pass
        with memoryview(self._buffer) as view:  # one copy of a big body, not two
            data = bytes(view[:n])
        del self._buffer[:n]
        return data


def _mib(size: int) -> str:
    return f"{size / (1 << 20):g} MiB"


async def _read(reader: Reader, n: int) -> bytes:
    """`n` bytes, fewer only at the end of input."""
    try:
        return await reader.readexactly(n)
    except asyncio.IncompleteReadError as cut:
        return cut.partial


async def read_length(reader: Reader) -> int | None:
    """Read one header block; its `Content-Length` (None at the end of input). Lines before
    a length are skipped, as pygls does: a blank line alone does not end a header block."""
    length: int | None = None
    while True:
        line = await reader.readline()
        if not line:
            return None
        if length is None:
            match = _LENGTH.fullmatch(line)
            if match:
                length = int(match.group(1))
        elif not line.strip():
            return length


async def skip(reader: Reader, size: int) -> bool:
    """Read and drop `size` bytes, a chunk at a time; False when the input ended first."""
    while size > 0:
        chunk = await _read(reader, min(size, CHUNK))
        if not chunk:
            return False
        size -= len(chunk)
    return True


def _usable_id(message: Any) -> Any:
    """The request id of a decoded message, when it is one JSON-RPC allows (else None)."""
    if isinstance(message, dict):
        msg_id = message.get("id")
    elif hasattr(message, "__attrs_attrs__"):  # structured by pygls (a `jsonrpc` field)
        msg_id = getattr(message, "id", None)
    else:
        return None
    return msg_id if isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool) else None


def _answer_error(protocol: JsonRPCProtocol, msg_id: Any, error: JsonRpcException) -> None:
    # pygls's `_send_response` takes no null id; the message is the same shape.
    protocol._send_data(ResponseErrorMessage(id=msg_id, error=error.to_response_error()))


def handle_body(protocol: JsonRPCProtocol, body: bytes) -> None:
    """Decode one body and hand it to the protocol; answer a client's mistake clearly."""
    try:
        message = json.loads(body, object_hook=protocol.structure_message)
    except JsonRpcException as exc:  # a message of the wrong shape, answered (protocol.py)
        log.warning("invalid message from the client: %s", exc)
        return
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        log.warning("a message from the client is not JSON (%s): answered Parse error", exc)
        _answer_error(protocol, None, JsonRpcParseError())
        return
    if getattr(message, "jsonrpc", None) != JsonRPCProtocol.VERSION:
        msg_id = _usable_id(message)
        log.warning(
            "a message from the client is not a JSON-RPC 2.0 object: answered Invalid Request"
        )
        _answer_error(protocol, msg_id, JsonRpcInvalidRequest())
        return
    try:
        protocol.handle_message(message)
    except Exception:  # the server's own fault: it keeps serving the next message
        log.exception("internal error handling a message")


async def serve(
    stop_event: threading.Event,
    reader: Reader,
    protocol: JsonRPCProtocol,
    max_body: int = MAX_BODY,
    idle: Callable[[], None] | None = None,
) -> None:
    """Read framed messages until the input ends or `stop_event` is set; call `idle` each
    time what the client sent has been handled (when `reader` can tell: `pending`)."""
    pending: Callable[[], bool] = getattr(reader, "pending", lambda: False)
    while not stop_event.is_set():
        if idle is not None and not pending():
            idle()
        length = await read_length(reader)
        if length is None:
            break
        if length > max_body:
            log.warning(
                "a message from the client is too long (Content-Length %d, over the %s limit):"
                " skipped",
                length,
                _mib(max_body),
            )
            if not await skip(reader, length):
                break
            continue
        body = await _read(reader, length) if length else b""
        if len(body) < length:
            break
        handle_body(protocol, body)
