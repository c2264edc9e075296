"""Sending values that are already JSON: large diagnostic lists without per-keystroke encoding.

pygls encodes every message with cattrs and `json.dumps`. For a document with thousands of
open items that costs tens of milliseconds per keystroke, while almost every diagnostic is the
same as in the previous version. `RawJson` carries text that is already encoded (the
diagnostics module keeps one encoded fragment per item and joins them); `RawJsonProtocol` splices
it into the message as is. cattrs leaves an unknown class alone where a field is typed `Any`
or as a union (a response's `result`, a generic notification's `params`), so a `RawJson`
travels untouched to `_send_data`, which writes the message's few other fields itself around
the value's bytes (no cattrs, no `json.dumps` of the message: a tenth of a millisecond of every
`workspace/symbol` answer, docs/performance.md).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from typing import Any

from pygls.exceptions import JsonRpcInternalError
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCNotification

log = logging.getLogger(__name__)
_WRITES: set[asyncio.Future[Any]] = set()  # writes of async transports still under way


class RawJson:
    """A JSON value, already encoded. A handler that keeps one for a repeated request (the
    outline of an unchanged document) also keeps its bytes, encoded at the first send."""

    __slots__ = ("_data", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._data: bytes | None = None

    @property
    def data(self) -> bytes:
        """The text as UTF-8."""
        if self._data is None:
            self._data = self.text.encode("utf-8")
        return self._data


class RawJsonProtocol(LanguageServerProtocol):
    """pygls's protocol, plus `RawJson` values and raw notifications."""

    def notify_raw(self, method: str, params: RawJson) -> None:
        """A notification whose params are already encoded (pygls's `notify` would convert
        them to the method's params class first)."""
        self._send_data(JsonRPCNotification(method=method, params=params, jsonrpc="2.0"))

    def _send_data(self, data: Any) -> None:
        params, result = vars_of(data)
        if isinstance(result, RawJson):  # a response (an error response has no result)
            head = f'{{"jsonrpc":"2.0","id":{json.dumps(data.id)},"result":'
        elif isinstance(params, RawJson):  # a notification or a request to the client
            head = f'{{"jsonrpc":"2.0","method":{json.dumps(data.method)}'
            if getattr(data, "id", None) is not None:
                head += f',"id":{json.dumps(data.id)}'
            head += ',"params":'
        else:
            super()._send_data(data)
            return
        raw = result if isinstance(result, RawJson) else params
        if self.writer is None:
            log.error("Unable to send data, no available transport!")
            return
        try:
            # The message framed around its raw value, without cattrs or `json.dumps` of the
            # whole: a megabyte outline is copied once, into the message.
            pieces = [head.encode(self.CHARSET), raw.data, b"}"]
            if self._include_headers:
                header = (
                    f"Content-Length: {sum(map(len, pieces))}\r\n"
                    f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
                )
                pieces.insert(0, header.encode("ascii"))
            written = self.writer.write(b"".join(pieces))
            if inspect.isawaitable(written):
                task = asyncio.ensure_future(written)
                _WRITES.add(task)
                task.add_done_callback(_WRITES.discard)
        except Exception as error:  # as pygls: report it, never raise into the handler
            log.exception("Error sending data")
            self._server._report_server_error(error, JsonRpcInternalError)


def vars_of(message: Any) -> list[Any]:
    """The `params` / `result` of a JSON-RPC message object (where a `RawJson` can sit)."""
    return [getattr(message, name, None) for name in ("params", "result")]


def raw_protocol(protocol: LanguageServerProtocol) -> RawJsonProtocol:
    """The server's protocol as a `RawJsonProtocol` (which the server is built with)."""
    assert isinstance(protocol, RawJsonProtocol), "the server must use a RawJsonProtocol"
    return protocol
