"""The reference parser: markdown-it-py (CommonMark + GFM task lists + front matter).

markdown-it-py is the judge of what is an item (docs/checklists.md). The fast scanner in
`scan.py` must agree with this module on every document; tests and the parse benchmark
compare the two. markdown-it-py is imported lazily so that importing the engine stays cheap.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from todo_ls.checklist.assemble import TRIM, RawHeading, RawListItem, assemble
from todo_ls.checklist.lines import split_lines
from todo_ls.checklist.model import Checklist, StateRegistry

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


@cache
def reference_markdown_it(tasklists: bool = False) -> MarkdownIt:
    """The reference configuration: commonmark preset + front matter (+ tasklists if asked).

    The tasklists plugin only rewrites the inline content of `[ ]`/`[x]` items (it cannot know
    custom markers), so item detection runs on the token stream without it; the block structure
    is identical either way. The benchmark uses `tasklists=True` for a full reference parse.
    """
    from markdown_it import MarkdownIt
    from mdit_py_plugins.front_matter import front_matter_plugin
    from mdit_py_plugins.tasklists import tasklists_plugin

    md = MarkdownIt("commonmark").use(front_matter_plugin)
    if tasklists:
        md.use(tasklists_plugin)
    return md


def _map(token: Token) -> tuple[int, int]:
    assert token.map is not None  # block tokens of markdown-it-py always carry a line map
    return token.map[0], token.map[1]


def reference_parse(text: str, registry: StateRegistry | None = None) -> Checklist:
    """Parse `text` with markdown-it-py; slow but by definition right."""
    lines = split_lines(text, final_empty=False)
    tokens = reference_markdown_it().parse(text)
    raw_items: list[RawListItem] = []
    raw_headings: list[RawHeading] = []
    stack: list[int] = []  # raw indices of the open list items
    for i, token in enumerate(tokens):
        if token.type == "list_item_open":
            start, end = _map(token)
            para_line: int | None = None
            para_col = 0
            multiline = False
            if tokens[i + 1].type == "paragraph_open":
                para_line = _map(tokens[i + 1])[0]
                # The inline content is the paragraph's source with the container prefixes and
                # surrounding whitespace removed, so its first line is a suffix of the source
                # line (of the trimmed one when the content has a single line). Lines of only
                # what markdown-it-py trims (form feeds, U+2028...) at its end are gone.
                content = tokens[i + 2].content
                multiline = "\n" in content
                first = content.split("\n", 1)[0]
                source = lines[para_line] if multiline else lines[para_line].rstrip(TRIM)
                # A first line of only what markdown-it-py trims (a form feed, U+2028...)
                # holds no content: it starts at the line's end, as the scanner has it.
                if first and source.endswith(first):
                    para_col = len(source) - len(first)
                else:
                    para_col = len(lines[para_line])
            raw_items.append(
                RawListItem(
                    start, end, stack[-1] if stack else None, para_line, para_col, multiline
                )
            )
            stack.append(len(raw_items) - 1)
        elif token.type == "list_item_close":
            stack.pop()
        elif token.type == "heading_open":
            content = tokens[i + 1].content.split("\n", 1)[0].strip(TRIM)
            raw_headings.append(RawHeading(_map(token)[0], int(token.tag[1:]), content))
    return assemble(lines, raw_items, raw_headings, registry or StateRegistry.default())
