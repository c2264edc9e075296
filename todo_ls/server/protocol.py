"""The JSON-RPC protocol of the todo-ls server: pygls's, plus an answer to every request
and documents with LSP's lines.

pygls drops a request whose params it cannot decode (null, an array, a field of the wrong
type) after logging it, so the editor waits for that answer forever. Here such a request is
answered with the JSON-RPC error pygls raised (InvalidParams for a shape error).

pygls builds a plain `Workspace` on `initialize`; the protocol holds an `LspWorkspace` like it
instead, whose documents split lines and apply changes as LSP says (text_document.py).
"""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcException
from pygls.workspace import Workspace

from todo_ls.server.text_document import LspWorkspace
from todo_ls.server.wire import RawJsonProtocol


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
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "id" in data and "method" in data:
                self._send_response(data["id"], error=exc.to_response_error())
            raise
