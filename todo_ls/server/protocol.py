"""The JSON-RPC protocol of the todo-ls server: pygls's, plus an answer to every request,
the client's mistakes logged as such, and documents with LSP's lines.

pygls drops a request whose params it cannot decode (null, an array, a field of the wrong
type) after logging it, so the editor waits for that answer forever. Here such a request is
answered with the JSON-RPC error pygls raised (InvalidParams for a shape error).

pygls logs every refused request with a traceback at ERROR, so an editor's output channel
fills with errors that are the client's. A client error (`CLIENT_ERRORS`: bad params, an
invalid request or body, an unknown method) is one warning line here; the server's own
failures stay errors with their traceback (docs/reliability.md#framing-limits).

pygls builds a plain `Workspace` on `initialize`; the protocol holds an `LspWorkspace` like it
instead, whose documents split lines and apply changes as LSP says (text_document.py).
"""

from __future__ import annotations

import contextvars
import logging
from concurrent.futures import Future
from typing import Any

from cattrs.errors import ClassValidationError
from lsprotocol.types import ResponseErrorMessage
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcMethodNotFound,
    JsonRpcParseError,
    JsonRpcRequestCancelled,
)
from pygls.protocol.json_rpc import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    MsgId,
)
from pygls.workspace import Workspace

from todo_ls.server.text_document import LspWorkspace
from todo_ls.server.wire import RawJsonProtocol

log = logging.getLogger(__name__)

# What a client got wrong, not the server: answered, logged as one warning line.
CLIENT_ERRORS = (
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
    JsonRpcMethodNotFound,
    JsonRpcRequestCancelled,
)


class TodoProtocol(RawJsonProtocol):
    """`LanguageServerProtocol` that never leaves a malformed request unanswered (and sends
    already-encoded JSON as is, see `wire`) and whose workspace is an `LspWorkspace`."""

    @property
    def _workspace(self) -> Workspace | None:
        return self._lsp_workspace

    @_workspace.setter
    def _workspace(self, workspace: Workspace | None) -> None:
        if workspace is not None and not isinstance(workspace, LspWorkspace):
            workspace = LspWorkspace.like(workspace)
        self._lsp_workspace = workspace

    def structure_message(self, data: dict[str, Any]) -> Any:
        """pygls's decoding (same types, same errors) without its traceback at ERROR; a
        request that cannot be decoded is answered with the error."""
        if "jsonrpc" not in data:
            return data
        try:
            return self._converter.structure(data, self._message_type(data))
        except Exception as exc:
            error: JsonRpcException = (
                JsonRpcInvalidParams()
                if isinstance(exc, ClassValidationError)
                else JsonRpcInternalError()
            )
            if "id" in data and "method" in data:
                self._send_response(data["id"], error=error.to_response_error())
            raise error from exc

    def _message_type(self, data: dict[str, Any]) -> Any:
        # As pygls's `structure_message` chooses it.
        if "id" in data:
            if "error" in data:
                return ResponseErrorMessage
            if "method" in data:
                return self.get_message_type(data["method"]) or JsonRPCRequestMessage
            return self._result_types.pop(data["id"], None) or JsonRPCResponseMessage
        return self.get_message_type(data.get("method", "")) or JsonRPCNotification

    def handle_message(self, message: Any) -> None:
        """pygls's dispatch of a request or notification, told apart by their fields: pygls
        asks `isinstance` of runtime-checkable protocols, which on Python 3.11 walks each
        protocol's members at every call (about a tenth of a no-op request's CPU,
        docs/performance.md). Responses, and anything pygls only warns of, go its way."""
        method = getattr(message, "method", None)
        if method is None or message.jsonrpc != self.VERSION or self._shutdown:
            super().handle_message(message)
            return
        # Each handler runs within its own context, as pygls runs it.
        ctx = contextvars.copy_context()
        params = getattr(message, "params", None)
        if getattr(message, "id", None) is not None:
            ctx.run(self._handle_request, message.id, method, params)
        else:
            ctx.run(self._handle_notification, method, params)

    def _send_handler_result(self, future: Future[Any], *, msg_id: MsgId) -> None:
        error = None if future.cancelled() else future.exception()
        if isinstance(error, CLIENT_ERRORS):
            self._request_futures.pop(msg_id, None)
            log.warning("refused request %s: %s", msg_id, error)
            self._send_response(msg_id, error=error.to_response_error())
            return
        super()._send_handler_result(future, msg_id=msg_id)
