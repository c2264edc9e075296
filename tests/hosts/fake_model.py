"""A scripted fake OpenAI-compatible chat-completions server for the real-OpenCode tests.

OpenCode (provider `@ai-sdk/openai-compatible`, `baseURL` = `FakeModel.base_url`) posts each
agent step to `/v1/chat/completions` with `stream: true`; every such request takes the next
`Reply` of the script (a plain "Done." when the script is empty). The title-generation request
(the one without tools) is answered apart and never consumes the script. Every agent request
is recorded so tests can assert what the model saw (`requests`, `user_texts`).
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Json = dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """One model answer. `stall` seconds of silence after the first chunk (until `release()`
    or the client gives up); `status` other than 200 answers with that HTTP error instead."""

    text: str = ""
    reasoning: str = ""
    tool: str | None = None
    arguments: Json = field(default_factory=dict)
    status: int = 200
    stall: float = 0.0


def text(value: str) -> Reply:
    return Reply(text=value)


def todowrite(*todos: tuple[str, str]) -> Reply:
    """A `todowrite` call; each todo is (content, status)."""
    items = [{"content": c, "status": s, "priority": "medium"} for c, s in todos]
    return Reply(tool="todowrite", arguments={"todos": items})


def bash(command: str, description: str = "Run a command") -> Reply:
    return Reply(tool="bash", arguments={"command": command, "description": description})


def task(description: str, prompt: str) -> Reply:
    return Reply(
        tool="task",
        arguments={"description": description, "prompt": prompt, "subagent_type": "general"},
    )


def stall(seconds: float, first: str = "Thinking") -> Reply:
    return Reply(text=first, stall=seconds)


def http_error(status: int) -> Reply:
    return Reply(status=status)


class FakeModel:
    """The server; use as a context manager or call `start()` / `stop()`."""

    def __init__(self) -> None:
        self._script: list[Reply] = []
        self._lock = threading.Lock()
        self._release = threading.Event()
        self._ids = itertools.count(1)
        self.requests: list[Json] = []  # agent requests (with tools), in order
        self.title_requests = 0
        server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> FakeModel:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeModel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # scripting

    def script(self, *replies: Reply) -> None:
        """Append replies for the next agent requests."""
        with self._lock:
            self._script.extend(replies)
            self._release.clear()

    def release(self) -> None:
        """End every stall now."""
        self._release.set()

    def pending(self) -> int:
        with self._lock:
            return len(self._script)

    # what the model saw

    def user_texts(self, request: Json | None = None) -> list[str]:
        """The text of every user message of `request` (default: the latest request)."""
        request = request if request is not None else (self.requests[-1] if self.requests else {})
        texts = []
        for message in request.get("messages", []):
            if message.get("role") != "user":
                continue
            content = message.get("content")
            if isinstance(content, str):
                texts.append(content)
            elif isinstance(content, list):
                texts += [c.get("text", "") for c in content if isinstance(c, dict)]
        return texts

    def wait_for(self, condition: Callable[[FakeModel], bool], timeout: float = 30.0) -> None:
        """Poll `condition(self)` until true; AssertionError after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while not condition(self):
            if time.monotonic() > deadline:
                raise AssertionError(f"fake model: condition not met in {timeout} s")
            time.sleep(0.05)

    def wait_requests(self, count: int, timeout: float = 30.0) -> None:
        self.wait_for(lambda m: len(m.requests) >= count, timeout)

    # serving

    def _next(self, body: Json) -> Reply:
        with self._lock:
            if not body.get("tools"):
                self.title_requests += 1
                return Reply(text="Fake title")
            self.requests.append(body)
            return self._script.pop(0) if self._script else Reply(text="Done.")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the tests assert on the request log, not on stderr."""

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                reply = model._next(body)
                try:
                    if reply.status != 200:
                        self._error(reply.status)
                    else:
                        self._stream(reply, f"chatcmpl-{next(model._ids)}")
                except (BrokenPipeError, ConnectionResetError):
                    pass  # OpenCode aborted the request (user abort, chunk timeout)

            def _error(self, status: int) -> None:
                data = json.dumps(
                    {"error": {"message": f"fake {status}", "type": "fake_error", "code": status}}
                ).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                if status == 429:
                    self.send_header("retry-after", "1")
                self.end_headers()
                self.wfile.write(data)

            def _chunk(self, cid: str, delta: Json, finish: str | None = None) -> None:
                payload: Json = {
                    "id": cid,
                    "object": "chat.completion.chunk",
                    "created": int(time.time()),
                    "model": "fake-model",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                }
                if finish:
                    payload["usage"] = {
                        "prompt_tokens": 100,
                        "completion_tokens": 20,
                        "total_tokens": 120,
                    }
                self._send(f"data: {json.dumps(payload)}\n\n")

            def _send(self, data: str) -> None:
                raw = data.encode()
                self.wfile.write(f"{len(raw):x}\r\n".encode() + raw + b"\r\n")
                self.wfile.flush()

            def _stream(self, reply: Reply, cid: str) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                self._chunk(cid, {"role": "assistant", "content": ""})
                if reply.reasoning:
                    self._chunk(cid, {"reasoning_content": reply.reasoning})
                if reply.text:
                    self._chunk(cid, {"content": reply.text})
                if reply.stall:
                    model._release.wait(reply.stall)
                finish = "stop"
                if reply.tool:
                    finish = "tool_calls"
                    call = {
                        "index": 0,
                        "id": f"call_fake{next(model._ids)}",
                        "type": "function",
                        "function": {"name": reply.tool, "arguments": json.dumps(reply.arguments)},
                    }
                    self._chunk(cid, {"tool_calls": [call]})
                self._chunk(cid, {}, finish)
                self._send("data: [DONE]\n\n")
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

        return Handler
