"""Edits that rewrite only a marker character (or insert a `[ ] ` box), nothing else."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from todo_ls.checklist.inline_text import has_markup, plain_text
from todo_ls.checklist.lines import LINE_END
from todo_ls.checklist.model import Checklist, PlainListItem, StateRegistry, TaskItem


@dataclass(frozen=True)
class MarkerEdit:
    """Replace `old` at (`line`, `col`) by `new`; 0-based line, column in code points."""

    line: int
    col: int
    old: str
    new: str


def set_state_edits(
    checklist: Checklist, indices: Iterable[int], state: str, registry: StateRegistry
) -> list[MarkerEdit]:
    """Edits that put the items at `indices` into `state`; items already there are skipped."""
    new = registry.marker_for(state)
    edits = []
    for index in indices:
        item = checklist.items[index]
        if item.state != state:
            edits.append(MarkerEdit(item.line, item.marker_col, item.marker, new))
    return edits


def locate_item(checklist: Checklist, line: int, text: str | None) -> TaskItem | str:
    """The item a toggle names (docs/status-and-commands.md, "Which item a toggle changes").

    The item at `line` when its text is `text` (any item there when `text` is None); else the
    one item of the file whose text is `text`, wherever it moved. `text` may be the item's
    markdown or its name as the outline shows it (the panels fed by document symbols have only
    that): the markdown is compared first. A string is the reason no item can be chosen:
    nothing at `line`, or no item / several items with that text."""
    at_line = next((i for i in checklist.items if i.line == line), None)
    if text is None:
        return at_line if at_line is not None else f"line {line + 1} is not a task item"
    wanted = text.strip()
    if at_line is not None and wanted in (at_line.text, _shown(at_line.text)):
        return at_line
    found = [i for i in checklist.items if i.text == wanted]
    if not found:
        found = [i for i in checklist.items if _shown(i.text) == wanted]
    if len(found) == 1:
        return found[0]
    where = f"line {line + 1} no longer holds {wanted!r}"
    if not found:
        return f"{where} and no item of the file has that text; nothing changed"
    lines = ", ".join(str(i.line + 1) for i in found[:5]) + (", ..." if len(found) > 5 else "")
    return f"{where} and {len(found)} items have that text (lines {lines}); nothing changed"


def _shown(text: str) -> str | None:
    """The outline's name of an item's text when it differs from the text (None: it does not),
    so an item without markup costs one regular expression."""
    return plain_text(text) if has_markup(text) else None


def toggle_state(item: TaskItem) -> str:
    """The state a toggle moves `item` to: open -> done, anything else -> open."""
    return "done" if item.state == "open" else "open"


def convert_to_task_edit(item: PlainListItem) -> MarkerEdit:
    """The insertion of `[ ] ` that turns a plain list item into an open task."""
    return MarkerEdit(item.line, item.content_col, "", "[ ] ")


def apply_edits(text: str, edits: Sequence[MarkerEdit]) -> str:
    """Apply `edits` to `text`, keeping every other character (line endings too) identical.

    Raises ValueError if an edit's `old` text is not where the edit says (a stale edit).
    """
    starts = [0] + [m.end() for m in LINE_END.finditer(text)]
    # Apply from the end so earlier offsets stay valid.
    ordered = sorted(edits, key=lambda e: (e.line, e.col), reverse=True)
    for edit in ordered:
        if edit.line >= len(starts):
            raise ValueError(f"edit on line {edit.line} is past the end of the text")
        offset = starts[edit.line] + edit.col
        line_end = LINE_END.search(text, starts[edit.line])
        limit = line_end.start() if line_end else len(text)
        if offset + len(edit.old) > limit or text[offset : offset + len(edit.old)] != edit.old:
            raise ValueError(f"line {edit.line} col {edit.col} does not hold {edit.old!r}")
        text = text[:offset] + edit.new + text[offset + len(edit.old) :]
    return text
