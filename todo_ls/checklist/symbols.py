"""The outline of a checklist: headings hold the items below them, items hold their child items.

What `textDocument/documentSymbol` answers (docs/status-and-commands.md, "Outline, search and
folding"). Columns are code points, as everywhere in the engine; the server converts them.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import attrgetter

from todo_ls.checklist.assemble import is_blank
from todo_ls.checklist.inline_text import plain_text
from todo_ls.checklist.model import CLOSED_STATES, Checklist, Heading, Progress, TaskItem

# A symbol's name may not be empty (VS Code rejects the whole answer).
NO_TEXT = "(no text)"


def symbol_name(text: str) -> str:
    """The name shown for a heading's or item's text: its inline markdown as a reader sees it
    rendered (checklist.inline_text), never empty."""
    return plain_text(text) or NO_TEXT


@dataclass
class Symbol:
    """A heading or an item of the outline, with code-point positions (0-based lines)."""

    kind: str  # "heading" or "item"
    name: str
    detail: str
    closed: bool  # a done or canceled item
    start: tuple[int, int]  # the whole heading section / list item
    end: tuple[int, int]
    line: int  # the selection: the heading's or item's text on this line
    text_start: int
    text_end: int
    children: list[Symbol] = field(default_factory=list)


def progress_label(progress: Progress) -> str:
    """`3/7 done`, plus ` · 1 canceled` when any item is canceled."""
    label = f"{progress.done}/{progress.total} done"
    if progress.canceled:
        label += f" · {progress.canceled} canceled"
    return label


def text_span(line: str, text: str, after: int) -> tuple[int, int]:
    """Where `text` (stripped) sits on `line` at or after column `after` (an empty text: the
    end of the line)."""
    if not text:
        return len(line), len(line)
    found = line.find(text, after)
    start = found if found >= 0 else after
    return start, start + len(text)


def section_end(lines: Sequence[str], heading: Heading) -> int:
    """The section's last line, trailing blank lines not counted."""
    last = min(heading.end_line, len(lines) - 1)
    while last > heading.line and is_blank(lines[last]):
        last -= 1
    return last


def _line(lines: Sequence[str], n: int) -> str:
    return lines[n] if n < len(lines) else ""


def item_symbol(lines: Sequence[str], item: TaskItem, below: dict[str, int]) -> Symbol:
    """The symbol of one item (without children): its state in `detail`, and the progress of
    the items below it (`below`, counts per state) when there are any."""
    line = _line(lines, item.line)
    start, end = text_span(line, item.text, item.marker_col + 2)
    detail = item.state
    if below:
        detail += " · " + progress_label(Progress(below))
    return Symbol(
        kind="item",
        name=symbol_name(item.text),
        detail=detail,
        closed=item.state in CLOSED_STATES,
        start=(item.line, min(item.bullet_col, start)),
        end=(item.end_line, len(_line(lines, item.end_line))),
        line=item.line,
        text_start=start,
        text_end=end,
    )


def heading_symbol(lines: Sequence[str], heading: Heading, below: dict[str, int]) -> Symbol:
    """The symbol of one heading (without children): the progress of its section's items
    (`below`, counts per state) in `detail`."""
    line = _line(lines, heading.line)
    start, end = text_span(line, heading.text, 0)
    last = section_end(lines, heading)
    return Symbol(
        kind="heading",
        name=symbol_name(heading.text),
        detail=progress_label(Progress(below)) if below else "",
        closed=False,
        start=(heading.line, 0),
        end=(last, len(_line(lines, last))),
        line=heading.line,
        text_start=start,
        text_end=end,
    )


@dataclass(slots=True)
class Node:
    """The outline's shape: a heading or an item (`index` into the checklist's headings or
    items), the counts per state of the items below it, and its children in document order."""

    kind: str
    index: int
    below: dict[str, int]
    children: list[Node] = field(default_factory=list)


class Outline:
    """The outline's shape of one checklist, built whole (`nodes`) or in parts: the server
    re-encodes only the sections an edit touched, so it asks for the parts it needs."""

    def __init__(self, checklist: Checklist) -> None:
        self.checklist = checklist
        self._item_lines = [i.line for i in checklist.items]

    def heading_tree(self) -> list[Node]:
        """The headings alone, each holding its subheadings (no items, no counts yet)."""
        roots: list[Node] = []
        open_headings: list[tuple[int, Node]] = []  # (level, node), levels increasing
        for heading in self.checklist.headings:
            node = Node("heading", heading.index, {})
            while open_headings and open_headings[-1][0] >= heading.level:
                open_headings.pop()
            (open_headings[-1][1].children if open_headings else roots).append(node)
            open_headings.append((heading.level, node))
        return roots

    def owned_items(self, heading: int | None) -> range:
        """The indices of the items whose nearest heading is `heading` (None: the items
        before the first heading); they follow one another in document order."""
        headings, lines = self.checklist.headings, self._item_lines
        first = headings[heading].line if heading is not None else -1
        following = heading + 1 if heading is not None else 0
        start = bisect_right(lines, first)
        if following < len(headings):
            return range(start, bisect_left(lines, headings[following].line))
        return range(start, len(lines))

    def section_counts(self, heading: Heading) -> dict[str, int]:
        """Counts per state of the items in the heading's section, subsections included."""
        lines = self._item_lines
        first, last = bisect_right(lines, heading.line), bisect_right(lines, heading.end_line)
        # Counted in C: the first heading of a plan often holds all of its items.
        return dict(Counter(map(attrgetter("state"), self.checklist.items[first:last])))

    def item_nodes(self, indices: range) -> list[Node]:
        """The items of `indices` (all owned by one heading) as trees: each holds its child
        items, with the counts per state of the items below it."""
        items = self.checklist.items
        nodes: dict[int, Node] = {}
        roots: list[Node] = []
        for index in indices:
            item = items[index]
            node = nodes[index] = Node("item", index, {})
            parent = nodes.get(item.parent) if item.parent is not None else None
            if parent is None:
                roots.append(node)
            else:
                parent.children.append(node)
            ancestor = item.parent
            while ancestor is not None and ancestor in nodes:
                below = nodes[ancestor].below
                below[item.state] = below.get(item.state, 0) + 1
                ancestor = items[ancestor].parent
        return roots

    def in_document_order(self, nodes: list[Node]) -> list[Node]:
        """`nodes` sorted by their first line."""
        checklist = self.checklist

        def first_line(node: Node) -> int:
            kind = checklist.headings if node.kind == "heading" else checklist.items
            return kind[node.index].line

        return sorted(nodes, key=first_line)

    def fill(self, node: Node) -> Node:
        """A heading node from `heading_tree` with its counts and its items added (its
        subheadings stay as they are: `nodes` fills them too)."""
        node.below = self.section_counts(self.checklist.headings[node.index])
        items = self.item_nodes(self.owned_items(node.index))
        node.children = self.in_document_order(items + node.children)
        return node

    def nodes(self) -> list[Node]:
        """Top-level headings (and items before the first heading), each holding its
        subheadings and items, each item its child items, all in document order."""

        def filled(node: Node) -> Node:
            subheadings = node.children
            self.fill(node)
            for subheading in subheadings:
                filled(subheading)
            return node

        before = self.item_nodes(self.owned_items(None))
        return self.in_document_order(before + [filled(n) for n in self.heading_tree()])


def node_symbol(checklist: Checklist, lines: Sequence[str], node: Node) -> Symbol:
    """The symbol of one outline node, without its children."""
    if node.kind == "heading":
        return heading_symbol(lines, checklist.headings[node.index], node.below)
    return item_symbol(lines, checklist.items[node.index], node.below)


def document_symbols(checklist: Checklist, lines: Sequence[str]) -> list[Symbol]:
    """The outline as symbols with their children (see `outline`)."""

    def build(node: Node) -> Symbol:
        symbol = node_symbol(checklist, lines, node)
        symbol.children = [build(child) for child in node.children]
        return symbol

    return [build(node) for node in Outline(checklist).nodes()]
