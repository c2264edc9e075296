"""Codex CLI (verified with 0.171.0): `.codex/hooks.json`, `Stop` blocked with
`{"decision": "block"}`, an `Interrupt` hook after the user interrupts (and no Stop), and hooks
run only once the user trusted them with `/hooks`.

- Transcript: the rollout file (`transcript_path`); records `{"type": "response_item",
  "payload": {...}}` hold the conversation: tool calls (`function_call`, `custom_tool_call`,
  `local_shell_call`), user messages (todo-ls's nudge comes back inside `<hook_prompt>`).
- Own list: the latest `update_plan` call (`{"plan": [{"step", "status"}]}`) in the rollout.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from todo_ls.hook.hosts.base import CLAUDE_EVENTS, Event, HookHost, InstallEvent, home, texts
from todo_ls.hook.transcript import LineKind, mentions_nudge
from todo_ls.todos.host_lists import Todo, normalize

if TYPE_CHECKING:
    from todo_ls.hook.hosts.base import HookInput
    from todo_ls.hook.transcript import Transcript

TRUST_NOTE = (
    "Codex skips hooks nobody trusted, without a word: start Codex in this project, run "
    "/hooks and trust todo-ls's hooks. todo-ls never trusts them for you, and Codex asks again "
    "whenever the command changes (for instance after reinstalling todo-ls elsewhere). "
    "A project's .codex/hooks.json is read only when the project itself is trusted."
)
_TOOL_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
# The user messages Codex writes itself at the start of a thread.
_CONTEXT_TAGS = ("<environment_context>", "<user_instructions>", "<turn_aborted>")


class Codex(HookHost):
    kind = "codex"
    label = "Codex"
    events: ClassVar[Mapping[str, Event]] = {**CLAUDE_EVENTS, "Interrupt": "interrupt"}
    install_events = (
        InstallEvent("SessionStart"),
        InstallEvent("UserPromptSubmit"),
        InstallEvent("Stop"),
        InstallEvent("Interrupt"),
    )
    project_settings = ".codex/hooks.json"
    trust_note = TRUST_NOTE
    turn_field = "turn_id"
    line_hints = (b"response_item",)

    def user_settings(self, env: Mapping[str, str]) -> Path:
        codex_home = env.get("CODEX_HOME")
        return (Path(codex_home) if codex_home else home(env) / ".codex") / "hooks.json"

    def detects(self, data: Mapping[str, Any], env: Mapping[str, str]) -> bool:
        return "turn_id" in data or data.get("hook_event_name") == "Interrupt"

    def line_kind(self, record: Mapping[str, Any]) -> LineKind | None:
        payload = record.get("payload")
        if record.get("type") != "response_item" or not isinstance(payload, Mapping):
            return None
        kind = payload.get("type")
        if kind in _TOOL_CALLS:
            return "tool"
        if kind != "message" or payload.get("role") != "user":
            return None
        said = texts(payload.get("content"))
        if mentions_nudge(said):
            return "nudge"
        real = [t for t in said if t.strip() and not t.lstrip().startswith(_CONTEXT_TAGS)]
        return "prompt" if real else None

    def own_list(
        self, hook: HookInput, env: Mapping[str, str], transcript: Transcript | None
    ) -> list[Todo] | None:
        return None if transcript is None else transcript.last(b"update_plan", plan_of)


def plan_of(record: Mapping[str, Any]) -> list[Todo] | None:
    """The plan of an `update_plan` call record; None for any other record."""
    call = record.get("payload", record)
    if not isinstance(call, Mapping) or call.get("name") != "update_plan":
        return None
    args = call.get("arguments")
    try:
        parsed = json.loads(args) if isinstance(args, str) else args
    except ValueError:
        return None
    plan = parsed.get("plan") if isinstance(parsed, Mapping) else None
    if not isinstance(plan, list):
        return None
    return normalize((s for s in plan if isinstance(s, Mapping)), ("step",))


HOST = Codex()
