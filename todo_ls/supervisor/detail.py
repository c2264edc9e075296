"""The status detail of a supervised session (docs/supervisor.md, "Status"): what it is doing
or waiting for, and the clock parts (the quiet clock, the settle countdown) written from `now`,
so a stored decision reads true until the next one. Pure.
"""

from __future__ import annotations

from todo_ls.supervisor.activity import TreeView, clip
from todo_ls.supervisor.policy import SETTLING, Decision
from todo_ls.supervisor.session_record import SessionDetail


def describe(view: TreeView, decision: Decision, now: float) -> SessionDetail:
    """The status detail, e.g. `1 tool · quiet 4s` or `nudge in 3s`: the quiet clock and the
    settle countdown are its `clock` parts, the rest holds still."""
    if decision.state == "waiting":
        return SessionDetail.of("; ".join(view.waiting) or decision.reason)
    if decision.state == "done":
        return SessionDetail.of("all done")
    parts: list[str] = []
    counts = view.counts
    for key, word in (("tools", "tool"), ("shells", "shell"), ("children", "subagent")):
        if counts.get(key):
            parts.append(f"{counts[key]} {word}{'s' if counts[key] != 1 else ''}")
    if view.session.busy == "retry":
        parts.append(f"retry #{view.session.retry_attempt}")
    if decision.paused_reason == "error" and view.session.failure:
        parts.append(f"paused: error ({clip(view.session.failure)})")
    elif decision.paused_reason:
        parts.append(f"paused: {decision.paused_reason}")
    # From `now`, not the decision's time: a stored decision is read until the next one.
    clock = [f"quiet {format_duration(max(0.0, now - view.last_activity))}"]
    if decision.reason == SETTLING and decision.wake_at is not None:
        clock.append(f"nudge in {format_duration(decision.wake_at - now)}")
    return SessionDetail(tuple(parts), tuple(clock))


def format_duration(seconds: float) -> str:
    """`4s`, `3m`, `2h5m`: short enough for a status bar."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    hours, rest = divmod(seconds, 3600)
    return f"{hours}h{rest // 60}m" if rest >= 60 else f"{hours}h"
