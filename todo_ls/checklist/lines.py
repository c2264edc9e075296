"""Splitting text into lines: on `\\n`, `\\r\\n` and `\\r` only, as LSP positions and
markdown-it-py count them.

`str.splitlines` also splits on `\\v`, `\\f`, `\\x1c`-`\\x1e`, `\\x85`, U+2028 and U+2029, which
are ordinary characters in markdown and inside an LSP line.
"""

from __future__ import annotations

import re
from itertools import islice

LINE_END = re.compile(r"\r\n|\r|\n")


def split_lines(text: str, *, final_empty: bool = True) -> list[str]:
    """The lines of `text` without their line ends.

    A text ending in a line end has an empty last line as LSP counts lines (the cursor can
    stand there): `"a\\n"` gives `["a", ""]`. With `final_empty=False` it has none, as
    markdown-it-py counts them: `["a"]`.
    """
    # str.split is several times faster than the regex; most files have no \r at all.
    lines = LINE_END.split(text) if "\r" in text else text.split("\n")
    if not final_empty and len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def line_start(text: str, lines: list[str], line: int) -> int:
    """The string offset where `line` (0-based, < len(lines)) of `text` starts; `lines` is
    `split_lines(text)`."""
    if line == 0:
        return 0
    if "\r" not in text:
        return sum(map(len, lines[:line])) + line
    # The end of the line-th line end (CRLF is one line end, so no arithmetic on lengths).
    return next(islice(LINE_END.finditer(text), line - 1, None)).end()


def replace_range(
    text: str,
    lines: list[str],
    start: tuple[int, int],
    end: tuple[int, int],
    new: str,
) -> tuple[str, list[str]]:
    """`text` with the range `start`..`end` replaced by `new`, and its lines.

    `lines` is `split_lines(text)`; positions are (line, column in code points). As LSP has
    it, a column past the end of its line means the end of that line (never its line end), and
    a line past the last one means the end of the text. Only the edited lines are split again,
    except where the edit joins a `\\r` and a `\\n` into one CRLF line end.
    """
    last = len(lines) - 1
    (start_line, start_col), (end_line, end_col) = (
        (line, min(col, len(lines[line]))) if line <= last else (last, len(lines[last]))
        for line, col in sorted((start, end))
    )
    begin = line_start(text, lines, start_line) + start_col
    end_start = begin - start_col if end_line == start_line else line_start(text, lines, end_line)
    stop = end_start + end_col
    piece = lines[start_line][:start_col] + new + lines[end_line][end_col:]
    if "\r" not in text and "\r" not in new:
        middle = piece.split("\n")
    else:
        middle = split_lines(piece)
        line_begin = begin - start_col
        after = end_start + len(lines[end_line])  # offset of the end line's line end
        cr_before = line_begin > 0 and text[line_begin - 1] == "\r"
        lf_after = after < len(text) and text[after] == "\n"
        # A lone CR before the edited lines and an LF the piece starts with (or the LF after
        # them when the piece is empty) become one line end; so do a CR ending the piece and
        # a lone LF after it.
        if cr_before and (piece[:1] == "\n" or (piece == "" and lf_after)):
            middle = middle[1:]
        if piece[-1:] == "\r" and lf_after:
            middle = middle[:-1]
    return text[:begin] + new + text[stop:], lines[:start_line] + middle + lines[end_line + 1 :]
