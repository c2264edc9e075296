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
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, BinaryIO

from lsprotocol.types import ResponseErrorMessage
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcParseError
from pygls.protocol import JsonRPCProtocol

log = logging.getLogger(__name__)

MAX_BODY = 64 << 20  # 64 MiB: ten times the largest document todo-ls indexes (10 MB files)
MAX_HEADER_LINE = 8 << 10  # header lines are short (`Content-Length: …`, `Content-Type: …`)
CHUNK = 1 << 20  # what one read of a skipped body holds
READ = 64 << 10  # one read of a small message: a heap buffer, not a mapping made and dropped
_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*(\d+)[ \t]*\r?\n?", re.IGNORECASE)


class FrameDecoder:
    """The base protocol's framing as a state machine, no I/O: bytes in (`feed`), whole
    bodies out (`next_body`). A header line is at most `MAX_HEADER_LINE` bytes (a longer one
    is taken in pieces, none a `Content-Length`); lines before a length are skipped, as pygls
    does, and a blank line alone does not end a header block; a body over `max_body` is
    dropped as it arrives, never held."""

    def __init__(self, max_body: int = MAX_BODY) -> None:
        self._max_body = max_body
        self._buffer = bytearray()
        self._length: int | None = None  # the header block's Content-Length, once read
        self._body: int | None = None  # the body being read: its length
        self._skip = 0  # what is left of a body too long to hold

    @property
    def buffered(self) -> bool:
        """Bytes have been fed that no `next_body` has returned (or dropped) yet."""
        return bool(self._buffer)

    def wanted(self) -> int:
        """How much the next read should ask for: the rest of a long body, else `READ`."""
        if self._skip:
            return min(self._skip, CHUNK)
        if self._body is not None:
            return min(max(self._body - len(self._buffer), READ), CHUNK)
        return READ

    def feed(self, data: bytes) -> None:
        """Take what the client sent next."""
        if self._skip:
            dropped = min(self._skip, len(data))
            self._skip -= dropped
            data = data[dropped:]
        self._buffer += data

    def next_body(self) -> bytes | None:
        """The next whole body fed, else None (more input is needed)."""
        buffer = self._buffer
        while not self._skip:
            if self._body is not None:
                size = self._body
                if len(buffer) < size:
                    return None
                with memoryview(buffer) as view:  # one copy of a big body, not two
                    body = bytes(view[:size])
                del buffer[:size]
                self._body = None
                return body
            end = buffer.find(b"\n", 0, MAX_HEADER_LINE)
            if end < 0:
                if len(buffer) < MAX_HEADER_LINE:
                    return None
                end = MAX_HEADER_LINE - 1
            line = bytes(buffer[: end + 1])
            del buffer[: end + 1]
            if self._length is None:
                match = _LENGTH.fullmatch(line)
                if match:
                    self._length = int(match.group(1))
            elif not line.strip():
                self._begin_body(self._length)
                self._length = None
        return None

    def _begin_body(self, length: int) -> None:
        if length <= self._max_body:
            self._body = length
            return
        log.warning(
            "a message from the client is too long (Content-Length %d, over the %s limit): skipped",
            length,
            _mib(self._max_body),
        )
        dropped = min(length, len(self._buffer))
        del self._buffer[:dropped]
        self._skip = length - dropped


class StdinReader:
    """stdin as an editor gives it. A pipe, socket or terminal is watched by the event loop,
    and what it has is read and handled in the loop's own callback: no task woken, no
    reader registered and dropped per message (docs/performance.md, "`workspace/symbol`:
    searching from a rare character"). Anything else (a file; `/dev/null`, which epoll
    refuses) is read in the server's thread pool, as pygls reads. `pending()` knows whether
    the client has sent more than what was handled (coalesced pushes wait for it)."""

    def __init__(self, stdin: BinaryIO, executor: ThreadPoolExecutor) -> None:
        self.fd = stdin.fileno()
        self._executor = executor
        self.frames = FrameDecoder()
        try:
            mode = os.fstat(self.fd).st_mode
        except OSError:
            mode = 0
        self.pollable = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)

    def pending(self) -> bool:
        """Input has arrived that has not been handled yet."""
        if self.frames.buffered:
            return True
        try:
            readable, _, _ = select.select([self.fd], [], [], 0)
        except (OSError, ValueError):
            return False
        return bool(readable)

    async def read(self, size: int) -> bytes:
        """Up to `size` bytes, read in the thread pool (b"" at the end of input)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, os.read, self.fd, size)


def _mib(size: int) -> str:
    return f"{size / (1 << 20):g} MiB"


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


class _Session:
    """What one client sent, handled as it arrives: every whole body handed to the
    protocol, `idle` called once all of it has been (when `pending` can tell)."""

    def __init__(
        self,
        stop_event: threading.Event,
        frames: FrameDecoder,
        protocol: JsonRPCProtocol,
        idle: Callable[[], None] | None,
        pending: Callable[[], bool],
    ) -> None:
        self._stop_event = stop_event
        self._frames = frames
        self._protocol = protocol
        self._idle = idle
        self._pending = pending

    def take(self, data: bytes) -> bool:
        """Handle `data`; False when the session is over (input ended, or stopped)."""
        if not data or self._stop_event.is_set():
            return False
        frames = self._frames
        frames.feed(data)
        while (body := frames.next_body()) is not None:
            handle_body(self._protocol, body)
            if self._stop_event.is_set():
                return False
        if self._idle is not None and not self._pending():
            self._idle()
        return True


async def serve(
    stop_event: threading.Event,
    reader: StdinReader | asyncio.StreamReader,
    protocol: JsonRPCProtocol,
    idle: Callable[[], None] | None = None,
    max_body: int = MAX_BODY,
) -> None:
    """Read framed messages until the input ends or `stop_event` is set; call `idle` each
    time what the client sent has been handled (when `reader` can tell: `pending`)."""
    if isinstance(reader, StdinReader):
        frames, pending = reader.frames, reader.pending
    else:
        frames, pending = FrameDecoder(max_body), lambda: False
    session = _Session(stop_event, frames, protocol, idle, pending)
    if idle is not None and not pending():
        idle()
    if isinstance(reader, StdinReader) and reader.pollable and await _watch(reader, session):
        return
    while True:
        if not session.take(await reader.read(frames.wanted())):
            return


async def _watch(reader: StdinReader, session: _Session) -> bool:
    """Serve `reader` from the loop's readiness callback until the session ends; False
    when the loop cannot watch it (`/dev/null` and other devices epoll refuses)."""
    loop = asyncio.get_running_loop()
    ended: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        try:
            data = os.read(reader.fd, reader.frames.wanted())
        except BlockingIOError:
            return
        except OSError as error:
            data = b""
            log.warning("stdin cannot be read: %s", error)
        if not session.take(data) and not ended.done():
            ended.set_result(None)

    try:
        loop.add_reader(reader.fd, readable)
    except (OSError, ValueError, NotImplementedError):
        return False
    try:
        await ended
    finally:
        loop.remove_reader(reader.fd)
    return True
