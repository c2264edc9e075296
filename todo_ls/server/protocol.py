"""The JSON-RPC protocol of the todo-ls server: pygls's, plus an answer to every request.

pygls drops a request whose params it cannot decode (null, an array, a field of the wrong
type) after logging it, so the editor waits for that answer forever. Here such a request is
answered with the JSON-RPC error pygls raised (InvalidParams for a shape error).
"""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcException

from todo_ls.server.wire import RawJsonProtocol


class TodoProtocol(RawJsonProtocol):
    """`LanguageServerProtocol` that never leaves a malformed request unanswered (and sends
    already-encoded JSON as is, see `wire`)."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "id" in data and "method" in data:
                self._send_response(data["id"], error=exc.to_response_error())
            raise
