"""pi (`@mariozechner/pi-coding-agent`, verified with 0.73.1): no command hooks, so todo-ls
ships an extension (editors/pi/todo-ls.ts, written by `todo-ls install pi`) that runs
`todo-ls hook --host pi` with one JSON object on stdin (docs/hosts-hooks.md, "pi"):

- `agent_end` (interactive and RPC mode) or `turn_end` (print mode, `-p`: pi exits right after
  the run, so the nudge must continue the run from its last turn): the end of a run, with pi's
  `stop_reason` (`stop`, `length`, `toolUse`, `error`, `aborted`), `session_id`, `cwd`,
  `transcript_path` (the session file), `last_assistant_message`, `prompt_id` (the extension's
  key of the user prompt the run serves) and `stop_hook_active` (the run was started by the
  extension's own nudge). `aborted` is Esc or RPC `abort`: never a block, pause `interrupt`;
  `error` never blocks either.
- `agent_error`: a run that ended in an error (`error`: pi's message), pause `error`.
- `input`: a user prompt (`prompt`, `source`: `interactive` or `rpc`). The nudge comes back as
  an `input` with `source: "extension"`, which the extension does not report and which is never
  a user prompt here either.
- `session_start` (`source`: pi's reason) and `session_shutdown` (`reason`).

The answer that keeps pi working is `{"decision": "block", "reason": …}` on stdout, exit 0; the
extension sends the reason with `pi.sendUserMessage` (the model reads it as a user message).
Nothing else on stdout means "let it stop". pi has no cap of its own (116 requests in 15 s with
an always-blocking hook): todo-ls's caps are the only brake. No todo tool of its own.

Transcript: `~/.pi/agent/sessions/--<cwd>--/<time>_<session id>.jsonl`, records
`{"type": "message", "message": {"role": "user" | "assistant" | "toolResult", "content": […],
"stopReason": …}}`: a tool result is a tool run, a user message a real prompt or todo-ls's nudge,
an assistant message with `stopReason: "aborted"` an interrupt.

Trust: none. pi loads `<project>/.pi/extensions/*.ts` at every start without asking, so writing
one is the user's decision, and `install` says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from todo_ls.hook.hosts.base import Event, HookHost, home, texts
from todo_ls.hook.transcript import LineKind, mentions_nudge

if TYPE_CHECKING:
    from todo_ls.hook.hosts.base import HookInput

EXTENSION_FILE = "todo-ls.ts"
# pi's `stop_reason`s after which a nudge would be wrong: the user stopped it, or it failed.
NO_NUDGE = frozenset({"aborted", "error"})
NUDGE_SOURCE = "extension"  # the `input` source of a message an extension sent
TRUST_NOTE = (
    "pi loads every extension in a project's .pi/extensions/ at its next start without asking "
    "(no trust step), so anyone who can write to this project can run code in your pi: keep "
    "the file only in projects you trust, or install with --scope user "
    "(~/.pi/agent/extensions/). `pi --no-extensions` starts without it."
)


class Pi(HookHost):
    kind = "pi"
    label = "pi"
    events: ClassVar[Mapping[str, Event]] = {
        "agent_end": "stop",
        "turn_end": "stop",
        "agent_error": "stop-failure",
        "input": "prompt",
        "session_start": "session-start",
        "session_shutdown": "session-end",
    }
    install_events = ()  # nothing is registered in a settings file: the extension is the hook
    project_settings = f".pi/extensions/{EXTENSION_FILE}"
    trust_note = TRUST_NOTE
    line_hints = (b'"message"',)

    def user_settings(self, env: Mapping[str, str]) -> Path:
        agent_dir = env.get("PI_CODING_AGENT_DIR")  # pi's own override of ~/.pi/agent
        base = Path(agent_dir).expanduser() if agent_dir else home(env) / ".pi" / "agent"
        return base / "extensions" / EXTENSION_FILE

    def detects(self, data: Mapping[str, Any], env: Mapping[str, str]) -> bool:
        return data.get("hook_event_name") in ("agent_end", "turn_end") and "stop_reason" in data

    # The block answer is the base's `{"decision": "block", "reason"}` on stdout: what the
    # extension parses (editors/pi/todo-ls.ts, `nudgeOf`).

    def interrupted(self, hook: HookInput) -> bool:
        # `error` is reported by the extension as `agent_error`; a stop carrying it (another
        # caller) must not be nudged either.
        return hook.text("stop_reason") in NO_NUDGE

    def is_nudge_prompt(self, hook: HookInput, last_reason: str | None) -> bool:
        return hook.text("source") == NUDGE_SOURCE

    def line_kind(self, record: Mapping[str, Any]) -> LineKind | None:
        message = record.get("message")
        if record.get("type") != "message" or not isinstance(message, Mapping):
            return None
        role = message.get("role")
        if role == "toolResult":
            return "tool"
        if role == "assistant":
            return "interrupt" if message.get("stopReason") == "aborted" else None
        if role != "user":
            return None
        said = texts(message.get("content"))
        if mentions_nudge(said):
            return "nudge"
        return "prompt" if any(t.strip() for t in said) else None


HOST = Pi()
