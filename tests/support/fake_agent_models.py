"""Scripted fake model servers for the real agent CLIs: the Anthropic Messages API (Claude Code),
the OpenAI Responses API (Codex) and OpenAI chat completions (Qwen Code, Copilot CLI, Droid).
All reuse `ScriptedModel` (tests/support/fake_model.py):
every agent request takes the next `Reply` of the script, requests offering no tools are side
requests answered with a short text, and the agent requests are logged so a test can read what
the model received (`user_texts`, `nudges`).

A model that "never progresses" is simply the default: once the script is used up every agent
request is answered "Done." and nothing changes on disk.
"""

from __future__ import annotations

import json
import re
import time

from support.fake_model import FakeModel, Json, ModelHandler, Reply, ScriptedModel

NUDGE_MARK = "nudge #"  # every todo-ls nudge names itself ("Idle nudge #1 — …")


def claude_bash(command: str) -> Reply:
    """Claude Code's shell tool call."""
    return Reply(tool="Bash", arguments={"command": command, "description": "Run a command"})


def codex_shell(command: str) -> Reply:
    """Codex's shell tool call (`exec_command`)."""
    return Reply(tool="exec_command", arguments={"cmd": command})


def claude_todo_write(todos: list[tuple[str, str]], first: bool = False) -> list[Reply]:
    """Claude Code's legacy todo list: `TodoWrite` with (content, status) items. It is a
    deferred tool, so the first call of a session loads it with `ToolSearch`."""
    items = [{"content": c, "status": s, "activeForm": c} for c, s in todos]
    load = Reply(tool="ToolSearch", arguments={"query": "select:TodoWrite", "max_results": 1})
    write = Reply(tool="TodoWrite", arguments={"todos": items})
    return [load, write] if first else [write]


def codex_update_plan(todos: list[tuple[str, str]], first: bool = False) -> list[Reply]:
    """Codex's plan: `update_plan` with (step, status) items (nothing to load first)."""
    plan = [{"step": c, "status": s} for c, s in todos]
    return [Reply(tool="update_plan", arguments={"plan": plan})]


def tick_all(path: str = "PLAN.md") -> str:
    """A shell command that ticks every open box of `path` (what an agent does once it has
    finished the work)."""
    return f"sed -i 's/- \\[ \\]/- [x]/' {path}"


def _texts(content: object) -> list[str]:
    """The text parts of a message content (a string, or a list of typed parts, possibly
    nested as in a tool result)."""
    if isinstance(content, str):
        return [content]
    found: list[str] = []
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict):
                if isinstance(part.get("text"), str):
                    found.append(part["text"])
                found += _texts(part.get("content"))
    return found


class AgentModel(ScriptedModel):
    """What the agent fakes share: server-sent events and reading the user side of the
    conversation."""

    def event(self, http: ModelHandler, data: Json) -> None:
        """One server-sent event named by its `type`."""
        http.send_chunk(f"event: {data['type']}\ndata: {json.dumps(data)}\n\n")

    def conversation(self, request: Json) -> list[Json]:
        """The request's messages (Anthropic `messages`, Responses `input`)."""
        raise NotImplementedError

    def user_texts(self, request: Json | None = None) -> list[str]:
        """Every text the user side sent in `request` (default: the latest agent request):
        prompts, hook feedback, tool results."""
        if request is None:
            request = self.requests[-1] if self.requests else {}
        texts: list[str] = []
        for message in self.conversation(request):
            if message.get("role") == "user":
                texts += _texts(message.get("content"))
        return texts

    # How the host frames a Stop hook's reason in the conversation (group 1: the reason).
    hook_reason: re.Pattern[str] = re.compile(r"(?!)")

    def nudges(self, request: Json | None = None) -> list[str]:
        """The todo-ls nudges (the hook reasons, unwrapped) the model has received so far in
        the conversation of `request` (default: the latest). The conversation is cumulative,
        so this counts hook reasons, not requests: two reasons given at one Stop arrive in
        one request."""
        found = []
        for text in self.user_texts(request):
            for match in self.hook_reason.finditer(text):
                reason = match.group(1).strip()
                if NUDGE_MARK in reason.lower():
                    found.append(reason)
        return found


class FakeMessagesAPI(AgentModel):
    """The Anthropic Messages API as Claude Code 2.1 calls it (`ANTHROPIC_BASE_URL` =
    `origin`): `POST /v1/messages` streamed as server-sent events, `POST
    /v1/messages/count_tokens`."""

    side_reply = Reply(text="Fake summary")
    # "Stop hook feedback:\n<reason>" inside a system reminder, one per blocking hook.
    hook_reason = re.compile(
        r"Stop hook feedback:\n(.*?)(?=\nStop hook feedback:|</system-reminder>|\Z)", re.S
    )

    def conversation(self, request: Json) -> list[Json]:
        return list(request.get("messages") or [])

    def answer(self, http: ModelHandler, path: str, body: Json) -> None:
        route = path.split("?")[0]
        if route == "/v1/messages/count_tokens":
            http.send_json(200, {"input_tokens": 100})
        elif route == "/v1/messages":
            reply = self.next_reply(body)
            if reply.status != 200:
                http.send_error_reply(reply.status)
            else:
                self._stream(http, reply)
        else:
            http.send_error_reply(404)

    def _block(self, http: ModelHandler, index: int, start: Json, delta: Json) -> None:
        self.event(http, {"type": "content_block_start", "index": index, "content_block": start})
        self.event(http, {"type": "content_block_delta", "index": index, "delta": delta})
        self.event(http, {"type": "content_block_stop", "index": index})

    def _stream(self, http: ModelHandler, reply: Reply) -> None:
        http.start_stream()
        message = {
            "id": f"msg_fake{self.next_id()}",
            "type": "message",
            "role": "assistant",
            "model": "claude-fake",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 1},
        }
        self.event(http, {"type": "message_start", "message": message})
        index = 0
        if reply.text:
            start = {"type": "text", "text": ""}
            self._block(http, index, start, {"type": "text_delta", "text": reply.text})
            index += 1
        if reply.stall:
            self.wait_released(reply.stall)
        stop = "end_turn"
        if reply.tool:
            stop = "tool_use"
            start = {
                "type": "tool_use",
                "id": f"toolu_fake{self.next_id()}",
                "name": reply.tool,
                "input": {},
            }
            delta = {"type": "input_json_delta", "partial_json": json.dumps(reply.arguments)}
            self._block(http, index, start, delta)
        self.event(
            http,
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 20},
            },
        )
        self.event(http, {"type": "message_stop"})
        http.end_stream()


class FakeResponsesAPI(AgentModel):
    """The OpenAI Responses API as Codex 0.171 calls it (`base_url` = `base_url`, `wire_api =
    "responses"`): `POST /v1/responses` streamed as server-sent events."""

    # A user message `<hook_prompt hook_run_id="…">reason</hook_prompt>` per blocking hook.
    hook_reason = re.compile(r"<hook_prompt[^>]*>(.*?)</hook_prompt>", re.S)

    def conversation(self, request: Json) -> list[Json]:
        return [item for item in request.get("input") or [] if isinstance(item, dict)]

    def answer(self, http: ModelHandler, path: str, body: Json) -> None:
        if path.split("?")[0] != "/v1/responses":
            http.send_error_reply(404)
            return
        reply = self.next_reply(body)
        if reply.status != 200:
            http.send_error_reply(reply.status)
        else:
            self._stream(http, reply)

    def _item(self, http: ModelHandler, index: int, added: Json, done: Json) -> None:
        self.event(
            http, {"type": "response.output_item.added", "output_index": index, "item": added}
        )
        self.event(http, {"type": "response.output_item.done", "output_index": index, "item": done})

    def _stream(self, http: ModelHandler, reply: Reply) -> None:
        http.start_stream()
        response: Json = {
            "id": f"resp_fake{self.next_id()}",
            "object": "response",
            "created_at": int(time.time()),
            "model": "fake-model",
            "status": "in_progress",
            "output": [],
        }
        self.event(http, {"type": "response.created", "response": response})
        output: list[Json] = []
        if reply.text:
            item_id = f"msg_fake{self.next_id()}"
            where = {"item_id": item_id, "output_index": 0, "content_index": 0}
            part = {"type": "output_text", "text": reply.text, "annotations": []}
            self.event(
                http,
                {
                    "type": "response.output_item.added",
                    "output_index": 0,
                    "item": {"type": "message", "id": item_id, "role": "assistant", "content": []},
                },
            )
            self.event(
                http, {"type": "response.content_part.added", **where, "part": {**part, "text": ""}}
            )
            self.event(http, {"type": "response.output_text.delta", **where, "delta": reply.text})
            self.event(http, {"type": "response.output_text.done", **where, "text": reply.text})
            done = {
                "type": "message",
                "id": item_id,
                "status": "completed",
                "role": "assistant",
                "content": [part],
            }
            self.event(http, {"type": "response.output_item.done", "output_index": 0, "item": done})
            output.append(done)
        if reply.stall:
            self.wait_released(reply.stall)
        if reply.tool:
            call = {
                "type": "function_call",
                "id": f"fc_fake{self.next_id()}",
                "call_id": f"call_fake{self.next_id()}",
                "name": reply.tool,
                "arguments": json.dumps(reply.arguments),
                "status": "completed",
            }
            self._item(http, len(output), {**call, "arguments": ""}, call)
            output.append(call)
        usage = {
            "input_tokens": 100,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 20,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 120,
        }
        completed = {**response, "status": "completed", "output": output, "usage": usage}
        self.event(http, {"type": "response.completed", "response": completed})
        http.end_stream()


def gemini_shell(command: str) -> Reply:
    """Gemini CLI's shell tool call."""
    return Reply(tool="run_shell_command", arguments={"command": command})


def gemini_write_todos(todos: list[tuple[str, str]], first: bool = False) -> list[Reply]:
    """Gemini CLI's own list: `write_todos` with (description, status) items."""
    items = [{"description": c, "status": s} for c, s in todos]
    return [Reply(tool="write_todos", arguments={"todos": items})]


class FakeGeminiAPI(AgentModel):
    """The Gemini API as Gemini CLI 0.61 calls it (`GOOGLE_GEMINI_BASE_URL` = `origin`):
    `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` streamed as server-sent
    events (one `data:` event per part), and `:generateContent` (plain JSON) for the side
    calls, such as the summary of the last session the TUI asks for at start."""

    side_reply = Reply(text="Fake summary")
    # The reason reaches the model as a plain user message, not wrapped.
    hook_reason = re.compile(r"\A(todo-ls: .*)\Z", re.S)

    def conversation(self, request: Json) -> list[Json]:
        return [c for c in request.get("contents") or [] if isinstance(c, dict)]

    def user_texts(self, request: Json | None = None) -> list[str]:
        if request is None:
            request = self.requests[-1] if self.requests else {}
        texts: list[str] = []
        for content in self.conversation(request):
            if content.get("role") == "user":
                texts += [p["text"] for p in content.get("parts") or [] if "text" in p]
        return texts

    def answer(self, http: ModelHandler, path: str, body: Json) -> None:
        route = path.split("?")[0]
        if route.endswith(":countTokens"):
            http.send_json(200, {"totalTokens": 100})
            return
        streamed = route.endswith(":streamGenerateContent")
        if not streamed and not route.endswith(":generateContent"):
            http.send_error_reply(404)
            return
        reply = self.next_reply(body) if streamed else self.side_reply
        if not streamed:
            self.title_requests += 1
            http.send_json(200, self._response([{"text": reply.text}]))
        elif reply.status != 200:
            http.send_error_reply(reply.status)
        else:
            http.start_stream()
            if reply.text:
                self._event(http, [{"text": reply.text}], finished=False)
            if reply.stall:
                self.wait_released(reply.stall)
            if reply.tool:
                call = {"functionCall": {"name": reply.tool, "args": reply.arguments}}
                self._event(http, [call], finished=True)
            else:
                self._event(http, [{"text": ""}], finished=True)
            http.end_stream()

    def _response(self, parts: list[Json], finished: bool = True) -> Json:
        candidate: Json = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finished:
            candidate["finishReason"] = "STOP"
        usage = {"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120}
        return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": "fake"}

    def _event(self, http: ModelHandler, parts: list[Json], finished: bool) -> None:
        http.send_chunk(f"data: {json.dumps(self._response(parts, finished))}\n\n")


class FakeChatCompletionsAPI(AgentModel, FakeModel):
    """OpenAI chat completions as Qwen Code 0.24, Copilot CLI 1.0 and Droid 0.225 call it
    (`base_url`): `FakeModel`'s stream, read as an agent conversation. All three hand a Stop
    hook's reason to the model as a plain user message (Copilot puts a
    `<current_datetime>` line before it)."""

    hook_reason = re.compile(r"(?:^|\n)(todo-ls: .*?)(?=\ntodo-ls: |\Z)", re.S)

    def conversation(self, request: Json) -> list[Json]:
        return [m for m in request.get("messages") or [] if isinstance(m, dict)]
