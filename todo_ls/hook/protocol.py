"""The hook protocols of Claude Code, Codex CLI and Gemini CLI, as todo-ls uses them. Pure.

All three send one JSON object on stdin with `session_id`, `cwd` and `hook_event_name`, and
read a decision from stdout. `parse` turns that object into a `HookInput` with the event name
normalised across hosts (Gemini's `AfterAgent` is a Stop, its `BeforeAgent` a user prompt);
`block_answer` writes the answer that keeps the agent working.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal, NamedTuple

HostKind = Literal["claude-code", "codex", "gemini-cli"]
HOST_KINDS: tuple[HostKind, ...] = ("claude-code", "codex", "gemini-cli")
Event = Literal[
    "stop",
    "subagent-stop",
    "session-start",
    "prompt",
    "notification",
    "stop-failure",
    "interrupt",
    "tool-use",
    "session-end",
]

# Host event name -> our event. Claude Code and Codex share names; Gemini CLI has its own.
_EVENTS: dict[str, Event] = {
    "Stop": "stop",
    "AfterAgent": "stop",
    "SubagentStop": "subagent-stop",
    "SessionStart": "session-start",
    "UserPromptSubmit": "prompt",
    "BeforeAgent": "prompt",
    "Notification": "notification",
    "StopFailure": "stop-failure",
    "Interrupt": "interrupt",
    "PostToolUse": "tool-use",
    "AfterTool": "tool-use",
    "SessionEnd": "session-end",
}
_GEMINI_EVENTS = frozenset({"AfterAgent", "BeforeAgent", "AfterTool", "BeforeTool"})


class HookInputError(ValueError):
    """The hook's input cannot be used; the message says why in one line."""


class HookInput(NamedTuple):
    """One hook invocation, normalised."""

    host: HostKind
    event: Event
    host_event: str  # the host's own name, for the log
    session_id: str
    cwd: str
    turn: str | None  # `prompt_id` (Claude Code), `turn_id` (Codex); None when absent
    transcript_path: str | None
    last_message: str
    background_tasks: int  # background work still running (Claude Code)
    raw: Mapping[str, Any]

    @property
    def tool_name(self) -> str:
        return str(self.raw.get("tool_name") or "")

    @property
    def tool_input(self) -> Mapping[str, Any]:
        value = self.raw.get("tool_input")
        return value if isinstance(value, Mapping) else {}

    def text(self, key: str) -> str:
        """A string field of the input, "" when absent or not a string."""
        value = self.raw.get(key)
        return value if isinstance(value, str) else ""


def detect_host(data: Mapping[str, Any], env: Mapping[str, str]) -> HostKind:
    """The host that ran the hook, from its input and environment."""
    name = data.get("hook_event_name")
    if name in _GEMINI_EVENTS or env.get("GEMINI_SESSION_ID") or env.get("GEMINI_PROJECT_DIR"):
        return "gemini-cli"
    if "turn_id" in data or name == "Interrupt":
        return "codex"
    return "claude-code"


def parse(text: str, env: Mapping[str, str], host: HostKind | None = None) -> HookInput:
    """Read one hook input. Raises `HookInputError` for anything todo-ls cannot act on."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise HookInputError(f"stdin is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise HookInputError(f"stdin is a JSON {type(data).__name__}, not an object")
    name = data.get("hook_event_name")
    if not isinstance(name, str) or name not in _EVENTS:
        raise HookInputError(f"unknown hook event {name!r}")
    event = _EVENTS[name]
    session_id = data.get("session_id")
    if not isinstance(session_id, str) or not session_id:
        raise HookInputError(f"{name}: no session_id")
    kind = host or detect_host(data, env)
    cwd = data.get("cwd")
    turn = data.get("prompt_id") if kind == "claude-code" else data.get("turn_id")
    transcript = data.get("transcript_path")
    message = data.get("last_assistant_message") or data.get("prompt_response") or ""
    return HookInput(
        host=kind,
        event=event,
        host_event=name,
        session_id=session_id,
        cwd=cwd if isinstance(cwd, str) and cwd else "",
        turn=turn if isinstance(turn, str) and turn else None,
        transcript_path=transcript if isinstance(transcript, str) and transcript else None,
        last_message=message if isinstance(message, str) else "",
        background_tasks=_running(data.get("background_tasks")),
        raw=data,
    )


_FINISHED = frozenset({"completed", "failed", "killed", "stopped", "cancelled", "canceled"})


def _running(tasks: object) -> int:
    """Background tasks still running (a missing status counts as running)."""
    if not isinstance(tasks, list):
        return 0
    return sum(
        1 for t in tasks if not (isinstance(t, Mapping) and str(t.get("status")) in _FINISHED)
    )


def project_dir(hook: HookInput, env: Mapping[str, str]) -> str:
    """The agent's project folder: the host's own variable, else the hook's `cwd`."""
    name = {"claude-code": "CLAUDE_PROJECT_DIR", "gemini-cli": "GEMINI_PROJECT_DIR"}.get(hook.host)
    return (env.get(name) if name else None) or hook.cwd


def block_answer(host: HostKind, reason: str) -> str:
    """The stdout that keeps the agent working with `reason` as its next instruction."""
    decision = "deny" if host == "gemini-cli" else "block"
    return json.dumps({"decision": decision, "reason": reason})
