"""Scripted fake model servers on loopback, and the OpenAI-compatible chat-completions one the
real-OpenCode tests use.

`ScriptedModel` is the part every wire format shares: a threaded HTTP server on a free
127.0.0.1 port, a queue of `Reply`s (each agent request takes the next one; `default`, a plain
"Done.", when the queue is empty), side requests (those offering no tools: titles, summaries)
answered apart without consuming the queue, and a log of the agent requests so tests can assert
what the model saw. A subclass only writes its wire format (`answer`). The agent CLI fakes
(Anthropic Messages, OpenAI Responses) live in tests/support/fake_agent_models.py.

`FakeModel` is the chat-completions one: OpenCode (provider `@ai-sdk/openai-compatible`,
`baseURL` = `FakeModel.base_url`) posts each agent step to `/v1/chat/completions` with
`stream: true`.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from typing_extensions import Self

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


class ModelHandler(BaseHTTPRequestHandler):
    """One HTTP exchange with a `ScriptedModel`: reads the JSON body and hands it over; helpers
    for JSON answers and chunked streams."""

    protocol_version = "HTTP/1.1"
    model: ScriptedModel  # set on the per-server subclass

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests assert on the request log, not on stderr."""

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        # The client may abort the request (user abort, interrupt, chunk timeout).
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.model.answer(self, self.path, body)

    def send_json(self, status: int, payload: Json) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        if status == 429:
            self.send_header("retry-after", "1")
        self.end_headers()
        self.wfile.write(data)

    def send_error_reply(self, status: int) -> None:
        self.send_json(
            status, {"error": {"message": f"fake {status}", "type": "fake_error", "code": status}}
        )

    def start_stream(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()

    def send_chunk(self, data: str) -> None:
        raw = data.encode()
        self.wfile.write(f"{len(raw):x}\r\n".encode() + raw + b"\r\n")
        self.wfile.flush()

    def end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class ScriptedModel:
    """The server; use as a context manager or call `start()` / `stop()`. Subclasses write
    `answer` (the wire format)."""

    side_reply = Reply(text="Fake title")

    def __init__(self) -> None:
        self._script: list[Reply] = []
        self._lock = threading.Lock()
        self._release = threading.Event()
        self._ids = itertools.count(1)
        self.default = Reply(text="Done.")  # the answer once the script is used up
        self.requests: list[Json] = []  # agent requests (with tools), in order
        self.title_requests = 0  # side requests (no tools)
        handler = type("Handler", (ModelHandler,), {"model": self})
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> Self:
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

    def next_id(self) -> int:
        return next(self._ids)

    def wait_released(self, seconds: float) -> None:
        """A stall: wait `seconds` or until `release()`."""
        self._release.wait(seconds)

    # what the model saw

    def wait_for(self, condition: Callable[[Self], bool], timeout: float = 30.0) -> None:
        """Poll `condition(self)` until true; AssertionError after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while not condition(self):
            if time.monotonic() > deadline:
                raise AssertionError(f"fake model: condition not met in {timeout} s")
            time.sleep(0.05)

    def wait_requests(self, count: int, timeout: float = 30.0) -> None:
        self.wait_for(lambda m: len(m.requests) >= count, timeout)

    # serving

    def next_reply(self, body: Json) -> Reply:
        """The reply for a request: the side reply when it offers no tools, else the next of
        the script (recording the request)."""
        with self._lock:
            if not body.get("tools"):
                self.title_requests += 1
                return self.side_reply
            self.requests.append(body)
            return self._script.pop(0) if self._script else self.default

    def answer(self, http: ModelHandler, path: str, body: Json) -> None:
        """Write the HTTP answer to one POST."""
        raise NotImplementedError


class FakeModel(ScriptedModel):
    """The OpenAI-compatible chat-completions fake (OpenCode's provider)."""

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

    def answer(self, http: ModelHandler, path: str, body: Json) -> None:
        reply = self.next_reply(body)
        if reply.status != 200:
            http.send_error_reply(reply.status)
        else:
            self._stream(http, reply, f"chatcmpl-{self.next_id()}")

    def _chunk(self, http: ModelHandler, cid: str, delta: Json, finish: str | None = None) -> None:
        payload: Json = {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": "fake-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        if finish:
            payload["usage"] = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        http.send_chunk(f"data: {json.dumps(payload)}\n\n")

    def _stream(self, http: ModelHandler, reply: Reply, cid: str) -> None:
        http.start_stream()
        self._chunk(http, cid, {"role": "assistant", "content": ""})
        if reply.reasoning:
            self._chunk(http, cid, {"reasoning_content": reply.reasoning})
        if reply.text:
            self._chunk(http, cid, {"content": reply.text})
        if reply.stall:
            self.wait_released(reply.stall)
        finish = "stop"
        if reply.tool:
            finish = "tool_calls"
            call = {
                "index": 0,
                "id": f"call_fake{self.next_id()}",
                "type": "function",
                "function": {"name": reply.tool, "arguments": json.dumps(reply.arguments)},
            }
            self._chunk(http, cid, {"tool_calls": [call]})
        self._chunk(http, cid, {}, finish)
        http.send_chunk("data: [DONE]\n\n")
        http.end_stream()
