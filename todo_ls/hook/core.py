"""What the hook decides, as plain functions of what the edge read (no I/O, no clock).

- `transition`: what a hook event means for the session's recorded state (working, waiting,
  idle, ended), its episode and its pause;
- `decide_stop`: whether a Stop blocks, with the supervisor's policy in its Stop-hook mode;
- `opportunity`: the key that makes a block happen once per Stop across processes.
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

from todo_ls.hook.protocol import HookInput
from todo_ls.supervisor.policy import NudgeHistory, OpenSet, PolicySettings, evaluate_stop
from todo_ls.supervisor.text import Nudge

# Notifications that mean a human must answer before the agent can go on.
_WAITING_NOTIFICATIONS = frozenset({"permission_prompt", "elicitation_dialog"})
SOURCE = "todo-ls"  # the nudge starts with it: Claude Code shows it after "Stop hook ..."


class Transition(NamedTuple):
    """What one hook event changes in the store (None: leave it as it is)."""

    state: str | None  # recorded state: "working" | "waiting" | "idle" | "ended"
    detail: str = ""
    turn: str | None = None
    title: str | None = None  # the prompt, for the editor's list
    new_episode: bool = False  # a real user prompt: lift the prompt-lifted pauses too
    pause: str | None = None  # "interrupt" | "error"


def transition(hook: HookInput, pause_on_interrupt: bool) -> Transition:
    """The store change for any event but Stop (which `decide_stop` handles)."""
    event = hook.event
    if event == "prompt":
        return Transition(
            "working",
            turn=hook.turn or _prompt_key(hook),
            title=_one_line(hook.text("prompt")),
            new_episode=True,
        )
    if event == "session-start":
        source = hook.text("source")
        if source == "compact":  # the conversation was compacted, mid-turn perhaps
            return Transition(None)
        return Transition("idle", detail=f"session {source or 'started'}")
    if event == "session-end":
        return Transition("ended", detail=hook.text("reason"))
    if event == "notification":
        kind = hook.text("notification_type")
        if kind in _WAITING_NOTIFICATIONS:
            return Transition("waiting", detail=_one_line(hook.text("message")) or kind)
        return Transition(None)
    if event == "stop-failure":
        error = _one_line(hook.text("error")) or "the turn failed"
        return Transition("idle", detail=f"error: {error}", pause="error")
    if event == "interrupt":
        return Transition(
            "idle", detail="interrupted", pause="interrupt" if pause_on_interrupt else None
        )
    if event == "tool-use":
        return Transition("working", detail=f"tool {hook.tool_name}")
    return Transition(None)  # a subagent's stop: the parent's turn goes on


def _prompt_key(hook: HookInput) -> str | None:
    # Gemini CLI gives a prompt no id: its text and time stand for one.
    stamp = hook.text("timestamp")
    if not stamp:
        return None
    return "p-" + hashlib.sha256((stamp + hook.text("prompt")).encode()).hexdigest()[:16]


def _one_line(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if len(first) <= 120 else first[:119] + "…"


class StopFacts(NamedTuple):
    """Everything a Stop decision depends on, read by the edge."""

    items: OpenSet
    pause_reason: str | None  # the stored pause (user, interrupt, error)
    history: NudgeHistory
    work_mark: str  # evidence of what the agent did: changes whenever it did something
    last_block_mark: str | None  # `work_mark` at the session's latest block
    background_tasks: int = 0
    enabled: bool = True


class StopVerdict(NamedTuple):
    """Block or not, and what the store records for the session."""

    block: bool
    state: str  # recorded: "working" when blocked (the agent goes on), else the policy's word
    detail: str
    paused: str = ""  # the pause the policy saw ("" for none)


def decide_stop(facts: StopFacts, settings: PolicySettings) -> StopVerdict:
    """Whether the agent may stop. Never blocks while background work runs or supervision is
    off; otherwise the policy decides (pauses, caps, and no second block without progress)."""
    if not facts.enabled:
        return StopVerdict(False, "idle", "supervision is off")
    if facts.background_tasks:
        n = facts.background_tasks
        return StopVerdict(False, "working", f"{n} background task{'s' if n != 1 else ''}")
    worked = facts.last_block_mark is None or facts.last_block_mark != facts.work_mark
    decision = evaluate_stop(facts.items, settings, facts.pause_reason, facts.history, worked)
    if decision.send:
        return StopVerdict(True, "working", "blocked: open items left")
    return StopVerdict(False, decision.state, decision.reason, decision.paused_reason or "")


def work_mark(output_end: int | None, last_message: str) -> str:
    """What changes whenever the agent does something: where its latest output ends in its
    transcript (`sources.last_output`); without a transcript, its last message."""
    if output_end is not None:
        return f"t{output_end}"
    return "m" + hashlib.sha256(last_message.encode()).hexdigest()[:16]


def opportunity(turn: str | None, mark: str, open_hash: str) -> str:
    """One Stop of one turn: every hook process of that Stop (parallel registrations,
    retries) reads the same input, so it computes the same key and only one of them blocks."""
    return f"{turn or '-'}\x1f{mark}\x1f{open_hash}"


def block_reason(items: OpenSet, number: int) -> str:
    """The nudge text for a blocked Stop, starting with where it comes from."""
    return f"{SOURCE}: " + Nudge("stop", number, items).text()
