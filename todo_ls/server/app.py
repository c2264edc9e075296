"""Building and running the todo-ls language server."""

from __future__ import annotations

import logging

from lsprotocol import types

from todo_ls.server import (
    code_actions,
    code_lens,
    commands,
    diagnostics,
    documents,
    inlay_hints,
    lifecycle,
)
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.status import StatusPublisher

_LEVELS = {
    logging.ERROR: types.MessageType.Error,
    logging.WARNING: types.MessageType.Warning,
    logging.INFO: types.MessageType.Info,
}


class ClientLogHandler(logging.Handler):
    """Forwards log records to the editor's output channel (`window/logMessage`).

    pygls's own records are skipped: it logs every message it sends, which would recurse.
    """

    def __init__(self, ls: TodoLanguageServer) -> None:
        super().__init__(logging.INFO)
        self._ls = ls

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith("pygls") or getattr(self._ls.protocol, "writer", None) is None:
            return
        try:
            message = self.format(record)
            kind = _LEVELS.get(record.levelno, types.MessageType.Log)
            self._ls.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:  # logging must never break the server
            self.handleError(record)


def create_server() -> TodoLanguageServer:
    """A fresh server with every feature registered."""
    server = TodoLanguageServer()
    diags = diagnostics.Diagnostics(server)
    watch = documents.FileWatch(server)
    status = StatusPublisher(server)
    lifecycle.register(server, diags, watch, status)
    documents.register(server, diags, watch)
    diagnostics.register(server, diags)
    code_actions.register(server)
    inlay_hints.register(server)
    code_lens.register(server)
    commands.register(server)
    return server


def serve(tcp: bool = False, host: str = "127.0.0.1", port: int = 2087) -> int:
    """Run the server over stdio (default) or TCP (loopback unless `host` says otherwise)."""
    server = create_server()
    handler = ClientLogHandler(server)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logging.getLogger("todo_ls").addHandler(handler)
    if tcp:
        server.start_tcp(host, port)
    else:
        server.start_io()
    return 0
