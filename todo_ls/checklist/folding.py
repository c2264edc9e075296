"""What an editor can fold in a checklist: each heading's section, each item with child items,
and each run of two or more consecutive finished items (docs/status-and-commands.md,
"Outline, search and folding").

A *finished* item is closed (done or canceled) and so is every item below it: folding a closed
parent whose child is still open would hide open work. A *run* is a sequence of sibling items
(same parent item, same heading) with nothing but blank lines between them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from todo_ls.checklist.assemble import is_blank
from todo_ls.checklist.model import CLOSED_STATES, Checklist, Progress
from todo_ls.checklist.symbols import Outline, section_end


@dataclass(frozen=True)
class Fold:
    """Lines `start..end` (0-based, inclusive); `collapsed` is the text shown for a closed run."""

    start: int
    end: int
    collapsed: str | None = None


def _finished(checklist: Checklist, indices: range) -> dict[int, bool]:
    """Per item of `indices` (all owned by one heading): closed, and so is every item below."""
    items = checklist.items
    finished = {i: items[i].state in CLOSED_STATES for i in indices}
    # Children follow their parent in document order: walk backwards to reach them first.
    for i in reversed(indices):
        parent = items[i].parent
        if not finished[i] and parent is not None and parent in finished:
            finished[parent] = False
    return finished


def run_label(progress: Progress) -> str:
    """`✓ 3 done`, `✓ 2 done · 1 canceled`, `✓ 2 canceled`: what a folded run hides."""
    parts = [f"{progress.done} done"] if progress.done else []
    if progress.canceled:
        parts.append(f"{progress.canceled} canceled")
    return "✓ " + " · ".join(parts)


def closed_runs(
    checklist: Checklist, lines: Sequence[str], indices: range | None = None
) -> list[Fold]:
    """Each run of two or more consecutive finished sibling items (of `indices`, the items
    one heading owns; default: every item), with `✓ 3 done` (plus `· 1 canceled`) counting
    every item it hides."""
    items = checklist.items
    if indices is None:
        indices = range(len(items))
    finished = _finished(checklist, indices)
    runs: list[Fold] = []
    # The run being built per sibling group: (parent, heading) -> [first, last] item indices.
    current: dict[tuple[int | None, int | None], list[int]] = {}

    def close(key: tuple[int | None, int | None]) -> None:
        run = current.pop(key, None)
        if run is None or run[0] == run[1]:
            return
        first, last = items[run[0]], items[run[1]]
        n = last.index + 1
        while n < len(items) and items[n].line <= last.end_line:  # the last one's children
            n += 1
        inside = (items[i] for i in range(first.index, n))
        runs.append(Fold(first.line, last.end_line, run_label(Progress.of(inside))))

    for index in indices:
        item = items[index]
        key = (item.parent, item.heading)
        run = current.get(key)
        if run is not None:
            previous = items[run[1]]
            between = range(previous.end_line + 1, item.line)
            adjacent = all(is_blank(lines[n]) for n in between if n < len(lines))
            if not (finished[index] and adjacent):
                close(key)
                run = None
        if finished[index]:
            if run is None:
                current[key] = [index, index]
            else:
                run[1] = index
    for key in list(current):
        close(key)
    runs.sort(key=lambda f: f.start)
    return runs


def heading_folds(checklist: Checklist, lines: Sequence[str]) -> list[Fold]:
    """Each heading's section, to its last non-blank line."""
    found: list[Fold] = []
    for heading in checklist.headings:
        end = section_end(lines, heading)
        if end > heading.line:
            found.append(Fold(heading.line, end))
    return found


def item_folds(checklist: Checklist, lines: Sequence[str], indices: range) -> list[Fold]:
    """The items of `indices` (those one heading owns) that have child items, and their
    closed runs. They depend on those items' lines only, so a server can keep them for the
    sections an edit did not touch."""
    items = checklist.items
    found: list[Fold] = []
    for index in indices:
        item = items[index]
        has_children = index + 1 < len(items) and items[index + 1].parent == index
        if has_children and item.end_line > item.line:
            found.append(Fold(item.line, item.end_line))
    return found + closed_runs(checklist, lines, indices)


def one_per_line(found: list[Fold]) -> list[Fold]:
    """The folds by first line; where two start on the same line the larger one is kept
    (VS Code keeps only one range per first line)."""
    by_start: dict[int, Fold] = {}
    for fold in found:
        kept = by_start.get(fold.start)
        if kept is None or fold.end > kept.end or (fold.end == kept.end and fold.collapsed):
            by_start[fold.start] = fold
    return [by_start[start] for start in sorted(by_start)]


def folding_ranges(checklist: Checklist, lines: Sequence[str]) -> list[Fold]:
    """Sections, items with children and closed runs (see the module docstring)."""
    outline = Outline(checklist)
    found = heading_folds(checklist, lines)
    for heading in [None, *range(len(checklist.headings))]:
        found += item_folds(checklist, lines, outline.owned_items(heading))
    return one_per_line(found)
