"""Re-parse only the section an edit touched (keystrokes in a large open document).

A line that starts with `#` and was parsed as a heading is a *boundary*: at column 0 it
continues no list item or block quote (a heading is never a lazy continuation line) and is in
no code, HTML block or front matter, so the block state there is the state of a fresh
document. The text between two boundaries therefore parses the same alone as inside the
whole document.

`reparse` handles the common edit, one that keeps the number of lines and stays between two
boundaries: it parses that section plus the next boundary line, and checks that the boundary
is still a heading there (an edit that opens a fence or an HTML block would swallow it) and
that the section still holds as many items and headings of the same levels. Then every other
item, heading and plain list item is kept as it is (same index, same line), and only the
section's are rebuilt. Anything else returns None, and the caller parses the whole text.

Front matter is the exception to "a section parses the same alone": it exists when line 0
opens it and a later line closes it, so an edit far below line 0 can create it (by writing the
closer) or destroy it, swallowing or releasing every boundary above. While line 0 could open
front matter, an edit of line 0 or of a line that could close it (before or after the edit)
is therefore parsed whole; any other edit keeps the front matter where it was, and it lies in
the first section (no heading is inside it), which is parsed from line 0 as in the document.
"""

from __future__ import annotations

from bisect import bisect_left

from todo_ls.checklist.model import Checklist, StateRegistry
from todo_ls.checklist.parse import parse


def changed_lines(old: list[str], new: list[str]) -> tuple[int, int] | None:
    """The first and last line that differ between two texts of the same line count
    (None when they are equal or their line counts differ)."""
    if len(old) != len(new):
        return None
    first = next((i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b), None)
    if first is None:
        return None
    last = next(i for i in range(len(old) - 1, first - 1, -1) if old[i] != new[i])
    return first, last


def _may_close_front_matter(line: str) -> bool:
    # Wider than the scanner's closer (a run of at least the opener's dashes, or `...`, and
    # blanks): only the lines an edit changed are tested.
    return line.lstrip(" \t").startswith("---") or line.startswith("...")


def _may_change_front_matter(old: list[str], new: list[str], first: int, last: int) -> bool:
    """Whether the edit of lines `first..last` may open, close, move or remove front matter."""
    if not (old[0].startswith("---") or new[0].startswith("---")):
        return False  # line 0 opens no front matter before or after the edit
    if first == 0:
        return True
    return any(
        _may_close_front_matter(old[i]) or _may_close_front_matter(new[i])
        for i in range(first, last + 1)
    )


def reparse(
    old: Checklist,
    old_lines: list[str],
    new_lines: list[str],
    registry: StateRegistry | None = None,
) -> Checklist | None:
    """The checklist of `new_lines` derived from `old` (the checklist of `old_lines`) by
    parsing only the edited section; None when the edit is not one this can handle."""
    changed = changed_lines(old_lines, new_lines)
    if changed is None:
        return old if old_lines == new_lines else None
    first, last = changed
    if _may_change_front_matter(old_lines, new_lines, first, last):
        return None
    boundaries = [h for h in old.headings if old_lines[h.line].startswith("#")]
    if any(first <= h.line <= last for h in boundaries):
        return None  # a boundary itself was edited
    start = max((h.line for h in boundaries if h.line < first), default=0)
    after = next((h for h in boundaries if h.line > last), None)
    if after is not None:
        # The section plus the next boundary line, which must still parse as that heading.
        section = parse("\n".join(new_lines[start : after.line + 1]) + "\n", registry)
        tail = section.headings[-1] if section.headings else None
        if tail is None or tail.line != after.line - start or tail.level != after.level:
            return None  # the edit opened a block that swallows the next section
        end = after.line  # exclusive, in document lines
        headings = section.headings[:-1]
    else:
        section = parse("\n".join(new_lines[start:]), registry)
        end = len(new_lines)
        headings = section.headings
        # The last heading's section runs to the document's end, and so may others before
        # this section: their kept `end_line` holds only while that end stays put.
        if headings and old.headings and headings[-1].end_line + start != old.headings[-1].end_line:
            return None
    items = [i for i in section.items if i.line + start < end]
    first_item = bisect_left(old.items, start, key=lambda i: i.line)
    old_items = old.items[first_item : bisect_left(old.items, end, key=lambda i: i.line)]
    first_heading = bisect_left(old.headings, start, key=lambda h: h.line)
    old_headings = old.headings[
        first_heading : bisect_left(old.headings, end, key=lambda h: h.line)
    ]
    if len(items) != len(old_items) or [(h.line + start, h.level) for h in headings] != [
        (h.line, h.level) for h in old_headings
    ]:
        return None  # items or sections appeared or vanished: parse everything
    new_items = tuple(
        item._replace(
            index=item.index + first_item,
            line=item.line + start,
            end_line=item.end_line + start,
            parent=None if item.parent is None else item.parent + first_item,
            heading=None if item.heading is None else item.heading + first_heading,
        )
        for item in items
    )
    new_headings = tuple(
        fresh._replace(index=kept.index, line=kept.line, end_line=kept.end_line)
        for fresh, kept in zip(headings, old_headings, strict=True)
    )
    plain = tuple(
        p._replace(line=p.line + start) for p in section.plain_items if p.line + start < end
    )
    return Checklist(
        items=old.items[:first_item] + new_items + old.items[first_item + len(old_items) :],
        headings=old.headings[:first_heading]
        + new_headings
        + old.headings[first_heading + len(old_headings) :],
        plain_items=tuple(p for p in old.plain_items if p.line < start)
        + plain
        + tuple(p for p in old.plain_items if p.line >= end),
    )
