"""The contract of one host reached through hooks (docs/hosts-hooks.md, "Adding a host").

A host is one module in this package that defines `HOST`, an instance of a `HookHost`
subclass. The class says everything that differs between agents: where its settings file is
and which events todo-ls registers there (read by its `todo-ls install` target), how its
stdin maps to the fields todo-ls reads, its block answer, how it signals an interrupt, how its
transcript shows a tool call, a real prompt and todo-ls's own nudge, where its own todo list
lives, and the step only its user can do (trust). The defaults are Claude Code's shape, which
several agents copied. Nothing outside this package knows a host by name.

Pure, apart from the own-list readers, which read the files the host keeps them in.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NamedTuple

from todo_ls.hook.transcript import LineKind

if TYPE_CHECKING:
    from todo_ls.hook.transcript import Transcript
    from todo_ls.todos.host_lists import Todo

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
# Claude Code's event names, which Codex, Qwen Code and Droid share.
CLAUDE_EVENTS: Mapping[str, Event] = {
    "Stop": "stop",
    "SubagentStop": "subagent-stop",
    "SessionStart": "session-start",
    "UserPromptSubmit": "prompt",
    "Notification": "notification",
    "StopFailure": "stop-failure",
    "PostToolUse": "tool-use",
    "SessionEnd": "session-end",
}


class HookInput(NamedTuple):
    """One hook invocation, normalised."""

    host: str  # the host's kind
    event: Event
    host_event: str  # the host's own name, for the log
    session_id: str
    cwd: str
    turn: str | None  # the host's turn key (`prompt_id`, `turn_id`); None when absent
    transcript_path: str | None
    last_message: str
    background_tasks: int  # background work still running (Claude Code)
    raw: Mapping[str, Any]

    @property
    def tool_name(self) -> str:
        return self.text("tool_name")

    @property
    def tool_input(self) -> Mapping[str, Any]:
        value = self.raw.get("tool_input")
        return value if isinstance(value, Mapping) else {}

    @property
    def stop_hook_active(self) -> bool:
        """The host says this Stop continues a turn a Stop hook blocked."""
        return self.raw.get("stop_hook_active") is True

    def text(self, key: str) -> str:
        """A string field of the input, "" when absent or not a string."""
        value = self.raw.get(key)
        return value if isinstance(value, str) else ""


class InstallEvent(NamedTuple):
    """One event `todo-ls install` registers todo-ls's hook for (a tuple, not a dataclass:
    the hook imports this module, and dataclasses costs it more than the rest of a Stop)."""

    name: str
    matcher: str | None = None  # tool events only: which tools


class HookAnswer(NamedTuple):
    """What the hook answers its host: stdout, stderr and the exit code (a tuple, like
    `InstallEvent`). Most hosts read a JSON decision on stdout; some read only an exit code
    of 2 with the reason on stderr (docs/hosts-hooks.md, "How each host is blocked")."""

    stdout: str = ""
    stderr: str = ""
    code: int = 0


class HookHost:
    """One agent reached through hooks. Subclasses set the class attributes and override
    the methods where the host differs from Claude Code's shape."""

    kind: ClassVar[str]  # the `--host` value and the status's `host`
    label: ClassVar[str]  # for messages
    events: ClassVar[Mapping[str, Event]] = CLAUDE_EVENTS
    event_field: ClassVar[str] = "hook_event_name"  # the input field naming the event
    install_events: ClassVar[tuple[InstallEvent, ...]]
    project_settings: ClassVar[str]  # the settings file, relative to the project folder
    timeout: ClassVar[int | None] = None  # the hook timeout, in the host's unit
    trust_note: ClassVar[str] = ""  # printed after an install: what only the user can do
    project_dir_var: ClassVar[str | None] = None  # the host's variable for the project folder
    turn_field: ClassVar[str] = "prompt_id"  # the input field naming the turn
    message_field: ClassVar[str] = "last_assistant_message"
    # The input says whether a Stop continues a turn a Stop hook blocked (`stop_hook_active`).
    # Without it, todo-ls tells one Stop from the next by its own latest block (hook/run.py).
    reports_continuation: ClassVar[bool] = True
    block_decision: ClassVar[str] = "block"
    # `notification_type`s that mean a human must answer before the agent can go on.
    waiting_notifications: ClassVar[frozenset[str]] = frozenset(
        {"permission_prompt", "elicitation_dialog"}
    )
    # Cheap byte tests a transcript line must pass before it is parsed (`line_kind`).
    line_hints: ClassVar[tuple[bytes, ...]] = ()

    def user_settings(self, env: Mapping[str, str]) -> Path:
        """The user-scope settings file."""
        raise NotImplementedError

    def detects(self, data: Mapping[str, Any], env: Mapping[str, str]) -> bool:
        """Whether an input without `--host` comes from this host (legacy installs)."""
        return False

    def normalize(self, data: dict[str, Any]) -> dict[str, Any]:
        """The input with the host's own field names and shapes mapped onto Claude Code's
        (`cwd`, `prompt` as text, ...), which the rest of the hook reads."""
        return data

    def event_of(self, name: str, data: Mapping[str, Any]) -> Event | None:
        """todo-ls's event for the host's event `name` (None: not one todo-ls handles)."""
        return self.events.get(name)

    def turn(self, data: Mapping[str, Any]) -> str | None:
        """The key of the turn (the same for every Stop of one continued turn), if any."""
        value = data.get(self.turn_field)
        return value if isinstance(value, str) and value else None

    def last_message(self, data: Mapping[str, Any]) -> str:
        value = data.get(self.message_field)
        return value if isinstance(value, str) else ""

    def background_tasks(self, data: Mapping[str, Any]) -> int:
        """Background work still running at a Stop (a missing status counts as running)."""
        tasks = data.get("background_tasks")
        if not isinstance(tasks, list):
            return 0
        return sum(
            1 for t in tasks if not (isinstance(t, Mapping) and str(t.get("status")) in _FINISHED)
        )

    def block_answer(self, reason: str) -> HookAnswer:
        """The answer that keeps the agent working with `reason` as its next instruction."""
        return HookAnswer(json.dumps({"decision": self.block_decision, "reason": reason}))

    def interrupted(self, hook: HookInput) -> bool:
        """Whether this Stop is the host reporting a user interrupt (from its input alone; a
        transcript whose latest record is an interrupt counts too, see `line_kind`)."""
        return False

    def is_nudge_prompt(self, hook: HookInput, last_reason: str | None) -> bool:
        """Whether a prompt event carries todo-ls's own nudge back (not a user prompt)."""
        prompt = hook.text("prompt").strip()
        return bool(prompt) and last_reason is not None and prompt == last_reason.strip()

    def line_kind(self, record: Mapping[str, Any]) -> LineKind | None:
        """What one parsed transcript record is: a tool call, a real user prompt, todo-ls's
        nudge handed to the model, an interrupt, or none of these."""
        return None

    def own_list(
        self, hook: HookInput, env: Mapping[str, str], transcript: Transcript | None
    ) -> list[Todo] | None:
        """The session's own todo list where the host keeps it, read at a Stop (None: none
        found, the one stored earlier stands)."""
        return None

    def tool_list(self, hook: HookInput) -> list[Todo] | None:
        """The list a post-tool event shows the todo tool setting (None: not a todo tool)."""
        return None


_FINISHED = frozenset({"completed", "failed", "killed", "stopped", "cancelled", "canceled"})


def texts(content: object) -> list[str]:
    """The text parts of a message content: a string, or a list of typed parts."""
    if isinstance(content, str):
        return [content]
    found: list[str] = []
    if isinstance(content, list):
        for part in content:
            if isinstance(part, Mapping) and isinstance(part.get("text"), str):
                found.append(part["text"])
    return found


def home(env: Mapping[str, str]) -> Path:
    """The user's home folder as the agent sees it."""
    value = env.get("HOME")
    return Path(value) if value else Path.home()
