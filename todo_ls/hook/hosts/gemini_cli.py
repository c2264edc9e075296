"""Gemini CLI (verified with 0.61.0): `.gemini/settings.json`, `AfterAgent` is the Stop
(blocked with `{"decision": "deny"}`), `BeforeAgent` the prompt, timeouts in milliseconds.

- The nudge comes back as a prompt: after a block, `BeforeAgent` fires with the reason as its
  `prompt`. That is not a user prompt (`is_nudge_prompt`, compared with the reason last given).
- An interrupt is an `AfterAgent`: after Esc / Ctrl-C it fires with `prompt_response:
  "[no response text]"`, and the transcript's latest record is `{"type": "info", "content":
  "Request cancelled."}`. It pauses the session, never blocks.
- No cap of its own: todo-ls's caps are the only brake.
- Transcript: `~/.gemini/tmp/<project>/chats/session-*.jsonl`; `gemini` records carry the
  tool calls (`toolCalls`), `user` records the prompts (and todo-ls's nudge, unwrapped).
- Own list: the latest `write_todos` call in the transcript (`args.todos`: `[{description,
  status}]`), also seen by `AfterTool` (`tool_input.todos`).
- Trust: project hooks run only in a trusted folder, and an untrusted one drops them without
  a word (`--skip-trust` too): `trust_note` says how.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from todo_ls.hook.hosts.base import Event, HookHost, InstallEvent, home, texts
from todo_ls.hook.transcript import LineKind, mentions_nudge
from todo_ls.todos.host_lists import Todo, normalize

if TYPE_CHECKING:
    from todo_ls.hook.hosts.base import HookInput
    from todo_ls.hook.transcript import Transcript

NO_RESPONSE = "[no response text]"  # AfterAgent's `prompt_response` after Esc / Ctrl-C
CANCELLED = "Request cancelled."
TODO_TOOL = "write_todos"
_OWN_EVENTS = frozenset({"AfterAgent", "BeforeAgent", "AfterTool", "BeforeTool"})
TRUST_NOTE = (
    "Gemini CLI runs a project's hooks only in a trusted folder, and skips them without a word "
    "otherwise: trust this folder when Gemini CLI asks (or add it to "
    '~/.gemini/trustedFolders.json as "TRUST_FOLDER", or start it with '
    "GEMINI_CLI_TRUST_WORKSPACE=true), and accept the project hooks it lists once at start. "
    "`gemini --skip-trust` runs user hooks only: install with --scope user for that."
)


class GeminiCli(HookHost):
    kind = "gemini-cli"
    label = "Gemini CLI"
    events: ClassVar[Mapping[str, Event]] = {
        "AfterAgent": "stop",
        "BeforeAgent": "prompt",
        "AfterTool": "tool-use",
        "SessionStart": "session-start",
        "SessionEnd": "session-end",
        "Notification": "notification",
    }
    install_events = (
        InstallEvent("AfterAgent"),
        InstallEvent("BeforeAgent"),
        InstallEvent("AfterTool", TODO_TOOL),
        InstallEvent("SessionStart"),
        InstallEvent("SessionEnd"),
        InstallEvent("Notification"),
    )
    project_settings = ".gemini/settings.json"
    timeout = 30000  # milliseconds
    trust_note = TRUST_NOTE
    project_dir_var = "GEMINI_PROJECT_DIR"
    turn_field = ""  # Gemini CLI names no turn
    message_field = "prompt_response"  # cumulative across the blocks of one turn
    block_decision = "deny"
    waiting_notifications = frozenset({"ToolPermission"})  # a tool call waits for approval
    line_hints = (b'"gemini"', b'"user"', CANCELLED.encode())

    def user_settings(self, env: Mapping[str, str]) -> Path:
        return home(env) / ".gemini" / "settings.json"

    def detects(self, data: Mapping[str, Any], env: Mapping[str, str]) -> bool:
        return data.get("hook_event_name") in _OWN_EVENTS or bool(
            env.get("GEMINI_SESSION_ID") or env.get("GEMINI_PROJECT_DIR")
        )

    def interrupted(self, hook: HookInput) -> bool:
        return hook.text("prompt_response").strip() == NO_RESPONSE

    def line_kind(self, record: Mapping[str, Any]) -> LineKind | None:
        kind = record.get("type")
        if kind == "gemini":
            calls = record.get("toolCalls")
            return "tool" if isinstance(calls, list) and calls else None
        if kind == "info":
            return "interrupt" if CANCELLED in texts(record.get("content")) else None
        if kind != "user":
            return None
        said = texts(record.get("content"))
        if mentions_nudge(said):
            return "nudge"
        return "prompt" if any(t.strip() for t in said) else None

    def own_list(
        self, hook: HookInput, env: Mapping[str, str], transcript: Transcript | None
    ) -> list[Todo] | None:
        return None if transcript is None else transcript.last(TODO_TOOL.encode(), todos_of)

    def tool_list(self, hook: HookInput) -> list[Todo] | None:
        if hook.tool_name != TODO_TOOL:
            return None
        return _todos(hook.tool_input.get("todos"))


def todos_of(record: Mapping[str, Any]) -> list[Todo] | None:
    """The list of the latest `write_todos` call of a transcript record."""
    calls = record.get("toolCalls")
    if not isinstance(calls, list):
        return None
    for call in reversed(calls):
        if isinstance(call, Mapping) and call.get("name") == TODO_TOOL:
            args = call.get("args")
            found = _todos(args.get("todos") if isinstance(args, Mapping) else None)
            if found is not None:
                return found
    return None


def _todos(value: object) -> list[Todo] | None:
    if not isinstance(value, list):
        return None
    return normalize((t for t in value if isinstance(t, Mapping)), ("description", "content"))


HOST = GeminiCli()
