"""Outline names as a reader sees them: `plain_text` against markdown-it-py's own rendering.

The oracle renders the name to HTML with markdown-it-py (CommonMark, strikethrough on) and
reads that HTML's text as a browser shows it (data, entities decoded, an image by its `alt`),
so it shares no code with `plain_text`'s fast paths (no markup, code spans only) or with its
token walk.
"""

from __future__ import annotations

import json
import random
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from todo_ls.checklist import StateRegistry, document_symbols, locate_item, parse
from todo_ls.checklist.inline_text import has_markup, plain_text
from todo_ls.checklist.lines import split_lines
from todo_ls.server.document_symbols import SymbolEncoder
from todo_ls.server.positions import Encoding
from todo_ls.workspace import FileState

_MD = MarkdownIt("commonmark").enable("strikethrough")


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []

    def handle_data(self, data: str) -> None:
        self.out.append(data)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.out.append(dict(attrs).get("alt") or "")

    handle_startendtag = handle_starttag


def reader_text(name: str) -> str:
    """What a reader sees of `name` rendered by markdown-it-py."""
    parser = _Text()
    parser.feed(_MD.renderInline(name))
    parser.close()
    return "".join(parser.out).replace("\n", " ").strip()


PIECES = [
    *("a", "b", "word", " ", " ", "  ", "é", "漢字", "x1"),
    *("`", "`", "``", "```", "*", "**", "_", "__", "~", "~~"),
    *("[", "]", "(", ")", "![", "](", "](u)", "](<u v>)", '"t"', "!"),
    *("<", ">", "<b>", "</b>", "<!-- c -->", "<http://x.y/z>", "<a@b.cd>", "http://x.y"),
    *("&", "&amp;", "&copy;", "&#35;", "&#x41;", "&bogus;", ";", "#"),
    *("\\", "\\*", "\\`", "\\[", "\\\\", ":", "/", "'"),
]


def random_name(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14))).strip()


@pytest.mark.parametrize("seed", range(8))
def test_plain_text_is_what_markdown_it_renders(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(1500):
        name = random_name(rng)
        if name:
            assert plain_text(name) == reader_text(name), name


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("Fix `parse()` in *scan.py*", "Fix parse() in scan.py"),
        ("See [the docs](docs/x.md) and ![logo *big*](l.png)", "See the docs and logo big"),
        ("<https://x.org> \\*not emphasis\\* &amp; &copy;", "https://x.org *not emphasis* & ©"),
        ("``a ` b`` and `` `x` ``", "a ` b and `x`"),
        ("one ` two", "one ` two"),
        ("~~old~~ new <b>bold</b>", "old new bold"),
        ("plain words", "plain words"),
    ],
)
def test_plain_text_examples(name: str, shown: str) -> None:
    assert plain_text(name) == shown == reader_text(name)


def test_a_name_without_markup_is_itself() -> None:
    assert not has_markup("write the parser (fast) 漢字 # 3.")
    assert has_markup("write `the` parser")


def test_the_outline_names_headings_and_items_as_text() -> None:
    text = "# Fix `parse()` *now*\n\n- [ ] see [the docs](d.md) &amp; `x`\n- [ ] ``\n"
    lines = split_lines(text)
    state = FileState(Path("/p.md"), "file:///p.md", text, parse(text, StateRegistry.default()))
    state.__dict__["lines"] = lines
    encoded = json.loads(SymbolEncoder(state, Encoding.UTF16, True).encode(True))
    assert encoded[0]["name"] == "Fix parse() now"
    assert [c["name"] for c in encoded[0]["children"]] == ["see the docs & x", "``"]
    # The selection still covers the text as written.
    assert encoded[0]["selectionRange"]["end"]["character"] == len("# Fix `parse()` *now*")
    flat = json.loads(SymbolEncoder(state, Encoding.UTF16, True).encode(False))
    assert [s["name"] for s in flat] == ["Fix parse() now", "see the docs & x", "``"]
    assert [s.name for s in document_symbols(state.checklist, lines)[0].children] == [
        "see the docs & x",
        "``",
    ]


def test_a_toggle_finds_an_item_by_its_markdown_or_by_its_outline_name() -> None:
    """docs/status-and-commands.md, "Which item a toggle changes": a panel fed by document
    symbols names the item as the outline shows it; the markdown is compared first."""
    text = "# P\n- [ ] fix `parse()`\n- [ ] **b**\n- [ ] b\n- [ ] `c`\n- [ ] *c*\n"
    items = parse(text, StateRegistry.default())
    lines = {
        sent: [locate_item(items, line, sent) for line, sent in asks]
        for sent, asks in {
            "fix `parse()`": [(1, "fix `parse()`")],
            "fix parse()": [(1, "fix parse()"), (4, "fix parse()")],
            "b": [(2, "b"), (4, "b")],  # `**b**` shows as b on its line; elsewhere `b` is raw
        }.items()
    }
    assert [[i.line for i in found if not isinstance(i, str)] for found in lines.values()] == [
        [1],
        [1, 1],
        [2, 3],
    ]
    ambiguous = locate_item(items, 0, "c")
    assert isinstance(ambiguous, str) and "2 items have that text (lines 5, 6)" in ambiguous
