"""OpenHands CLI (verified with 1.16.0): Claude Code's hook shape in `.openhands/hooks.json`
(the project's) or `~/.openhands/hooks.json` (the user's), both read with no trust step, but
the input names its event `event_type` and its folder `working_dir`. `Stop` is blocked with
`{"decision": "deny", "reason"}` (or an exit code of 2); Claude Code's `block` is ignored.

- The reason reaches the model as a user message `[Stop hook feedback] <reason>`, after the
  answer it follows; no `UserPromptSubmit` fires for it.
- No cap of its own (76 blocks in 40 s with a hook that always blocks): todo-ls's caps are
  the only brake.
- Input: no `stop_hook_active`, no turn id, no transcript path, no last message; the Stop
  after a block is the same as the first, so todo-ls tells them apart by its own latest block.
- Interrupt: none reaches the hook (headless, SIGINT does not cancel the turn; the TUI's pause
  leaves the run before its Stop check).
- Own list: the `task_tracker` tool (`{"command": "plan", "task_list": [{title, notes,
  status: todo | in_progress | done}], "security_risk"}`), seen whole by the `PostToolUse`
  hook, and kept in `TASKS.json` in the conversation's folder
  (`~/.openhands/conversations/<session id without dashes>/`; `$OPENHANDS_CONVERSATIONS_DIR`
  or `$OPENHANDS_PERSISTENCE_DIR/conversations` when set), read at each Stop.
- Start: the CLI clones its public skills from the internet at every start (a warning when
  offline, the run goes on).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from todo_ls.hook.hosts.base import Event, HookHost, InstallEvent, home
from todo_ls.todos.host_lists import Todo, todo_list

if TYPE_CHECKING:
    from todo_ls.hook.hosts.base import HookInput
    from todo_ls.hook.transcript import Transcript

TODO_TOOL = "task_tracker"
TASKS_FILE = "TASKS.json"
_STATUSES = {"todo": "pending", "done": "completed"}
# A conversation folder's name: the session id (a UUID) without its dashes.
_CONVERSATION = re.compile(r"[0-9a-fA-F]{32}")


class OpenHands(HookHost):
    kind = "openhands"
    label = "OpenHands"
    events: ClassVar[Mapping[str, Event]] = {
        "Stop": "stop",
        "UserPromptSubmit": "prompt",
        "PostToolUse": "tool-use",
        "SessionStart": "session-start",
        "SessionEnd": "session-end",
    }
    event_field = "event_type"
    install_events = (
        InstallEvent("Stop", "*"),
        InstallEvent("UserPromptSubmit", "*"),
        InstallEvent("PostToolUse", "*"),
        InstallEvent("SessionStart", "*"),
        InstallEvent("SessionEnd", "*"),
    )
    project_settings = ".openhands/hooks.json"
    timeout = 30  # seconds
    trust_note = "OpenHands reads the hooks when its next conversation starts; no trust step."
    project_dir_var = "OPENHANDS_PROJECT_DIR"
    turn_field = ""  # OpenHands names no turn
    reports_continuation = False
    block_decision = "deny"

    def user_settings(self, env: Mapping[str, str]) -> Path:
        return home(env) / ".openhands" / "hooks.json"

    def detects(self, data: Mapping[str, Any], env: Mapping[str, str]) -> bool:
        return "event_type" in data or bool(env.get("OPENHANDS_SESSION_ID"))

    def normalize(self, data: dict[str, Any]) -> dict[str, Any]:
        # `message` is the prompt of a UserPromptSubmit (null at a Stop).
        return {"cwd": data.get("working_dir"), "prompt": data.get("message"), **data}

    def own_list(
        self, hook: HookInput, env: Mapping[str, str], transcript: Transcript | None
    ) -> list[Todo] | None:
        folder = hook.session_id.replace("-", "")
        if not _CONVERSATION.fullmatch(folder):
            return None  # not a conversation id: never read outside the conversations folder
        return tasks_file(conversations_dir(env) / folder / TASKS_FILE)

    def tool_list(self, hook: HookInput) -> list[Todo] | None:
        if hook.tool_name != TODO_TOOL:
            return None
        return todo_list(hook.tool_input.get("task_list"), ("title",), _STATUSES)


def conversations_dir(env: Mapping[str, str]) -> Path:
    """Where OpenHands keeps its conversations (its CLI's own lookup)."""
    if env.get("OPENHANDS_CONVERSATIONS_DIR"):
        return Path(env["OPENHANDS_CONVERSATIONS_DIR"])
    persistence = env.get("OPENHANDS_PERSISTENCE_DIR")
    return (Path(persistence) if persistence else home(env) / ".openhands") / "conversations"


def tasks_file(path: Path) -> list[Todo] | None:
    """The task_tracker's list in `path`; None when there is none (or it is being written)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return todo_list(data, ("title",), _STATUSES)


HOST = OpenHands()
