"""Kimi Code (verified with 2.1.0): `[[hooks]]` tables in `~/.kimi-code/config.toml`
(`$KIMI_CODE_HOME`), the user's only: it reads no project hook file. `Stop` is blocked with an
exit code of 2 and the reason on stderr; Claude Code's `{"decision": "block"}` is ignored.

- The reason is added as a user message after the answer it follows, and the turn goes on;
  `UserPromptSubmit` does not fire for it.
- Its own cap: one continuation per turn. The Stop after it fires no hook at all, so todo-ls
  blocks at most once per turn there (`maxNoProgressNudges` above 1 is never reached).
- Input: `stop_hook_active` is always false, no turn id, no transcript path, no last message:
  todo-ls tells its Stops apart by its own latest block. A prompt is a list of typed parts.
- Interrupt: Esc runs the `Interrupt` hook (and no Stop): a pause until the next prompt.
- Own list: the `TodoList` tool (`{"todos": [{title, status: pending | in_progress | done}]}`;
  no `todos` reads the list), seen by `PostToolUse` (which Kimi Code runs fire-and-forget: not
  always).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from todo_ls.hook.hosts.base import (
    CLAUDE_EVENTS,
    Event,
    HookAnswer,
    HookHost,
    InstallEvent,
    home,
    texts,
)
from todo_ls.todos.host_lists import Todo, todo_list

if TYPE_CHECKING:
    from todo_ls.hook.hosts.base import HookInput

TODO_TOOL = "TodoList"  # the name Kimi Code 2.1.0 offers the model
BLOCK_EXIT = 2
_STATUSES = {"done": "completed"}


class KimiCode(HookHost):
    kind = "kimi-code"
    label = "Kimi Code"
    events: ClassVar[Mapping[str, Event]] = {**CLAUDE_EVENTS, "Interrupt": "interrupt"}
    install_events = (
        InstallEvent("Stop"),
        InstallEvent("UserPromptSubmit"),
        InstallEvent("Interrupt"),
        InstallEvent("StopFailure"),
        InstallEvent("SessionStart"),
        InstallEvent("SessionEnd"),
        InstallEvent("PostToolUse", TODO_TOOL),
    )
    project_settings = ""  # none: user scope only
    timeout = 30  # seconds
    trust_note = (
        "Kimi Code reads hooks from the user's config only, so todo-ls supervises it in "
        "every folder; it reads them at its next start, with no trust step."
    )
    turn_field = ""  # Kimi Code names no turn at a Stop
    reports_continuation = False

    def user_settings(self, env: Mapping[str, str]) -> Path:
        value = env.get("KIMI_CODE_HOME")
        return (Path(value) if value else home(env) / ".kimi-code") / "config.toml"

    def detects(self, data: Mapping[str, Any], env: Mapping[str, str]) -> bool:
        return data.get("client_type") == "kimi_code_cli"

    def normalize(self, data: dict[str, Any]) -> dict[str, Any]:
        prompt = data.get("prompt")
        if isinstance(prompt, list):
            return {**data, "prompt": "\n".join(texts(prompt))}
        return data

    def block_answer(self, reason: str) -> HookAnswer:
        return HookAnswer(stderr=reason, code=BLOCK_EXIT)

    def tool_list(self, hook: HookInput) -> list[Todo] | None:
        if hook.tool_name != TODO_TOOL:
            return None
        return todo_list(hook.tool_input.get("todos"), ("title", "content"), _STATUSES)


HOST = KimiCode()
