"""The fast engine: a one-pass line scanner of CommonMark block structure.

It finds only what the checklist needs (list items with their first paragraph, headings) and
skips everything else (code, HTML blocks, front matter), following the container algorithm of
the CommonMark spec's appendix: each line first continues the open containers (block quotes,
list items), then may open new blocks, and what is left is paragraph text, possibly lazy.
Where markdown-it-py, the reference, has its own reading of the spec, this module follows
markdown-it-py; `tests/unit/test_checklist_differential.py` holds the two to the same output.
Two rare constructs it does not follow (see `_Unsupported`) make `scan` hand the document to
markdown-it-py itself. Task items are built as their paragraphs start, in the same pass.

Tabs are expanded to tab stops of 4 on lines that contain one: block structure only depends on
columns, and columns are mapped back to string offsets where the model needs them.
"""

from __future__ import annotations

import gc
import re
from bisect import bisect_right
from functools import cache
from typing import Any, Final

from todo_ls.checklist.assemble import (
    GFM_SPACE,
    TRIM,
    OpenTask,
    RawHeading,
    bullet_col,
    headings_of,
    is_blank,
    last_line,
)
from todo_ls.checklist.lines import split_lines
from todo_ls.checklist.model import Checklist, PlainListItem, StateRegistry, TaskItem

# Block-level regexes, applied at the first non-space character of a tab-expanded line.
# `Final` on module constants lets the compiled build (mypyc, docs/packaging.md) read them
# directly instead of looking them up by name at each use; plain Python ignores it.
_SPACES: Final = re.compile(r" *")
_LIST_MARKER: Final = re.compile(r"(?:[*+-]|(\d{1,9})[.)])(?= |$)")
_THEMATIC_BREAK: Final = re.compile(r"(?:(?:\* *){3,}|(?:- *){3,}|(?:_ *){3,})$")
_ATX: Final = re.compile(r"#{1,6}(?= |$)")
_SETEXT: Final = re.compile(r"(?:=+|-+) *$")
_FENCE_OPEN: Final = re.compile(r"(?:(`{3,})[^`]*|(~{3,}).*)$")
# HTML block starts and ends as markdown-it-py (markdown_it/rules_block/html_block.py) has them.
_BLOCK_NAMES = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|"
    "dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h1|h2|h3|h4|h5|"
    "h6|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|"
    "option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul"
)
_ATTRIBUTE = (
    r"(?:\s+[a-zA-Z_:][a-zA-Z0-9:._-]*"
    r"(?:\s*=\s*(?:[^\"'=<>`\x00-\x20]+|'[^']*'|\"[^\"]*\"))?)"
)
_OPEN_CLOSE_TAG = (
    r"(?:<[A-Za-z][A-Za-z0-9\-]*" + _ATTRIBUTE + r"*\s*/?>|</[A-Za-z][A-Za-z0-9\-]*\s*>)"
)
_HTML_STARTS: tuple[tuple[re.Pattern[str], re.Pattern[str] | None, bool], ...] = (
    (
        re.compile(r"<(?a:(script|pre|style|textarea))(?=(\s|>|$))", re.IGNORECASE),
        re.compile(r"</(?a:(script|pre|style|textarea))>", re.IGNORECASE),
        True,
    ),
    (re.compile(r"<!--"), re.compile(r"-->"), True),
    (re.compile(r"<\?"), re.compile(r"\?>"), True),
    (re.compile(r"<![A-Za-z]"), re.compile(r">"), True),
    (re.compile(r"<!\[CDATA\["), re.compile(r"\]\]>"), True),
    (re.compile("</?(?a:(" + _BLOCK_NAMES + r"))(?=(\s|/?>|$))", re.IGNORECASE), None, True),
    # Kind 7 cannot interrupt a paragraph; kinds 6 and 7 (end None) end before a blank line.
    (re.compile(_OPEN_CLOSE_TAG + r"\s*$"), None, False),
)

# A "simple" line: up to its first non-space character only spaces, then either ordinary text
# (a character that cannot start any block; \s excludes tabs and Unicode spaces) or a list
# marker, 1-4 spaces and such text. Most lines of a plan are one of the two. Groups: the
# indentation, the marker with its spaces (None for text), the number of an ordered marker,
# and when the text starts with a task box (`[c]` then a GFM space or the line end) the box's
# character; the match then ends after the box and its space.
_ORDINARY = r"(?=[^\s>#`~<=*+\-_0-9])"
_SIMPLE: Final = re.compile(
    r"( *)((?:[*+-]|([0-9]{1,9})[.)]) {1,4})?" + _ORDINARY + r"(?:\[(.)\](?:[ \t\v\f]|\Z))?"
)

_QUOTE: Final = 0
_ITEM: Final = 1
# What the open paragraph is to the list item it is the first child of: nothing (or no such
# item), its task, its plain item, or a task whose box ends the line (`- [ ]`), which is a task
# only if the paragraph goes on to a second line (markdown-it-py strips the paragraph first).
# `_DEF`: the open paragraph is no list item's first child but may be a link reference
# definition, which only matters (`_Unsupported`) if it goes on past its first line.
_NO_ITEM: Final = 0
_TASK: Final = 1
_PLAIN: Final = 2
_PENDING: Final = 3
_DEF: Final = 4
# What a line holds or starts: leaves that stay open, a one-line block, a new container.
_NONE: Final = 0
_PARA: Final = 1
_FENCE: Final = 2
_CODE: Final = 3
_HTML: Final = 4
_BREAK: Final = 5
_START_QUOTE: Final = 6
_START_ITEM: Final = 7


def _offset(line: str, col: int) -> int:
    """The string offset of column `col` in `line` (tabs to stops of 4)."""
    c = 0
    for k, ch in enumerate(line):
        if c >= col:
            return k
        c = c + 4 - c % 4 if ch == "\t" else c + 1
    return len(line)


class _Unsupported(Exception):
    """Raised by the scan where it does not follow markdown-it-py: `scan` then asks it.

    Two rare constructs: tabs inside a second block quote of a line (markdown-it-py counts
    their width from a column that forgets the outer quote, and then cuts the paragraph's text
    at another one) and link reference definitions where one changes what a list item's first
    paragraph is or where a paragraph ends (see `_may_define`).
    """


def _quote_content(line: str, ex: str, gt: int, quoted: int) -> int:
    """The column where the content of the `quoted`-th block quote of a line starts, whose `>`
    is at column `gt` of `ex` (after one optional space)."""
    if quoted > 1 and ex is not line and "\t" in line[_offset(line, gt) :]:
        raise _Unsupported
    pos = gt + 1
    if pos < len(ex) and ex[pos] == " ":
        pos += 1
    return pos


def _may_define(line: str, start: int) -> bool:
    """Whether the paragraph text at `line[start:]` may start a link reference definition
    (`[label]:`, the label possibly going on to the next line), which is no paragraph."""
    k = start + 1
    while k < len(line):
        ch = line[k]
        if ch == "[":
            return False
        if ch == "]":
            return line[k + 1 : k + 2] == ":"
        k += 2 if ch == "\\" else 1
    return True


def _front_matter_end(lines: list[str]) -> int:
    """Lines taken by YAML front matter (mdit-py-plugins' front_matter rule), 0 if none."""
    first = lines[0] if lines else ""
    dashes = len(first) - len(first.lstrip("-"))
    if dashes < 3:
        return 0
    for i in range(1, len(lines)):
        line = lines[i]
        if line.startswith("...") and line[3:].strip(" \t") == "":
            return i + 1
        stripped = line.lstrip(" \t")
        indent = len(line[: len(line) - len(stripped)].expandtabs(4))
        if indent < 4 and stripped.startswith("-"):
            run = len(stripped) - len(stripped.lstrip("-"))
            if run >= dashes and stripped[run:].strip(" \t") == "":
                return i + 1
    return 0


def _atx_text(line: str, start: int) -> str:
    """The content of an ATX heading whose text starts at offset `start` (markdown-it rules)."""
    text = line[start:].rstrip(" \t")
    bare = text.rstrip("#")
    if len(bare) < len(text) and bare and bare[-1] in " \t":
        text = bare
    return text.strip(TRIM)


def _html_start(rest: str, interrupting: bool) -> tuple[bool, re.Pattern[str] | None]:
    """(starts an HTML block, its end pattern or None for "ends before a blank line")."""
    for start, end, can_interrupt in _HTML_STARTS:
        if start.match(rest):
            return (can_interrupt or not interrupting), end
    return False, None


def _lazy_break(stack: list[list[Any]], matched: int, ex: str, ns: int, pos: int) -> bool:
    """Whether markdown-it-py ends a paragraph at a lazy line indented 4+ past `pos`.

    CommonMark makes such a line paragraph continuation text; markdown-it-py does so only
    when at most one of the containers that did not continue is a block quote. The outermost
    such quote marks the line lazy (indentation -1), and a quote nested in it then sees an
    outdented line that ends it if a block starts at its first non-space character, however far
    indented. With no quote among them, markdown-it-py checks its paragraph terminators against
    the indentation of the paragraph's own list item, so a block start there ends the paragraph.
    Either way the line then becomes indented code outside.
    """
    unmatched = stack[matched:]
    quotes = sum(cont[0] == _QUOTE for cont in unmatched)
    ch = ex[ns]
    if quotes:
        if quotes == 1:
            return False
        if ch in "*-+" or "0" <= ch <= "9":  # any list item ends a block quote
            if _LIST_MARKER.match(ex, ns):
                return True
            return ch in "*-" and _THEMATIC_BREAK.match(ex, ns) is not None
    elif ch in "*-+" or "0" <= ch <= "9":
        item_col = pos + sum(cont[1] for cont in unmatched)  # markdown-it's blkIndent
        list_col = item_col - stack[-1][1]  # its listIndent
        if _LIST_MARKER.match(ex, ns) and ns - list_col < 4:
            return True
        return ch in "*-" and _THEMATIC_BREAK.match(ex, ns) is not None
    if ch in "`~":
        return _FENCE_OPEN.match(ex, ns) is not None
    if ch == "#":
        return _ATX.match(ex, ns) is not None
    if ch == "<":
        return _html_start(ex[ns:], True)[0]
    return ch == ">" or (ch == "_" and _THEMATIC_BREAK.match(ex, ns) is not None)


def _finish(item: OpenTask, lines: list[str], end: int) -> None:
    """Give `item` its last line (its list item ends before line `end`); it is a TaskItem."""
    item.end_line = last_line(lines, end, item.line)
    item.__class__ = TaskItem  # type: ignore[assignment]


class _Found:
    """What the scan has found so far, in document order, and how to record more of it.

    The scan builds each task item as its paragraph starts (all fields but `end_line`, set
    when the item closes), so there is no second pass over the list items. A container on the
    scan's stack is a list `[kind, content width, has a child, task, own task, line of its list
    marker]`: `task` is the index of the nearest task item at or above it (-1 for none), `own
    task` the item's own `OpenTask` (None for none).
    """

    __slots__ = ("headings", "items", "lines", "plain", "state_of")

    def __init__(self, lines: list[str], registry: StateRegistry) -> None:
        self.lines = lines
        self.state_of = {m: state for state, ms in registry.markers.items() for m in ms}.get
        self.items: list[Any] = []  # OpenTask until finished, then TaskItem
        self.plain: list[PlainListItem] = []
        self.headings: list[RawHeading] = []

    def first_paragraph(self, entry: list[Any], line_no: int, col: int) -> int:
        """Record the list item `entry` whose first child is a paragraph starting at (line_no,
        col); returns what the paragraph is to it (`_TASK`, `_PLAIN` or `_PENDING`)."""
        lines = self.lines
        line = lines[line_no]
        if line[col : col + 1] == "[" and line[col + 2 : col + 3] == "]":
            rest = line[col + 3 :]
            if rest == "" or rest[0] in GFM_SPACE:
                state = self.state_of(line[col + 1])
                if state is not None:
                    text = rest.strip(TRIM)
                    bullet = bullet_col(lines, entry[5], line_no, col)
                    self.task(entry, line_no, col, bullet, state, text)
                    return _TASK if text else _PENDING
        if line[col : col + 1] == "[" and _may_define(line, col):
            raise _Unsupported
        self.plain.append(PlainListItem(line_no, col))
        return _PLAIN

    def task(
        self, entry: list[Any], line_no: int, col: int, bullet: int, state: str, text: str
    ) -> None:
        """Add the task of list item `entry`, whose box is at (line_no, col)."""
        items = self.items
        parent = entry[3]
        item = OpenTask()
        item.index = len(items)
        item.line = line_no
        item.bullet_col = bullet
        item.marker_col = col + 1
        item.marker = self.lines[line_no][col + 1]
        item.state = state
        item.text = text
        item.depth = 0 if parent < 0 else items[parent].depth + 1
        item.parent = None if parent < 0 else parent
        item.heading = len(self.headings) - 1 if self.headings else None
        items.append(item)
        entry[3] = item.index
        entry[4] = item

    def undo(self, entry: list[Any], kind: int) -> None:
        """Forget the task or plain item of `entry`, the last one recorded: its paragraph is a
        setext heading's text, or its box ends a paragraph that did not go on."""
        if kind == _PLAIN:
            self.plain.pop()
            return
        parent = self.items.pop().parent
        entry[3] = -1 if parent is None else parent
        entry[4] = None

    def demote_to_plain(self, entry: list[Any], para_line: int, para_start: int) -> None:
        """A `_PENDING` task whose paragraph ended after one line is a plain item."""
        self.undo(entry, _TASK)
        self.plain.append(PlainListItem(para_line, para_start))

    def close(self, stack: list[list[Any]], cols: list[int], keep: int, line: int) -> int:
        """Close the containers above the first `keep`; list items end before `line`.

        Returns how many block quotes were closed.
        """
        quotes = 0
        while len(stack) > keep:
            entry = stack.pop()
            cols.pop()
            if entry[0] == _QUOTE:
                quotes += 1
            elif entry[4] is not None:
                _finish(entry[4], self.lines, line)
        return quotes


def scan(text: str, registry: StateRegistry | None = None) -> Checklist:
    """Parse `text` into a `Checklist` (the fast engine behind `parse`)."""
    checklist = scan_only(text, registry)
    if checklist is None:
        from todo_ls.checklist.reference import reference_parse

        return reference_parse(text, registry)
    return checklist


def scan_only(text: str, registry: StateRegistry | None = None) -> Checklist | None:
    """The scanner alone: None for a document it leaves to markdown-it-py (`_Unsupported`)."""
    lines = split_lines(text, final_empty=False)
    found = _Found(lines, registry or _default_registry())
    # Every task item made here outlives the parse, so the cyclic collector's runs during it
    # (one per 700 of them) free nothing and only rescan them: pausing it saves about a tenth
    # of the parse time of the benchmark plan (median CPU time 28.6 ms against 31.5 ms), which
    # the parse budget needs. It is re-enabled before returning, also on an exception.
    collecting = gc.isenabled()
    gc.disable()
    try:
        _scan(lines, found)
    except _Unsupported:
        return None
    finally:
        if collecting:
            gc.enable()
    return Checklist(
        tuple(found.items),
        headings_of(found.headings, len(lines)),
        tuple(found.plain),
    )


@cache
def _default_registry() -> StateRegistry:
    """The default registry, built once (its markers never change)."""
    return StateRegistry.default()


def _scan(lines: list[str], found: _Found) -> None:
    """Scan `lines` into `found`; raises `_Unsupported` (see there)."""
    items = found.items
    plain = found.plain
    headings = found.headings
    state_of = found.state_of
    # Names the hot path uses, as locals: in the compiled build a module global is a dictionary
    # look-up at each use.
    blank_line = is_blank
    open_task = OpenTask
    task_item = TaskItem
    plain_item = PlainListItem
    match_simple = _SIMPLE.match
    continued = bisect_right
    trim = TRIM
    owner: int | None = None  # the heading that owns what follows
    line_count = len(lines)
    # Open containers, outermost first (see `_Found`).
    stack: list[list[Any]] = []
    # Per container the column its content starts at, valid while no block quote is open (the
    # columns of items inside a quote depend on each line's `>` positions).
    cols: list[int] = []
    quotes = 0  # open block quotes
    leaf = _NONE
    para: list[Any] = []  # the list item whose first child is the open paragraph
    para_kind = _NO_ITEM
    para_line = 0
    para_start = 0  # string offset of the open paragraph's text on para_line
    fence_char = ""
    fence_len = 0
    html_end: re.Pattern[str] | None = None

    start_line = _front_matter_end(lines)
    # zip over a range and the lines, not enumerate with a start: mypyc compiles this form (and
    # not zip's `strict=`: both have the same length) into a native loop; Python runs both alike.
    for i, line in zip(range(start_line, line_count), lines[start_line:]):  # noqa: B905
        if not line and not quotes and leaf <= _PARA:
            # An empty line with only list items open (the most common blank line): as below.
            if stack and not stack[-1][2]:
                found.close(stack, cols, len(stack) - 1, i)
            leaf = _NONE
            continue
        simple = match_simple(line)
        if simple is not None:
            # The fast path: the steps below, specialised to simple lines. Ordinary text while
            # a paragraph is open continues it (lazily when containers do not continue): it can
            # start no block, and indented code cannot interrupt a paragraph.
            indent, bullet, number, box = simple.groups()
            if bullet is None and leaf == _PARA:
                if para_kind >= _PENDING:
                    if para_kind == _DEF:
                        raise _Unsupported
                    para_kind = _TASK
                continue
            if not quotes and leaf <= _PARA:
                # With only list items open, the items that continue are those whose content
                # column the line's first non-space character reaches.
                ns = len(indent)
                matched = continued(cols, ns)
                pos = cols[matched - 1] if matched else 0
                # Else indented code or paragraph text, and an ordered list item that does not
                # start at 1 cannot interrupt a paragraph: the general path.
                if ns - pos < 4 and not (
                    number and leaf == _PARA and matched == len(stack) and int(number) != 1
                ):
                    if para_kind == _PENDING:
                        found.demote_to_plain(para, para_line, para_start)
                    while len(stack) > matched:
                        item = stack.pop()[4]
                        cols.pop()
                        if item is not None:  # `_finish` inlined
                            last = i - 1
                            while last > item.line and blank_line(lines[last]):
                                last -= 1
                            item.end_line = last
                            item.__class__ = task_item
                    if bullet is None:  # 4. a new paragraph (as below)
                        start = ns
                        if stack and not stack[-1][2]:
                            para = stack[-1]
                            para[2] = 1
                            para_kind = found.first_paragraph(para, i, start)
                        elif line[start] == "[" and _may_define(line, start):
                            para_kind = _DEF
                        else:
                            para_kind = _NO_ITEM
                    else:  # 3. a list item whose first child is a paragraph of ordinary text
                        start = ns + len(bullet)
                        if stack:
                            top = stack[-1]
                            top[2] = 1
                            parent = top[3]
                        else:
                            parent = -1
                        state = None if box is None else state_of(box)
                        if state is None:
                            if box is None and line[start] == "[" and _may_define(line, start):
                                raise _Unsupported
                            plain.append(plain_item(i, start))
                            para = [_ITEM, start - pos, 1, parent, None, i]
                            para_kind = _PLAIN
                        else:
                            # `_Found.task` inlined: most lines of a plan are such items.
                            text = line[simple.end() :].strip(trim)
                            item = open_task()
                            item.index = index = len(items)
                            item.line = i
                            item.bullet_col = ns
                            item.marker_col = start + 1
                            item.marker = box
                            item.state = state
                            item.text = text
                            if parent < 0:
                                item.depth = 0
                                item.parent = None
                            else:
                                item.depth = items[parent].depth + 1
                                item.parent = parent
                            item.heading = owner
                            items.append(item)
                            para = [_ITEM, start - pos, 1, index, item, i]
                            para_kind = _TASK if text else _PENDING
                        stack.append(para)
                        cols.append(start)
                    leaf = _PARA
                    para_line = i
                    para_start = start
                    continue
            elif (
                not quotes
                and (leaf == _FENCE or (leaf == _HTML and html_end is None))
                and continued(cols, len(indent)) == len(stack)
            ):
                continue  # inside a fence or an HTML block that only a blank line ends
        elif not quotes and leaf <= _PARA and line[:1] == "#" and (m := _ATX.match(line)):
            # An ATX heading at column 0 closes every list item and ends a paragraph.
            if para_kind == _PENDING:
                found.demote_to_plain(para, para_line, para_start)
                para_kind = _NO_ITEM
            found.close(stack, cols, 0, i)
            level = m.end()
            headings.append(RawHeading(i, level, _atx_text(line, level)))
            owner = len(headings) - 1
            leaf = _NONE
            continue
        elif not quotes and leaf <= _PARA and not line.strip(" \t"):
            # A blank line with only list items open: an item continues it when it holds
            # something (only the innermost can still be empty); it ends a paragraph.
            if stack and not stack[-1][2]:
                found.close(stack, cols, len(stack) - 1, i)
            leaf = _NONE
            continue

        # The general path.
        ex = line.expandtabs(4) if "\t" in line else line
        size = len(ex)
        quoted = 0  # block quote markers passed on this line
        pos = 0
        ns = size - len(ex.lstrip(" "))
        depth = len(stack)
        matched = 0
        # 1. Continue the open containers.
        while matched < depth:
            cont = stack[matched]
            if cont[0] == _QUOTE:
                # markdown-it-py continues a block quote at a `>` however far indented.
                if ns == size or ex[ns] != ">":
                    break
                quoted += 1
                if ex is line:  # no tabs: `_quote_content` inlined
                    pos = ns + 2 if ns + 1 < size and ex[ns + 1] == " " else ns + 1
                else:
                    pos = _quote_content(line, ex, ns, quoted)
                ns = _SPACES.match(ex, pos).end()  # type: ignore[union-attr]
            elif ns == size:  # a blank line continues a list item only if it holds something
                if not cont[2]:
                    break
                pos = ns
            elif ns - pos >= cont[1]:
                pos += cont[1]
            else:
                break
            matched += 1
        blank = ns == size
        all_matched = matched == depth

        # 2. Leaves that swallow lines: fenced code, HTML blocks, indented code.
        if leaf <= _PARA:
            pass
        elif all_matched and leaf == _FENCE:
            if ns - pos < 4 and ex.startswith(fence_char * fence_len, ns):
                run = size - ns - len(ex[ns:].lstrip(fence_char))
                if run >= fence_len and ex[ns + run :].strip(" ") == "":
                    leaf = _NONE
            continue
        elif all_matched and leaf == _HTML:
            if html_end is None:
                if blank:
                    leaf = _NONE
            elif html_end.search(line, _offset(line, ns) if ex is not line else ns):
                leaf = _NONE
            continue
        elif all_matched and leaf == _CODE and (blank or ns - pos >= 4):
            continue
        else:
            leaf = _NONE

        # 3. Open new blocks.
        interrupting = all_matched and leaf == _PARA
        closed = False  # the unmatched containers are closed and the open leaf ended
        consumed = False  # the line was a heading, a break or opened a code / HTML block
        while not blank:
            indent_width = ns - pos
            kind = _NONE  # what starts here: a container, a leaf, or nothing
            if indent_width >= 4:
                if leaf == _PARA:
                    if all_matched or not _lazy_break(stack, matched, ex, ns, pos):
                        break  # paragraph continuation text (maybe lazy)
                    leaf = _NONE
                kind = _CODE
            else:
                ch = ex[ns]
                if ch == ">":
                    kind = _START_QUOTE
                elif ch == "#" and (m := _ATX.match(ex, ns)):
                    offset = _offset(line, ns) if ex is not line else ns
                    level = m.end() - ns
                    headings.append(RawHeading(i, level, _atx_text(line, offset + level)))
                    owner = len(headings) - 1
                    kind = _BREAK
                elif ch in "`~" and (m := _FENCE_OPEN.match(ex, ns)):
                    fence_char = ch
                    fence_len = len(m.group(1) or m.group(2))
                    kind = _FENCE
                elif ch == "<":
                    offset = _offset(line, ns) if ex is not line else ns
                    starts, html_end = _html_start(line[offset:], leaf == _PARA)
                    if starts:
                        # Kinds 1-5 may end on their first line already.
                        ended = html_end is not None and html_end.search(line, offset)
                        kind = _BREAK if ended else _HTML
                elif interrupting and ch in "=-" and _SETEXT.match(ex, ns):
                    # The open paragraph becomes a setext heading (markdown-it's lheading).
                    if para_kind == _DEF:
                        raise _Unsupported
                    text = lines[para_line][para_start:].strip(trim)
                    if para_kind != _NO_ITEM:
                        found.undo(para, para_kind)
                        para_kind = _NO_ITEM
                    headings.append(RawHeading(para_line, 1 if ch == "=" else 2, text))
                    owner = len(headings) - 1
                    leaf = _NONE
                    consumed = True
                    break
                if kind == _NONE and ch in "*-_" and _THEMATIC_BREAK.match(ex, ns):
                    kind = _BREAK
                if kind == _NONE and (ch in "*-+" or "0" <= ch <= "9"):
                    m = _LIST_MARKER.match(ex, ns)
                    if m:
                        after_marker = m.end()
                        rest_ns = _SPACES.match(ex, after_marker).end()  # type: ignore[union-attr]
                        empty = rest_ns == size
                        number = m.group(1)
                        if not (interrupting and (empty or (number and int(number) != 1))):
                            kind = _START_ITEM
            if kind == _NONE:
                break
            # A block starts here, so whatever did not continue is closed.
            if not closed:
                if para_kind == _PENDING:
                    found.demote_to_plain(para, para_line, para_start)
                    para_kind = _NO_ITEM
                quotes -= found.close(stack, cols, matched, i)
                leaf = _NONE
                closed = True
            parent = -1
            if stack:
                stack[-1][2] = 1
                parent = stack[-1][3]
            if kind == _START_QUOTE:
                quoted += 1
                if ex is line:  # no tabs: `_quote_content` inlined
                    pos = ns + 2 if ns + 1 < size and ex[ns + 1] == " " else ns + 1
                else:
                    pos = _quote_content(line, ex, ns, quoted)
                ns = _SPACES.match(ex, pos).end()  # type: ignore[union-attr]
                stack.append([_QUOTE, 0, 0, parent, None, 0])
                cols.append(0)
                quotes += 1
            elif kind == _START_ITEM:
                spaces = rest_ns - after_marker
                if empty or spaces > 4:  # content is absent or indented code: width is +1
                    spaces = 1
                stack.append([_ITEM, after_marker + spaces - pos, 0, parent, None, i])
                cols.append(after_marker + spaces)
                pos = min(after_marker + spaces, size)
                ns = rest_ns
            else:
                if kind != _BREAK:
                    leaf = kind
                consumed = True
                break
            matched = len(stack)
            blank = ns == size
            interrupting = False
        if blank:  # ends a paragraph; closes what did not continue
            quotes -= found.close(stack, cols, matched, i)
            leaf = _NONE
            continue
        if consumed:
            continue
        if leaf == _PARA and not closed:
            # Paragraph continuation text (lazy when not every container continued).
            if para_kind >= _PENDING:
                if para_kind == _DEF:
                    raise _Unsupported
                # markdown-it-py trims the paragraph: a line of only form feeds, U+2028 and
                # the like does not make it go on past a box that ends its first line.
                if line[_offset(line, ns) if ex is not line else ns :].strip(trim):
                    para_kind = _TASK
            continue
        # 4. A new paragraph.
        if para_kind == _PENDING:
            found.demote_to_plain(para, para_line, para_start)
        quotes -= found.close(stack, cols, matched, i)
        start = _offset(line, ns) if ex is not line else ns
        while start < len(line) and line[start] in trim:
            start += 1
        para_kind = (
            _DEF if line[start : start + 1] == "[" and _may_define(line, start) else _NO_ITEM
        )
        if stack and not stack[-1][2]:
            stack[-1][2] = 1
            if stack[-1][0] == _ITEM:
                para = stack[-1]
                para_kind = found.first_paragraph(para, i, start)
        leaf = _PARA
        para_line = i
        para_start = start
    if para_kind == _PENDING:
        found.demote_to_plain(para, para_line, para_start)
    found.close(stack, cols, 0, line_count)
