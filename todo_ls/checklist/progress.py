"""Progress roll-ups: per item (its descendants), per heading section, per document."""

from __future__ import annotations

from todo_ls.checklist.model import Checklist, FileItem, Progress, TaskItem


def descendants(checklist: Checklist, index: int) -> tuple[int, ...]:
    """Indices of every item nested (at any depth) under item `index`."""
    items = checklist.items
    inside = {index}
    found: list[int] = []
    # Nested items follow their ancestor directly in document order: stop at the first other.
    for item in items[index + 1 :]:
        if item.parent not in inside:
            break
        inside.add(item.index)
        found.append(item.index)
    return tuple(found)


def item_progress(checklist: Checklist, index: int) -> Progress:
    """Progress of all items below item `index` (not counting itself)."""
    return Progress.of(checklist.items[i] for i in descendants(checklist, index))


def section_items(checklist: Checklist, heading_index: int) -> tuple[TaskItem, ...]:
    """The items a heading owns: those up to the next heading of the same or higher level."""
    heading = checklist.headings[heading_index]
    return tuple(i for i in checklist.items if heading.line < i.line <= heading.end_line)


def heading_progress(checklist: Checklist, heading_index: int) -> Progress:
    """Progress of all items in the heading's section, subsections included."""
    return Progress.of(section_items(checklist, heading_index))


def document_progress(checklist: Checklist) -> Progress:
    """Progress of every item of the document."""
    return Progress.of(checklist.items)


def file_items(checklist: Checklist, rel_path: str) -> list[FileItem]:
    """The document's items as `path:line` references (1-based lines)."""
    return [FileItem(rel_path, i.line + 1, i.text, i.state) for i in checklist.items]
