"""Building and running the todo-ls language server."""

from __future__ import annotations

import logging

from lsprotocol import types

from todo_ls.server import (
    code_actions,
    code_lens,
    commands,
    diagnostics,
    document_symbols,
    documents,
    folding,
    inlay_hints,
    lifecycle,
    workspace_symbols,
)
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.status import StatusPublisher

_LEVELS = {
    logging.ERROR: types.MessageType.Error,
    logging.WARNING: types.MessageType.Warning,
    logging.INFO: types.MessageType.Info,
}


CANCEL_NOISE = "Cancel notification for unknown message id"


def client_connected(ls: TodoLanguageServer) -> bool:
    """The editor is initialized and still connected, so it shows `window/logMessage`."""
    return ls.client_ready and getattr(ls.protocol, "writer", None) is not None


class ClientLogHandler(logging.Handler):
    """Forwards todo-ls's log records to the editor's output channel (`window/logMessage`)
    while the client is connected.

    pygls's own records are skipped: it logs every message it sends, which would recurse.
    """

    def __init__(self, ls: TodoLanguageServer) -> None:
        super().__init__(logging.INFO)
        self._ls = ls

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith("pygls") or not client_connected(self._ls):
            return
        try:
            message = self.format(record)
            kind = _LEVELS.get(record.levelno, types.MessageType.Log)
            self._ls.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:  # logging must never break the server
            self.handleError(record)


class StderrFilter(logging.Filter):
    """Keeps todo-ls's records off stderr while the editor shows them as `window/logMessage`
    (VS Code puts stderr in the same output channel: every line would appear twice).

    stderr gets everything before the client is initialized (startup failures) and, once the
    connection is gone, WARNING and above.
    """

    def __init__(self, ls: TodoLanguageServer) -> None:
        super().__init__()
        self._ls = ls

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.name.startswith("todo_ls") or not self._ls.client_ready:
            return True
        return not client_connected(self._ls) and record.levelno >= logging.WARNING


def _not_cancel_noise(record: logging.LogRecord) -> bool:
    # pygls warns about every $/cancelRequest that arrives after its request was answered,
    # which editors send routinely (VS Code cancels stale code-action and hint requests).
    return not str(record.msg).startswith(CANCEL_NOISE)


def route_logs(ls: TodoLanguageServer, stderr_handlers: list[logging.Handler]) -> None:
    """Send todo-ls's log to the editor once it is initialized, stderr otherwise, and drop
    pygls's cancel noise."""
    handler = ClientLogHandler(ls)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logging.getLogger("todo_ls").addHandler(handler)
    for stderr in stderr_handlers:
        stderr.addFilter(StderrFilter(ls))
    logging.getLogger("pygls.protocol.json_rpc").addFilter(_not_cancel_noise)


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
    document_symbols.register(server)
    workspace_symbols.register(server)
    folding.register(server)
    return server


def serve(tcp: bool = False, host: str = "127.0.0.1", port: int = 2087) -> int:
    """Run the server over stdio (default) or TCP (loopback unless `host` says otherwise)."""
    server = create_server()
    route_logs(server, logging.getLogger().handlers)  # the CLI's stderr handler
    if tcp:
        server.start_tcp(host, port)
    else:
        server.start_io()
    return 0
