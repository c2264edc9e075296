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


@dataclass(frozen=True, slots=True)
class RawHeading:
    """An ATX or setext heading: `line` is its (first) text line, `text` its inline content."""

    line: int
    level: int
    text: str


def _bullet_col(line: str) -> int:
    """Column of the list marker that ends `line` (trailing whitespace ignored)."""
    end = len(line.rstrip(TRIM))
    if line[end - 1] in "-*+":
        return end - 1
    start = end - 1  # `.` or `)` after 1-9 digits
    while start > 0 and line[start - 1].isdigit():
        start -= 1
    return start


def _end_line(lines: Sequence[str], first: int, end: int) -> int:
    """The last line before `end` that is not blank (blank quote lines included), >= first."""
    last = min(end, len(lines)) - 1
    while last > first and _BLANK_RE.fullmatch(lines[last]):
        last -= 1
    return last


def _task_marker(line: str, col: int, multiline: bool) -> str | None:
    """The marker character if the paragraph starting at `col` opens with a task box."""
    if line[col : col + 1] != "[" or line[col + 2 : col + 3] != "]":
        return None
    rest = line[col + 3 :]
    if rest == "":
        # `[ ]` then the line end: the paragraph content goes on with "\n" only if it continues.
        return line[col + 1] if multiline else None
    if rest[0] not in _GFM_SPACE:
        return None
    # markdown-it-py strips the paragraph, so `[ ]   ` alone on its only line is no task.
    return line[col + 1] if (multiline or rest.strip(TRIM)) else None


def assemble(
    lines: Sequence[str],
    raw_items: Sequence[RawListItem],
    raw_headings: Sequence[RawHeading],
    registry: StateRegistry,
) -> Checklist:
    """Build the checklist from the list items and headings a block parser found."""
    last_line = len(lines) - 1
    headings: list[Heading] = []
    for i, rh in enumerate(raw_headings):
        end = last_line
        for later in raw_headings[i + 1 :]:
            if later.level <= rh.level:
                end = later.line - 1
                break
        headings.append(Heading(i, rh.line, rh.level, rh.text, end))
    heading_lines = [h.line for h in headings]

    items: list[TaskItem] = []
    plain: list[PlainListItem] = []
    task_of_raw: list[int | None] = []  # raw index -> index into items
    h = -1  # the owning heading advances monotonically: raw items come in document order
    for raw in raw_items:
        task: int | None = None
        if raw.para_line is not None:
            line = lines[raw.para_line]
            marker = _task_marker(line, raw.para_col, raw.para_multiline)
            state = registry.state_of(marker) if marker is not None else None
            if state is None or marker is None:
                plain.append(PlainListItem(raw.para_line, raw.para_col))
            else:
                parent = raw.parent
                while parent is not None and task_of_raw[parent] is None:
                    parent = raw_items[parent].parent
                parent_task = task_of_raw[parent] if parent is not None else None
                while h + 1 < len(heading_lines) and heading_lines[h + 1] < raw.para_line:
                    h += 1
                bullet_src = lines[raw.bullet_line]
                if raw.bullet_line == raw.para_line:
                    bullet_src = bullet_src[: raw.para_col]
                task = len(items)
                items.append(
                    TaskItem(
                        index=task,
                        line=raw.para_line,
                        bullet_col=_bullet_col(bullet_src),
                        marker_col=raw.para_col + 1,
                        marker=marker,
                        state=state,
                        text=line[raw.para_col + 3 :].strip(TRIM),
                        depth=0 if parent_task is None else items[parent_task].depth + 1,
                        parent=parent_task,
                        heading=h if h >= 0 else None,
                        end_line=_end_line(lines, raw.para_line, raw.end),
                    )
                )
        task_of_raw.append(task)
    return Checklist(tuple(items), tuple(headings), tuple(plain))
