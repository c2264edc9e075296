"""The nudge text (docs/supervisor.md, "The nudge text"): self-contained, honest, short."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from todo_ls.supervisor.policy import NudgeKind, OpenItem, OpenSet

MAX_LISTED = 12  # more items make the nudge long without helping the agent pick the next one


class Nudge(NamedTuple):
    """One nudge: which one, why, and the open items it names."""

    kind: NudgeKind | str
    number: int
    items: OpenSet
    quiet_for: float = 0.0
    quiet_sources: Sequence[str] = ()
    stall_minutes: float = 5.0

    def headline(self) -> str:
        """The first line: which nudge and why."""
        if self.kind == "stall":
            sources = " / ".join(self.quiet_sources) or "the current turn"
            return (
                f"Stall nudge #{self.number} — no activity for ~{self.quiet_for / 60:.1f} min "
                f"from: {sources} (stall threshold {self.stall_minutes:g} min)."
            )
        left = f"{len(self.items.items)} of {self.items.total} todos left"
        if self.kind == "manual":
            return f"Nudge #{self.number} (sent by the user) — {left}."
        if self.kind == "stop":  # a Stop hook's answer: the agent tried to end its turn
            return f"Stop nudge #{self.number} — the turn ended with {left}."
        return f"Idle nudge #{self.number} — the session went idle with {left}."

    def text(self) -> str:
        """The whole nudge: headline, the open items with priority and `path:line`, how to
        finish."""
        items = self.items
        lines = [self.headline(), ""]
        if self.kind == "stall":
            lines.append(
                "If that work is still running fine, let it finish; if it hangs, stop it and "
                "go on. Open items:"
            )
        else:
            lines.append("Continue with the next open item:")
        actionable = items.actionable
        lines += [_item_line(i) for i in actionable[:MAX_LISTED]]
        if len(actionable) > MAX_LISTED:
            lines.append(f"- … and {len(actionable) - MAX_LISTED} more")
        blocked = len(items.items) - len(actionable)
        if blocked:
            lines.append(f"({blocked} more marked `[?]` wait for the user: leave them.)")
        lines.append("")
        finish = ["When an item is done, update the todo list"] if _has_todos(items) else []
        if items.has_file_items:
            finish.append(
                ("or " if finish else "When an item is done, ")
                + "tick its box in the file (`- [x]`)"
            )
        lines.append(" ".join(finish) + ".")
        ask = "If an item cannot be done without the user, say so"
        if items.has_file_items:
            ask += " and mark it `- [?]`"
        lines.append(ask + " instead of guessing.")
        return "\n".join(lines)


def _item_line(item: OpenItem) -> str:
    words = [f"[{item.priority}]"] if item.priority else []
    words.append(item.text)
    if item.state == "inProgress":
        words.append("(in progress)")
    if item.ref:
        words.append(f"— {item.ref}")
    return "- " + " ".join(words)


def _has_todos(items: OpenSet) -> bool:
    return any(i.ref is None for i in items.items)


MAX_ANNOUNCED = 3  # sessions named in one announcement; a toast is a line, not a report


def announcement(nudged: Sequence[tuple[str, str]]) -> str:
    """What the human is shown for nudges sent together, given each one's session title and
    headline: `title: headline` for one; for several, how many and the first few titles
    (docs/supervisor.md, "Telling the human")."""
    if len(nudged) == 1:
        title, headline = nudged[0]
        return f"{title}: {headline}"
    titles = ", ".join(title for title, _ in nudged[:MAX_ANNOUNCED])
    more = len(nudged) - MAX_ANNOUNCED
    return f"{len(nudged)} sessions nudged: {titles}" + (f" and {more} more." if more > 0 else ".")
