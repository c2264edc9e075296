"""A heading's or item's inline markdown as the text a reader sees, for the names the outline,
breadcrumbs and symbol pickers show (docs/status-and-commands.md, "Outline, search and folding").

`` Fix `parse()` in *scan.py* `` is shown as `Fix parse() in scan.py`, as VS Code's markdown
outline shows it: code spans keep their content, emphasis and links their text, images their
alt text, autolinks their address; escapes and entities are decoded and raw HTML tags dropped.

Most names hold no markup at all, and an outline of ten thousand items is built from them, so a
name is first looked at with one regular expression in C; a name with only code spans (the usual
markup of a plan) is read here; anything else is handed to markdown-it-py's inline parser (the
CommonMark reference the parse differential tests use), its answers kept in a bounded cache.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

# What can make the rendered text differ from the source (CommonMark inline syntax, with
# GFM strikethrough): without any of these a name is its own text.
_MARKUP = re.compile(r"[\\`*_\[\]!<&~\n]")
# The same without the backtick: a name whose only markup is code spans.
_NOT_CODE = re.compile(r"[\\*_\[\]!<&~\n]")
_BACKTICKS = re.compile(r"`+")


def has_markup(text: str) -> bool:
    """Whether `text` may render as something other than itself."""
    return _MARKUP.search(text) is not None


def plain_texts(texts: list[str]) -> list[str]:
    """`plain_text` of each of `texts` (one-line names), looked at together first: the names
    of a file's items usually hold no markup at all."""
    if _MARKUP.search("".join(texts)) is None:
        return texts
    return [plain_text(text) for text in texts]


def plain_text(text: str) -> str:
    """`text` (one line of inline markdown) as a reader sees it rendered, stripped."""
    if _MARKUP.search(text) is None:
        return text
    if _NOT_CODE.search(text) is None:
        return _code_spans(text).strip()
    return _rendered(text)


def _code_spans(text: str) -> str:
    """`text` with its code spans as their content (CommonMark 6.1): a run of n backticks
    opens a span closed by the next run of exactly n; a run with no such match is literal."""
    runs = list(_BACKTICKS.finditer(text))
    out: list[str] = []
    at = 0  # the first character not yet written
    i = 0
    while i < len(runs):
        opening = runs[i]
        width = opening.end() - opening.start()
        close = next((j for j in range(i + 1, len(runs)) if len(runs[j].group()) == width), None)
        if close is None:
            i += 1  # literal backticks: written with the text around them
            continue
        content = text[opening.end() : runs[close].start()]
        if content.startswith(" ") and content.endswith(" ") and content.strip(" "):
            content = content[1:-1]
        out.append(text[at : opening.start()])
        out.append(content)
        at = runs[close].end()
        i = close + 1
    out.append(text[at:])
    return "".join(out)


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("strikethrough")


# Bounded: the names of the documents outlined, not every name ever seen.
@lru_cache(maxsize=8192)
def _rendered(text: str) -> str:
    tokens = _parser().parseInline(text)
    return "".join(_text_of(tokens[0].children or [])).strip() if tokens else text.strip()


def _text_of(tokens: list[Token], alt: bool = False) -> list[str]:
    """The text of inline tokens; in an image's alt text (`alt`) raw HTML is kept as
    written, as markdown-it-py's renderer writes the `alt` attribute."""
    out: list[str] = []
    for token in tokens:
        kind = token.type
        if kind in ("text", "code_inline") or (alt and kind == "html_inline"):
            out.append(token.content)
        elif kind in ("softbreak", "hardbreak"):
            out.append(" ")
        elif kind == "image":
            out += _text_of(token.children or [], alt=True)
        # Elsewhere raw HTML and the open/close tokens of emphasis and links show no text.
    return out
