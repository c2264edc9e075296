"""A minimal asyncio JSON-RPC client over a language server's stdio, for the benchmarks.

Deliberately small: frames are read as bytes and time-stamped the moment their last byte
arrives (before JSON decoding), so a latency measures the server and the pipe, not a client
library's object conversion. Server→client requests are answered from `handlers` (default:
`null`), `workspace/configuration` from `settings`, and `$/progress` is recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonrpc_frames

SERVER = [sys.executable, "-m", "todo_ls"]
REPO = Path(__file__).resolve().parents[1]


class ResponseError(Exception):
    """The server answered a request with a JSON-RPC error."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.code = error.get("code")


@dataclass
class Received:
    """One message from the server and when its last byte arrived (`time.perf_counter`)."""

    at: float
    message: dict[str, Any]


@dataclass
class _Waiter:
    method: str
    match: Callable[[Any], bool]
    future: asyncio.Future[Received]


@dataclass
class LspClient:
    """One server process and the client end of its stdio."""

    process: asyncio.subprocess.Process
    settings: dict[str, Any] = field(default_factory=dict)
    handlers: dict[str, Callable[[Any], Any]] = field(default_factory=dict)
    progress: list[tuple[float, Any]] = field(default_factory=list)  # ($/progress at, value)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _pending: dict[int, asyncio.Future[Received]] = field(default_factory=dict)
    _waiters: list[_Waiter] = field(default_factory=list)
    _reader: asyncio.Task[None] | None = None

    @classmethod
    async def spawn(
        cls,
        command: Sequence[str] = SERVER,
        *,
        cwd: Path,
        stderr: int = asyncio.subprocess.DEVNULL,
        **kwargs: Any,
    ) -> LspClient:
        """Start the server in `cwd`, its shared state kept in `cwd/.state` (stderr discarded
        by default: the benchmarks print JSON only)."""
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
            "TODO_LS_STATE_DIR": str(cwd / ".state"),
        }
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            cwd=cwd,
            env=env,
            limit=1 << 24,
        )
        client = cls(process, **kwargs)
        client._reader = asyncio.get_running_loop().create_task(client._read())
        return client

    # --- sending ----------------------------------------------------------------------------

    def _write(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(jsonrpc_frames.encode(message))

    def notify(self, method: str, params: Any) -> None:
        self._write({"method": method, "params": params})

    def send_request(self, method: str, params: Any) -> asyncio.Future[Received]:
        """Send a request now; the future resolves with the (timed) response."""
        request_id = next(self._ids)
        future: asyncio.Future[Received] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self._write({"id": request_id, "method": method, "params": params})
        return future

    async def request(self, method: str, params: Any, timeout: float = 60.0) -> Any:
        """Send a request and return its result (raises `ResponseError`)."""
        received = await asyncio.wait_for(self.send_request(method, params), timeout)
        return received.message.get("result")

    def wait_for(
        self, method: str, match: Callable[[Any], bool] = lambda _: True
    ) -> asyncio.Future[Received]:
        """A future for the next notification `method` whose params satisfy `match`.
        Register it before triggering what sends it."""
        future: asyncio.Future[Received] = asyncio.get_running_loop().create_future()
        self._waiters.append(_Waiter(method, match, future))
        return future

    # --- receiving --------------------------------------------------------------------------

    async def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        while True:
            try:
                header = await stdout.readuntil(jsonrpc_frames.HEADER_END)
            except (asyncio.IncompleteReadError, ConnectionError):
                break
            body = await stdout.readexactly(jsonrpc_frames.body_length(header))
            self._dispatch(Received(time.perf_counter(), json.loads(body)))
        for future in [*self._pending.values(), *(w.future for w in self._waiters)]:
            if not future.done():
                future.set_exception(ConnectionError("the server closed its stdout"))

    def _dispatch(self, received: Received) -> None:
        message = received.message
        method = message.get("method")
        if method is None:  # a response
            future = self._pending.pop(message["id"], None)
            if future is None or future.done():
                return
            if "error" in message:
                future.set_exception(ResponseError(message["error"]))
            else:
                future.set_result(received)
            return
        params = message.get("params")
        if "id" in message:  # a request from the server
            self._write({"id": message["id"], "result": self._answer(method, params)})
            return
        if method == "$/progress":
            self.progress.append((received.at, params.get("value")))
        for waiter in list(self._waiters):
            if waiter.future.done():
                self._waiters.remove(waiter)
            elif waiter.method == method and waiter.match(params):
                self._waiters.remove(waiter)
                waiter.future.set_result(received)

    def _answer(self, method: str, params: Any) -> Any:
        if method in self.handlers:
            return self.handlers[method](params)
        if method == "workspace/configuration":
            return [self.settings.get(item.get("section", "")) for item in params["items"]]
        return None

    # --- lifecycle --------------------------------------------------------------------------

    async def initialize(
        self,
        root: Path,
        capabilities: dict[str, Any],
        initialization_options: Any = None,
    ) -> Any:
        """`initialize` + `initialized` for one workspace folder; returns the result."""
        uri = root.as_uri()
        result = await self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": uri,
                "capabilities": capabilities,
                "workspaceFolders": [{"uri": uri, "name": root.name}],
                "initializationOptions": initialization_options,
            },
        )
        self.notify("initialized", {})
        return result

    async def close(self) -> None:
        """`shutdown` + `exit`, then wait for the process (killed if it hangs)."""
        with contextlib.suppress(Exception):
            await self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
        try:
            await asyncio.wait_for(self.process.wait(), 10)
        except asyncio.TimeoutError:
            self.process.kill()
            await self.process.wait()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader


def capabilities(*, pull: bool, progress: bool = True, watch: bool = False) -> dict[str, Any]:
    """A modern editor's capabilities: pull diagnostics (Neovim 0.11) or push (VS Code)."""
    text_document: dict[str, Any] = {
        "synchronization": {"dynamicRegistration": False, "didSave": True},
        "publishDiagnostics": {"versionSupport": True},
        "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix"]}}},
        "inlayHint": {"dynamicRegistration": False},
        "codeLens": {},
    }
    if pull:
        text_document["diagnostic"] = {"dynamicRegistration": False}
    return {
        "general": {"positionEncodings": ["utf-16"]},
        "textDocument": text_document,
        "workspace": {
            "configuration": True,
            "workspaceFolders": True,
            "didChangeWatchedFiles": {"dynamicRegistration": watch},
        },
        "window": {"workDoneProgress": progress},
    }
