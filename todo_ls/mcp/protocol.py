"""The MCP server side todo-ls needs: tools only, over the stdio transport (one JSON-RPC 2.0
message per line on stdin, one answer per line on stdout; see docs/mcp-todo-tools.md).

Pure: `McpSession.handle_line` takes one line and returns the line to write back (or None), so
the protocol is tested without a process, and `todo_ls.mcp.server` only moves lines. Requests
are answered one at a time, in the order they came.

Written here rather than taken from the MCP Python SDK: the SDK pulls compiled packages into
every install of todo-ls (some with no wheel for every platform and Python the VS Code extension
bundles), costs about 70 MB and half a second to a second of imports at every start, and its
API changed between major versions; the part todo-ls uses is this small.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

log = logging.getLogger(__name__)

# Newest first: an `initialize` asking for another version gets the newest.
PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
NOT_INITIALIZED = -32002  # a server error code (-32000..-32099): initialize comes first

# (is_error, text) of one tool call; raising is an internal error, answered as a tool error.
ToolCaller = Callable[[str, object], tuple[bool, str]]


class McpSession:
    """One client connection: the lifecycle state and the request dispatch."""

    def __init__(
        self,
        name: str,
        version: str,
        tools: Sequence[dict[str, Any]],
        call_tool: ToolCaller,
    ) -> None:
        self._server_info = {"name": name, "version": version}
        self._tools = list(tools)
        self._call_tool = call_tool
        self.initialized = False

    def handle_line(self, line: bytes) -> bytes | None:
        """The answer to one line of stdin (without its newline), or None when there is none
        to give (a notification, a response, a blank line)."""
        if not line.strip():
            return None
        try:
            message = json.loads(line)
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            return _error(None, PARSE_ERROR, f"not a JSON message ({err})")
        return self.handle_message(message)

    def handle_message(self, message: object) -> bytes | None:
        """The answer to one decoded message (see `handle_line`)."""
        if not isinstance(message, dict):
            kind = "batches are" if isinstance(message, list) else "a JSON message that is"
            return _error(None, INVALID_REQUEST, f"{kind} not supported; send one JSON object")
        request_id = message.get("id")
        has_id = "id" in message
        if has_id and not _valid_id(request_id):
            return _error(None, INVALID_REQUEST, "id must be a string or an integer")
        method = message.get("method")
        if method is None and ("result" in message or "error" in message):
            return None  # a response: this server sends no requests, so nothing waits for it
        if message.get("jsonrpc") != "2.0" or not isinstance(method, str):
            problem = 'jsonrpc must be "2.0"' if message.get("jsonrpc") != "2.0" else None
            return _error(request_id, INVALID_REQUEST, problem or "method must be a string")
        if not has_id:
            log.debug("todo-ls mcp: notification %s", method)
            return None  # notifications/initialized, cancellations, …: nothing to answer
        params = message.get("params", {})
        if not isinstance(params, dict):
            return _error(request_id, INVALID_PARAMS, f"{method}: params must be an object")
        try:
            return _result(request_id, self._dispatch(method, params))
        except _ProtocolError as err:
            return _error(request_id, err.code, str(err))

    def _dispatch(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            return self._initialize(params)
        if method == "ping":
            return {}
        if method not in ("tools/list", "tools/call"):
            raise _ProtocolError(METHOD_NOT_FOUND, f"unknown method {method!r}")
        if not self.initialized:
            raise _ProtocolError(NOT_INITIALIZED, f"{method} before initialize; initialize first")
        if method == "tools/list":
            return {"tools": self._tools}
        return self._tools_call(params)

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        if not isinstance(asked, str):
            raise _ProtocolError(INVALID_PARAMS, "initialize: protocolVersion must be a string")
        self.initialized = True
        return {
            "protocolVersion": asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0],
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": self._server_info,
        }

    def _tools_call(self, params: dict[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        if not isinstance(name, str):
            raise _ProtocolError(INVALID_PARAMS, "tools/call: name must be a string")
        try:
            is_error, text = self._call_tool(name, params.get("arguments"))
        except Exception:
            log.exception("todo-ls mcp: %s failed", name)
            is_error, text = True, f"{name} failed inside todo-ls; the todo-ls mcp log says why"
        return {"content": [{"type": "text", "text": text}], "isError": is_error}


class _ProtocolError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def error_line(code: int, message: str) -> bytes:
    """A JSON-RPC error answer to a message whose id is unknown (it could not be read)."""
    return _error(None, code, message)


def _valid_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _result(request_id: object, result: dict[str, Any]) -> bytes:
    return _encode({"jsonrpc": "2.0", "id": request_id, "result": result})


def _error(request_id: object, code: int, message: str) -> bytes:
    log.info("todo-ls mcp: error %d: %s", code, message)
    error = {"code": code, "message": message}
    return _encode({"jsonrpc": "2.0", "id": request_id, "error": error})


def _encode(message: dict[str, Any]) -> bytes:
    # json.dumps escapes newlines inside strings, so the message stays on one line.
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
