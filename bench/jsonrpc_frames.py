"""JSON-RPC messages framed as the LSP base protocol (`Content-Length` header, blank line,
JSON body): the one framer of the project's own minimal clients, the benchmarks' asyncio
client (`lsp_client.py`) and the reliability tests' blocking one.

The language server itself frames with pygls (and `todo_ls/server/wire.py` for pre-encoded
payloads); these clients stay small on purpose, so a measurement sees the server and the pipe.
"""

from __future__ import annotations

import json
from typing import IO, Any

HEADER_END = b"\r\n\r\n"


def encode(message: dict[str, Any]) -> bytes:
    """One framed message (`"jsonrpc": "2.0"` added)."""
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def body_length(header: bytes) -> int:
    """The `Content-Length` of a header block (0 when it has none)."""
    for line in header.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


def read_message(stream: IO[bytes]) -> dict[str, Any] | None:
    """The next message from a blocking byte stream; None once the stream ended."""
    while True:
        header = b""
        while not header.endswith(HEADER_END):
            byte = stream.read(1)
            if not byte:
                return None
            header += byte
        length = body_length(header)
        if length:
            return dict(json.loads(stream.read(length)))
