"""Turn block structure into a `Checklist`: shared by the fast scanner and the reference parser.

Both parsers only find *where* list items, their first paragraphs and headings are; everything
derived from that (task markers, columns, parents, sections) is computed here once, so the two
can only disagree about block structure, which is what the differential tests compare.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from todo_ls.checklist.model import Checklist, Heading, PlainListItem, StateRegistry, TaskItem

# markdown-it-py splits lines on \n, \r\n and \r only (str.splitlines would also split on \v, \f,
# \x1c-\x1e, \x85, \u2028 and \u2029, which are ordinary characters in markdown).
_LINE_END_RE = re.compile(r"\r\n|\r|\n")
# The tasklists plugin requires a GFM whitespace character after `]`; \r and \n cannot occur
# inside a line here, a line end is handled by `RawListItem.para_multiline`.
_GFM_SPACE = frozenset(" \t\v\f")
_BLANK_RE = re.compile(r"[\s>]*")
# What markdown-it-py trims off paragraphs and headings (JavaScript's `trim` minus U+FEFF):
# Unicode space separators and \t\n\v\f\r, not everything `str.isspace` accepts.
TRIM = (
    "\t\n\v\f\r \xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000"
)


def split_lines(text: str) -> list[str]:
    """Split like markdown-it-py: on \\n, \\r\\n and \\r; a final line end adds no empty line."""
    # str.split is several times faster than the regex; most files have no \r at all.
    lines = _LINE_END_RE.split(text) if "\r" in text else text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


@dataclass(slots=True)
class RawListItem:
    """A list item as a block parser sees it (all lines 0-based); filled in while scanning."""

    bullet_line: int  # the line of its list marker
    end: int  # exclusive end line of the item (markdown-it-py's `map[1]`)
    parent: int | None  # raw index of the enclosing list item
    para_line: int | None  # first line of its first child when that child is a paragraph
    para_col: int  # column where that paragraph's text starts (leading whitespace stripped)
    para_multiline: bool  # the paragraph has more than one line


# A list item as the fast scanner records it, cheaper to make and fill in than a RawListItem:
# [bullet_line, end, parent, para_line, para_col, para_multiline] with -1 for None and 0/1.
RawRow = list[int]
ROW_END, ROW_MULTILINE = 1, 5


@dataclass(frozen=True, slots=True)
class RawHeading:
    """An ATX or setext heading: `line` is its (first) text line, `text` its inline content."""

    line: int
    level: int
    text: str


# TaskItem is a frozen dataclass: its generated __init__ sets each field through
# object.__setattr__, three times the cost of handing a bare instance its finished __dict__.
# A parse builds thousands of items, so `build` does the latter; eq, hash and repr read the
# fields as usual (the differential and unit tests compare such items with constructed ones).
_new_object = object.__new__
_set_attribute = object.__setattr__


def _heading_ends(raw_headings: Sequence[RawHeading], last_line: int) -> list[int]:
    """Each heading's last line: before the next heading of the same or a higher level."""
    ends = [last_line] * len(raw_headings)
    open_headings: list[int] = []  # indices, levels strictly increasing
    for i, rh in enumerate(raw_headings):
        while open_headings and raw_headings[open_headings[-1]].level >= rh.level:
            ends[open_headings.pop()] = rh.line - 1
        open_headings.append(i)
    return ends


def build(
    lines: Sequence[str],
    rows: Sequence[RawRow],
    raw_headings: Sequence[RawHeading],
    registry: StateRegistry,
) -> Checklist:
    """Build the checklist from raw list items as rows (see `RawRow`) and headings."""
    last_line = len(lines) - 1
    ends = _heading_ends(raw_headings, last_line)
    headings = [
        Heading(i, rh.line, rh.level, rh.text, ends[i]) for i, rh in enumerate(raw_headings)
    ]
    # Heading lines with a sentinel past the last line, so the owner search needs no bound.
    heading_lines = [h.line for h in headings]
    heading_lines.append(len(lines))
    state_of = {m: state for state, ms in registry.markers.items() for m in ms}.get
    line_count = len(lines)
    items: list[TaskItem] = []
    plain: list[PlainListItem] = []
    task_of: list[int] = []  # raw index -> index into items, -1 for no task
    h = -1  # the owning heading advances monotonically: raw items come in document order
    for bullet_line, end, parent, para_line, col, multiline in rows:
        task = -1
        if para_line >= 0:
            line = lines[para_line]
            state = None
            if line[col : col + 1] == "[" and line[col + 2 : col + 3] == "]":
                rest = line[col + 3 :]
                text = rest.strip(TRIM)
                # `[ ]` then the line end: the paragraph goes on with "\n" only if it continues;
                # markdown-it-py strips the paragraph, so `[ ]   ` alone on its line is no task.
                if (multiline or text) and (rest == "" or rest[0] in _GFM_SPACE):
                    marker = line[col + 1]
                    state = state_of(marker)
            if state is None:
                plain.append(PlainListItem(para_line, col))
            else:
                while parent >= 0 and task_of[parent] < 0:
                    parent = rows[parent][2]
                parent_task = task_of[parent] if parent >= 0 else -1
                while heading_lines[h + 1] < para_line:
                    h += 1
                last = (end if end < line_count else line_count) - 1
                while last > para_line and _BLANK_RE.fullmatch(lines[last]):
                    last -= 1
                # The list marker ends the text before the content (trailing whitespace
                # ignored): a bullet, or `.` / `)` after 1-9 digits.
                src = lines[bullet_line] if bullet_line != para_line else line[:col]
                bullet_col = len(src.rstrip(TRIM)) - 1
                if src[bullet_col] not in "-*+":
                    while bullet_col > 0 and src[bullet_col - 1].isdigit():
                        bullet_col -= 1
                task = len(items)
                item = _new_object(TaskItem)
                _set_attribute(
                    item,
                    "__dict__",
                    {
                        "index": task,
                        "line": para_line,
                        "bullet_col": bullet_col,
                        "marker_col": col + 1,
                        "marker": marker,
                        "state": state,
                        "text": text,
                        "depth": 0 if parent_task < 0 else items[parent_task].depth + 1,
                        "parent": None if parent_task < 0 else parent_task,
                        "heading": h if h >= 0 else None,
                        "end_line": last,
                    },
                )
                items.append(item)
        task_of.append(task)
    return Checklist(tuple(items), tuple(headings), tuple(plain))


def assemble(
    lines: Sequence[str],
    raw_items: Sequence[RawListItem],
    raw_headings: Sequence[RawHeading],
    registry: StateRegistry,
) -> Checklist:
    """Build the checklist from the list items and headings a block parser found."""
    rows = [
        [
            r.bullet_line,
            r.end,
            -1 if r.parent is None else r.parent,
            -1 if r.para_line is None else r.para_line,
            r.para_col,
            int(r.para_multiline),
        ]
        for r in raw_items
    ]
    return build(lines, rows, raw_headings, registry)
