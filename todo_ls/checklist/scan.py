"""The fast engine: a one-pass line scanner of CommonMark block structure.

It finds only what the checklist needs (list items with their first paragraph, headings) and
skips everything else (code, HTML blocks, front matter), following the container algorithm of
the CommonMark spec's appendix: each line first continues the open containers (block quotes,
list items), then may open new blocks, and what is left is paragraph text, possibly lazy.
Where markdown-it-py, the reference, has its own reading of the spec, this module follows
markdown-it-py; `tests/unit/test_checklist_differential.py` holds the two to the same output.

Tabs are expanded to tab stops of 4 on lines that contain one: block structure only depends on
columns, and columns are mapped back to string offsets where the model needs them.
"""

from __future__ import annotations

import gc
import re
from bisect import bisect_right

from todo_ls.checklist.assemble import (
    ROW_END,
    ROW_MULTILINE,
    TRIM,
    RawHeading,
    RawRow,
    build,
    split_lines,
)
from todo_ls.checklist.model import Checklist, StateRegistry

# Block-level regexes, applied at the first non-space character of a tab-expanded line.
_SPACES = re.compile(r" *")
_LIST_MARKER = re.compile(r"(?:[*+-]|(\d{1,9})[.)])(?= |$)")
_THEMATIC_BREAK = re.compile(r"(?:(?:\* *){3,}|(?:- *){3,}|(?:_ *){3,})$")
_ATX = re.compile(r"#{1,6}(?= |$)")
_SETEXT = re.compile(r"(?:=+|-+) *$")
_FENCE_OPEN = re.compile(r"(?:(`{3,})[^`]*|(~{3,}).*)$")
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
# indentation, the marker with its spaces (None for text), the number of an ordered marker.
_ORDINARY = r"[^\s>#`~<=*+\-_0-9]"
_SIMPLE = re.compile(r"( *)((?:[*+-]|([0-9]{1,9})[.)]) {1,4})?" + _ORDINARY)

_QUOTE, _ITEM = 0, 1
# What a line holds or starts: leaves that stay open, a one-line block, a new container.
_NONE, _PARA, _FENCE, _CODE, _HTML, _BREAK, _START_QUOTE, _START_ITEM = range(8)


def _offset(line: str, col: int) -> int:
    """The string offset of column `col` in `line` (tabs to stops of 4)."""
    c = 0
    for k, ch in enumerate(line):
        if c >= col:
            return k
        c = c + 4 - c % 4 if ch == "\t" else c + 1
    return len(line)


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


def _lazy_break(stack: list[list[int]], matched: int, ex: str, ns: int, pos: int) -> bool:
    """Whether markdown-it-py ends a paragraph at a lazy line indented 4+ past `pos`.

    CommonMark makes such a line paragraph continuation text. markdown-it-py checks its
    paragraph terminators against the indentation of the paragraph's own list item instead, so
    a block start there ends the paragraph (and the line becomes indented code outside).
    """
    unmatched = stack[matched:]
    if any(cont[0] == _QUOTE for cont in unmatched):
        return False
    item_col = pos + sum(cont[1] for cont in unmatched)  # markdown-it's blkIndent
    list_col = item_col - stack[-1][1]  # its listIndent
    ch = ex[ns]
    if ch in "*-+" or "0" <= ch <= "9":
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


def _close(
    stack: list[list[int]], cols: list[int], keep: int, rows: list[RawRow], line: int
) -> int:
    """Close the containers above the first `keep`; list items end before `line`.

    Returns how many block quotes were closed.
    """
    quotes = 0
    while len(stack) > keep:
        cont = stack.pop()
        cols.pop()
        if cont[0] == _ITEM:
            rows[cont[2]][ROW_END] = line
        else:
            quotes += 1
    return quotes


def scan(text: str, registry: StateRegistry | None = None) -> Checklist:
    """Parse `text` into a `Checklist` (the fast engine behind `parse`)."""
    # A parse allocates tens of thousands of small containers (rows, stack entries, items) that
    # all survive it, so the cyclic collector's runs in between free nothing and only rescan
    # them (about a tenth of the parse time); collection resumes when the parse returns.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _scan(text, registry or StateRegistry.default())
    finally:
        if collecting:
            gc.enable()


def _scan(text: str, registry: StateRegistry) -> Checklist:
    lines = split_lines(text)
    rows: list[RawRow] = []
    headings: list[RawHeading] = []
    # Open containers, outermost first: [kind, content width, raw item index, has a child].
    stack: list[list[int]] = []
    # Per container the column its content starts at, valid while no block quote is open (the
    # columns of items inside a quote depend on each line's `>` positions).
    cols: list[int] = []
    quotes = 0  # open block quotes
    leaf = _NONE
    para_item = -1  # the raw item whose first child is the open paragraph
    para_line = 0
    para_start = 0  # string offset of the open paragraph's text on para_line
    fence_char = ""
    fence_len = 0
    html_end: re.Pattern[str] | None = None

    start_line = _front_matter_end(lines)
    for i in range(start_line, len(lines)):
        line = lines[i]
        simple = _SIMPLE.match(line)
        if simple is not None:
            # The fast path: the steps below, specialised to simple lines. Ordinary text while
            # a paragraph is open continues it (lazily when containers do not continue): it can
            # start no block, and indented code cannot interrupt a paragraph.
            indent, bullet, number = simple.groups()
            if bullet is None and leaf == _PARA:
                if para_item >= 0:
                    rows[para_item][ROW_MULTILINE] = 1
                continue
            if not quotes and leaf <= _PARA:
                # With only list items open, the items that continue are those whose content
                # column the line's first non-space character reaches.
                ns = len(indent)
                matched = bisect_right(cols, ns)
                pos = cols[matched - 1] if matched else 0
                # Else indented code or paragraph text, and an ordered list item that does not
                # start at 1 cannot interrupt a paragraph: the general path.
                if ns - pos < 4 and not (
                    number and leaf == _PARA and matched == len(stack) and int(number) != 1
                ):
                    if matched < len(stack):
                        for cont in stack[matched:]:
                            rows[cont[2]][ROW_END] = i
                        del stack[matched:]
                        del cols[matched:]
                    if bullet is None:  # 4. a new paragraph (as below)
                        start = ns
                        para_item = -1
                        if stack and not stack[-1][3]:
                            stack[-1][3] = 1
                            para_item = stack[-1][2]
                            row = rows[para_item]
                            row[3] = i
                            row[4] = start
                    else:  # 3. a list item whose first child is a paragraph of ordinary text
                        start = ns + len(bullet)
                        parent = -1
                        if stack:
                            stack[-1][3] = 1
                            parent = stack[-1][2]
                        para_item = len(rows)
                        rows.append([i, len(lines), parent, i, start, 0])
                        stack.append([_ITEM, start - pos, para_item, 1])
                        cols.append(start)
                    leaf = _PARA
                    para_line = i
                    para_start = start
                    continue
        elif not quotes and leaf <= _PARA and not line.strip(" \t"):
            # A blank line with only list items open: an item continues it when it holds
            # something (only the innermost can still be empty); it ends a paragraph.
            if stack and not stack[-1][3]:
                rows[stack[-1][2]][ROW_END] = i
                stack.pop()
                cols.pop()
            leaf = _NONE
            continue

        # The general path.
        ex = line.expandtabs(4) if "\t" in line else line
        size = len(ex)
        pos = 0
        ns = size - len(ex.lstrip(" "))
        depth = len(stack)
        matched = 0
        # 1. Continue the open containers.
        while matched < depth:
            cont = stack[matched]
            if cont[0] == _QUOTE:
                if ns - pos > 3 or ns == size or ex[ns] != ">":
                    break
                pos = ns + 1
                if pos < size and ex[pos] == " ":
                    pos += 1
                ns = _SPACES.match(ex, pos).end()  # type: ignore[union-attr]
            elif ns == size:  # a blank line continues a list item only if it holds something
                if not cont[3]:
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
            indent = ns - pos
            kind = _NONE  # what starts here: a container, a leaf, or nothing
            if indent >= 4:
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
                    text = lines[para_line][para_start:].strip(TRIM)
                    headings.append(RawHeading(para_line, 1 if ch == "=" else 2, text))
                    if para_item >= 0:
                        rows[para_item][3] = -1
                    leaf = _NONE
                    consumed = True
                    break
                if kind == _NONE and ch in "*-_" and _THEMATIC_BREAK.match(ex, ns):
                    kind = _BREAK
                if kind == _NONE and (ch in "*-+" or "0" <= ch <= "9"):
                    m = _LIST_MARKER.match(ex, ns)
                    if m:
                        after = m.end()
                        rest_ns = _SPACES.match(ex, after).end()  # type: ignore[union-attr]
                        empty = rest_ns == size
                        number = m.group(1)
                        if not (interrupting and (empty or (number and int(number) != 1))):
                            kind = _START_ITEM
            if kind == _NONE:
                break
            # A block starts here, so whatever did not continue is closed.
            if not closed:
                quotes -= _close(stack, cols, matched, rows, i)
                leaf = _NONE
                closed = True
            if stack:
                stack[-1][3] = 1
            if kind == _START_QUOTE:
                pos = ns + 1
                if pos < size and ex[pos] == " ":
                    pos += 1
                ns = _SPACES.match(ex, pos).end()  # type: ignore[union-attr]
                stack.append([_QUOTE, 0, -1, 0])
                cols.append(0)
                quotes += 1
            elif kind == _START_ITEM:
                spaces = rest_ns - after
                if empty or spaces > 4:  # content is absent or indented code: width is +1
                    spaces = 1
                parent = -1
                for cont in reversed(stack):
                    if cont[0] == _ITEM:
                        parent = cont[2]
                        break
                rows.append([i, len(lines), parent, -1, 0, 0])
                stack.append([_ITEM, after + spaces - pos, len(rows) - 1, 0])
                cols.append(after + spaces)
                pos = min(after + spaces, size)
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
            quotes -= _close(stack, cols, matched, rows, i)
            leaf = _NONE
            continue
        if consumed:
            continue
        if leaf == _PARA and not closed:
            # Paragraph continuation text (lazy when not every container continued).
            if para_item >= 0:
                rows[para_item][ROW_MULTILINE] = 1
            continue
        # 4. A new paragraph.
        quotes -= _close(stack, cols, matched, rows, i)
        para_item = -1
        if stack and not stack[-1][3]:
            stack[-1][3] = 1
            if stack[-1][0] == _ITEM:
                para_item = stack[-1][2]
        start = _offset(line, ns) if ex is not line else ns
        while start < len(line) and line[start] in TRIM:
            start += 1
        leaf = _PARA
        para_line = i
        para_start = start
        if para_item >= 0:
            row = rows[para_item]
            row[3] = i
            row[4] = start
    return build(lines, rows, headings, registry)
