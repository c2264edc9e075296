"""What both parsers share: line splitting, trimming, task boxes, columns, sections.

The reference parser finds *where* list items, their first paragraphs and headings are and
hands them to `assemble`; the fast scanner builds its items as it goes, with the helpers here
for everything but its hot path, so the two can only disagree about block structure, which
is what the differential tests compare.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from todo_ls.checklist.model import Checklist, Heading, PlainListItem, StateRegistry, TaskItem

# The tasklists plugin requires a GFM whitespace character after `]`; \r and \n cannot occur
# inside a line here, a line end is handled by `RawListItem.para_multiline`.
GFM_SPACE = frozenset(" \t\v\f")
# A line that ends no item: only whitespace and block quote markers.
_BLANK_RE = re.compile(r"[\s>]*")
# What markdown-it-py trims off paragraphs and headings (JavaScript's `trim` minus U+FEFF):
# Unicode space separators and \t\n\v\f\r, not everything `str.isspace` accepts.
TRIM = (
    "\t\n\v\f\r \xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000"
)


class RawListItem(NamedTuple):
    """A list item as a block parser sees it (all lines 0-based)."""

    bullet_line: int  # the line of its list marker
    end: int  # exclusive end line of the item (markdown-it-py's `map[1]`)
    parent: int | None  # raw index of the enclosing list item
    para_line: int | None  # first line of its first child when that child is a paragraph
    para_col: int  # column where that paragraph's text starts (leading whitespace stripped)
    para_multiline: bool  # the paragraph's content (trimmed) has more than one line


class RawHeading(NamedTuple):
    """An ATX or setext heading: `line` is its (first) text line, `text` its inline content.

    A tuple, the cheapest record to make: a parse finds hundreds of headings."""

    line: int
    level: int
    text: str


class OpenTask:
    """A task item being built: a plain mutable object with TaskItem's fields.

    The scanner sets its class to `TaskItem` once its `end_line` is known. Filling a plain
    object attribute by attribute and then switching its class takes less than half the time
    of any way of making a frozen dataclass instance directly (measured: 0.28 s against 0.63 s
    per million items for the cheapest one, an instance given a finished `__dict__`; TaskItem
    was such a dataclass then), and most of a parse is making items. Both classes have the
    same slots, which the class switch requires; slots also make it cheaper still (0.21 s:
    without them the switch builds a `__dict__` per item) and the items smaller. The result
    is an ordinary TaskItem (same fields, equality, hashing, `_replace`).

    It lives here, not in the scanner, because the scanner may be compiled (mypyc), which
    makes the classes defined in it native classes whose class cannot be switched; this
    module always stays Python.
    """

    __slots__ = TaskItem.__slots__
    index: int
    line: int
    bullet_col: int
    marker_col: int
    marker: str
    state: str
    text: str
    depth: int
    parent: int | None
    heading: int | None
    end_line: int


def headings_of(raw_headings: Sequence[RawHeading], line_count: int) -> tuple[Heading, ...]:
    """The headings with their sections: each ends before the next heading of the same or a
    higher level, or at the last line."""
    ends = [line_count - 1] * len(raw_headings)
    open_headings: list[int] = []  # indices, levels strictly increasing
    for i, (line, level, _) in enumerate(raw_headings):
        while open_headings and raw_headings[open_headings[-1]][1] >= level:
            ends[open_headings.pop()] = line - 1
        open_headings.append(i)
    return tuple(
        Heading(i, line, level, text, end)
        for i, ((line, level, text), end) in enumerate(zip(raw_headings, ends, strict=True))
    )


def last_line(lines: Sequence[str], end: int, first: int) -> int:
    """An item's last line: before its exclusive `end`, trailing blank lines not counted, but
    never before `first` (the line of its task box)."""
    last = end - 1
    while last > first and is_blank(lines[last]):
        last -= 1
    return last


def is_blank(line: str) -> bool:
    """Whether `line` holds only whitespace and block quote markers (it ends no item).

    Most lines asked about are an item's last line, not blank: the string methods reject them
    at a few times less than the cost of a regex match, which a parse pays for thousands of
    items; the regex is left for lines with a `>` in them.
    """
    return not line or line.isspace() or (">" in line and _BLANK_RE.fullmatch(line) is not None)


# The container markers that open a line: block quotes and list markers (a list marker is
# followed by whitespace or the line end); group 1 is the last list marker.
_MARKERS_RE = re.compile(r"(?:[ \t]*(?:>|([*+-]|[0-9]{1,9}[.)])(?=[ \t]|$)))*")


def bullet_col(lines: Sequence[str], bullet_line: int, para_line: int, col: int) -> int:
    """The column of the list marker (`-`, `1.`, ...) of an item whose paragraph starts at
    (para_line, col): the last list marker that opens its line. The paragraph starts on a later
    line when the item's marker ends its line or a link reference definition follows it."""
    src = lines[bullet_line] if bullet_line != para_line else lines[para_line][:col]
    match = _MARKERS_RE.match(src)
    assert match is not None and match.start(1) >= 0  # a list item's line opens with its marker
    return match.start(1)


def assemble(
    lines: Sequence[str],
    raw_items: Sequence[RawListItem],
    raw_headings: Sequence[RawHeading],
    registry: StateRegistry,
) -> Checklist:
    """Build the checklist from the list items and headings a block parser found (in
    document order, parents before their children)."""
    heading_lines = [h.line for h in raw_headings]
    heading_lines.append(len(lines))  # a sentinel past the last line: the search needs no bound
    items: list[TaskItem] = []
    plain: list[PlainListItem] = []
    task_of: list[int] = []  # raw index -> index into items, -1 for no task
    h = -1  # the owning heading advances monotonically: raw items come in document order
    for raw in raw_items:
        task = -1
        para_line = raw.para_line
        if para_line is not None:
            line = lines[para_line]
            col = raw.para_col
            state = None
            if line[col : col + 1] == "[" and line[col + 2 : col + 3] == "]":
                rest = line[col + 3 :]
                text = rest.strip(TRIM)
                # `[ ]` then the line end: the paragraph goes on with "\n" only if it continues;
                # markdown-it-py strips the paragraph, so `[ ]   ` alone on its line is no task.
                if (raw.para_multiline or text) and (rest == "" or rest[0] in GFM_SPACE):
                    state = registry.state_of(line[col + 1])
            if state is None:
                plain.append(PlainListItem(para_line, col))
            else:
                parent = raw.parent
                while parent is not None and task_of[parent] < 0:
                    parent = raw_items[parent].parent
                parent_task = None if parent is None else task_of[parent]
                while heading_lines[h + 1] < para_line:
                    h += 1
                task = len(items)
                item = TaskItem(
                    index=task,
                    line=para_line,
                    bullet_col=bullet_col(lines, raw.bullet_line, para_line, col),
                    marker_col=col + 1,
                    marker=line[col + 1],
                    state=state,
                    text=text,
                    depth=0 if parent_task is None else items[parent_task].depth + 1,
                    parent=parent_task,
                    heading=h if h >= 0 else None,
                    end_line=last_line(lines, min(raw.end, len(lines)), para_line),
                )
                items.append(item)
        task_of.append(task)
    return Checklist(tuple(items), headings_of(raw_headings, len(lines)), tuple(plain))
