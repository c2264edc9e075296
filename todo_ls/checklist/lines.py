"""Splitting text into lines: on `\\n`, `\\r\\n` and `\\r` only, as LSP positions and
markdown-it-py count them.

`str.splitlines` also splits on `\\v`, `\\f`, `\\x1c`-`\\x1e`, `\\x85`, U+2028 and U+2029, which
are ordinary characters in markdown and inside an LSP line.
"""

from __future__ import annotations

import re

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
