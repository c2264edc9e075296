"""What the hook decides, as plain functions of what the edge read (no I/O, no clock).

- `transition`: what a hook event means for the session's recorded state (working, waiting,
  idle, ended), its episode and its pause;
- `decide_stop`: whether a Stop blocks, with the supervisor's policy in its Stop-hook mode and
  the rule that work means acting (docs/hosts-hooks.md): a second block needs a tool run, a
  changed open set or a changed own list since the first; text is not work;
- `work_mark` / `opportunity`: the evidence of work, and the key that makes a block happen
  once per Stop across processes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from typing import NamedTuple

from todo_ls.hook.hosts.base import HookInput
from todo_ls.hook.transcript import LineKind
from todo_ls.supervisor.policy import (
    NO_PROGRESS_SINCE,
    NudgeHistory,
    OpenSet,
    PolicySettings,
    evaluate_stop,
)
from todo_ls.supervisor.text import Nudge

SOURCE = "todo-ls"  # the nudge starts with it: Claude Code shows it after "Stop hook ..."
ANSWERED = "answered without working"  # the detail of a session that answered a nudge in words
_NO_PROGRESS = NO_PROGRESS_SINCE.split("{", 1)[0]


class Transition(NamedTuple):
    """What one hook event changes in the store (None: leave it as it is)."""

    state: str | None  # recorded state: "working" | "waiting" | "idle" | "ended"
    detail: str = ""
    turn: str | None = None
    title: str | None = None  # the prompt, for the editor's list
    new_episode: bool = False  # a real user prompt: lift the prompt-lifted pauses too
    pause: str | None = None  # "interrupt" | "error"


def transition(
    hook: HookInput,
    pause_on_interrupt: bool,
    nudge: bool = False,
    waiting: Collection[str] = ("permission_prompt", "elicitation_dialog"),
) -> Transition:
    """The store change for any event but Stop (which `decide_stop` handles). `nudge`: the
    prompt event carries todo-ls's own nudge back (Gemini CLI), not a user prompt; `waiting`:
    the host's notification types that mean a human must answer."""
    event = hook.event
    if event == "prompt" and nudge:
        return Transition("working", detail="nudged")
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
        if kind in waiting:
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
    work_mark: str  # evidence of acting (`work_mark`): changes only when the agent acted
    last_block_mark: str | None  # `work_mark` at the session's latest block
    latest: LineKind | None = None  # the transcript's latest tool call, prompt, nudge, interrupt
    background_tasks: int = 0
    enabled: bool = True
    interrupted: bool = False  # the host reports a user interrupt through this Stop
    pause_on_interrupt: bool = True


class StopVerdict(NamedTuple):
    """Block or not, and what the store records for the session."""

    block: bool
    state: str  # recorded: "working" when blocked (the agent goes on), else the policy's word
    detail: str
    paused: str = ""  # the pause the policy saw ("" for none)
    new_pause: str | None = None  # a pause to store ("interrupt")


def decide_stop(facts: StopFacts, settings: PolicySettings) -> StopVerdict:
    """Whether the agent may stop. Never blocks after an interrupt, while background work
    runs or while supervision is off; otherwise the policy decides (pauses, caps), and a
    session already blocked in this episode is blocked again only when it acted since: a tool
    ran, its own list changed (`work_mark` moved) or its open set changed. A transcript whose
    latest record is todo-ls's nudge shows an answer in words only, whatever the store says
    (a store recovered since the block knows nothing of it)."""
    if facts.interrupted:
        pause = "interrupt" if facts.pause_on_interrupt else None
        return StopVerdict(False, "idle", "interrupted", pause or "", pause)
    if not facts.enabled:
        return StopVerdict(False, "idle", "supervision is off")
    if facts.background_tasks:
        n = facts.background_tasks
        return StopVerdict(False, "working", f"{n} background task{'s' if n != 1 else ''}")
    history = facts.history
    if facts.latest == "nudge":
        worked = False
    else:
        worked = (
            history.episode_count == 0
            or facts.last_block_mark is None
            or facts.last_block_mark != facts.work_mark
        )
    decision = evaluate_stop(facts.items, settings, facts.pause_reason, history, worked)
    if decision.send and (worked or history.last_at is not None):
        return StopVerdict(True, "working", "blocked: open items left")
    if decision.send or (not worked and decision.reason.startswith(_NO_PROGRESS)):
        return StopVerdict(False, "idle", ANSWERED)
    return StopVerdict(False, decision.state, decision.reason, decision.paused_reason or "")


def work_mark(tool_end: int | None, tool_runs: int, own_list: object) -> str:
    """What moves only when the agent acts: where its latest tool call ends in its transcript,
    how many post-tool events the store recorded, and its own todo list (new model text moves
    none of them)."""
    listed = hashlib.sha256(repr(own_list).encode()).hexdigest()[:12]
    return f"t{'-' if tool_end is None else tool_end}.e{tool_runs}.l{listed}"


def opportunity(
    turn: str | None, mark: str, open_hash: str, hook: HookInput, again: str | None = None
) -> str:
    """One Stop of one turn: every hook process of that Stop (parallel registrations,
    retries) reads the same input, so it computes the same key and only one of them blocks.
    The next Stop of the same turn differs in `stop_hook_active` or in the agent's latest
    message (cumulative in Gemini CLI), so it is a new opportunity even when nothing was done.
    A host whose input says neither passes `again`, todo-ls's own latest block."""
    said = hashlib.sha256(hook.last_message.encode()).hexdigest()[:12]
    if again is None:
        again = str(int(hook.stop_hook_active))
    return f"{turn or '-'}\x1f{mark}\x1f{open_hash}\x1f{again}\x1f{said}"


def block_reason(items: OpenSet, number: int) -> str:
    """The nudge text for a blocked Stop, starting with where it comes from."""
    return f"{SOURCE}: " + Nudge("stop", number, items).text()
