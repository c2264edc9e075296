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
from todo_ls.checklist.symbols import section_end


@dataclass(frozen=True)
class Fold:
    """Lines `start..end` (0-based, inclusive); `collapsed` is the text shown for a closed run."""

    start: int
    end: int
    collapsed: str | None = None


def _finished(checklist: Checklist) -> list[bool]:
    """Per item: closed, and so is every item below it."""
    items = checklist.items
    finished = [i.state in CLOSED_STATES for i in items]
    # Children follow their parent in document order: walk backwards to reach them first.
    for item in reversed(items):
        if not finished[item.index] and item.parent is not None:
            finished[item.parent] = False
    return finished


def run_label(progress: Progress) -> str:
    """`✓ 3 done`, `✓ 2 done · 1 canceled`, `✓ 2 canceled`: what a folded run hides."""
    parts = [f"{progress.done} done"] if progress.done else []
    if progress.canceled:
        parts.append(f"{progress.canceled} canceled")
    return "✓ " + " · ".join(parts)


def closed_runs(checklist: Checklist, lines: Sequence[str]) -> list[Fold]:
    """Each run of two or more consecutive finished sibling items, with `✓ 3 done` (plus
    `· 1 canceled`) counting every item it hides."""
    items = checklist.items
    finished = _finished(checklist)
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

    for item in items:
        key = (item.parent, item.heading)
        run = current.get(key)
        if run is not None:
            previous = items[run[1]]
            between = range(previous.end_line + 1, item.line)
            adjacent = all(is_blank(lines[n]) for n in between if n < len(lines))
            if not (finished[item.index] and adjacent):
                close(key)
                run = None
        if finished[item.index]:
            if run is None:
                current[key] = [item.index, item.index]
            else:
                run[1] = item.index
    for key in list(current):
        close(key)
    runs.sort(key=lambda f: f.start)
    return runs


def folding_ranges(checklist: Checklist, lines: Sequence[str]) -> list[Fold]:
    """Sections, items with children and closed runs, by first line. Where two start on the
    same line the larger one is kept (VS Code keeps only one range per first line)."""
    found: list[Fold] = []
    for heading in checklist.headings:
        end = section_end(lines, heading)
        if end > heading.line:
            found.append(Fold(heading.line, end))
    items = checklist.items
    for item in items:
        has_children = item.index + 1 < len(items) and items[item.index + 1].parent == item.index
        if has_children and item.end_line > item.line:
            found.append(Fold(item.line, item.end_line))
    found += closed_runs(checklist, lines)
    by_start: dict[int, Fold] = {}
    for fold in found:
        kept = by_start.get(fold.start)
        if kept is None or fold.end > kept.end or (fold.end == kept.end and fold.collapsed):
            by_start[fold.start] = fold
    return [by_start[start] for start in sorted(by_start)]
