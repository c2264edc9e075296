"""`textDocument/documentSymbol`: the outline of a subscribed file (headings → items → child
items), so the editor's outline, breadcrumbs and symbol pickers show the plan.

Hierarchical `DocumentSymbol[]` for clients that support it (VS Code, Neovim), else the flat
`SymbolInformation[]`. The answer is encoded to JSON here (`wire.RawJson`): a plan of ten
thousand items would otherwise spend most of its time in pygls's generic encoder. It is kept
per document state and encoding, so asking again for an unchanged document costs nothing.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from json.encoder import encode_basestring_ascii
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from todo_ls import checklist  # its functions load on first use
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.document_cache import DocumentCache
from todo_ls.server.positions import Encoding
from todo_ls.server.wire import RawJson
from todo_ls.workspace import FileState, uri_to_path

if TYPE_CHECKING:
    from todo_ls.checklist import Heading, Symbol

# Headings as VS Code's own markdown outline shows them; an item is a checkbox.
HEADING_KIND = types.SymbolKind.String.value
ITEM_KIND = types.SymbolKind.Boolean.value
# Done and canceled items are tagged deprecated: editors show them struck through.
DEPRECATED = types.SymbolTag.Deprecated.value
# No spaces: a 10,000-item outline is megabytes the editor has to read.
COMPACT = (",", ":")


_SectionKey = tuple[str, ...]  # a heading's section: its lines
# An item and its child items: per item what its JSON is made of, children nested.
_TreeKey = tuple[Any, ...]
_Tree = tuple[str, dict[str, int]]  # an item tree's JSON, and the counts per state below it
# A heading's section encoded: its first line, its JSON in pieces (joined once, for the whole
# answer: a heading's JSON holds its subsections', and joining at each level would copy a
# megabyte outline once per level), the counts per state of its items, and the item trees it
# owns (for the section's next version to reuse where they are the same).
_Section = tuple[int, list[str], dict[str, int], dict[_TreeKey, _Tree]]
_NO_TREES: dict[_TreeKey, _Tree] = {}  # shared by moved sections: never written to
# The items before the first heading are kept as a section with no lines (no heading's
# section is empty) that starts on no line.
_LEADING: tuple[int, _SectionKey] = (-1, ())
# A line number in symbols' JSON (an encoded string cannot hold `"line":`, its quotes are
# escaped), so a section that moved is renumbered without encoding it again.
_LINE_NUMBER = re.compile(r'"line":(\d+)')
_LINE = attrgetter("line")
_NO_COUNTS: dict[str, int] = {}  # shared by every leaf item: never written to


class OutlineParts:
    """What encoding one document version leaves for the next to reuse: its sections by
    their lines, and their item trees by the line the section starts on."""

    __slots__ = ("sections", "trees")

    def __init__(self) -> None:
        self.sections: dict[_SectionKey, _Section] = {}
        self.trees: dict[int, dict[_TreeKey, _Tree]] = {}

    def add(self, key: _SectionKey, section: _Section) -> None:
        self.sections[key] = section
        self.trees[section[0]] = section[3]


_NO_PARTS = OutlineParts()  # a first version reuses nothing: never written to


def add_counts(counts: dict[str, int], more: dict[str, int], state: str | None = None) -> None:
    """Add the counts per state `more`, and one item in `state` when given, to `counts`."""
    if state is not None:
        counts[state] = counts.get(state, 0) + 1
    for name, n in more.items():
        counts[name] = counts.get(name, 0) + n


class SymbolEncoder:
    """The symbols of one document state in the client's encoding, as JSON.

    The hierarchy is written straight from the checklist's items and headings into JSON text,
    with no symbol, node or dict object per item: for a plan of ten thousand items those
    objects and `json.dumps` on each cost most of the answer. Each heading's section (the
    heading, its items, its subsections) is encoded once and reused for the next document
    version while its lines are unchanged (what it shows depends on nothing else but its
    place, so a section that moved is only renumbered). Inside the section an edit touched,
    each item tree (an item the section owns and its child items) is reused while every value
    its JSON is made of is the same: an edit in a plan of ten thousand items re-encodes the
    item it touched and the headings holding it, as the diagnostics re-encode only the items
    that changed.
    """

    def __init__(
        self,
        state: FileState,
        encoding: Encoding,
        tags: bool,
        previous: OutlineParts | None = None,
    ) -> None:
        self.checklist = state.checklist
        self.lines = state.lines
        self.uri = state.uri
        self.encoding = encoding
        self.tags = tags
        self.previous = previous or _NO_PARTS
        self.parts = OutlineParts()  # what this version used: the next one's reuse
        self._closed_tag = f',"tags":[{DEPRECATED}]' if tags else ""

    def position(self, line: int, col: int) -> dict[str, int]:
        text = self.lines[line] if line < len(self.lines) else ""
        return {"line": line, "character": self.encoding.column(text, col)}

    def ranges(self, symbol: Symbol) -> tuple[dict[str, Any], dict[str, Any]]:
        """The whole symbol's range and its text's range."""
        whole = {"start": self.position(*symbol.start), "end": self.position(*symbol.end)}
        text = {
            "start": self.position(symbol.line, symbol.text_start),
            "end": self.position(symbol.line, symbol.text_end),
        }
        return whole, text

    def fields(self, symbol: Symbol) -> dict[str, Any]:
        found: dict[str, Any] = {
            "name": symbol.name,
            "kind": HEADING_KIND if symbol.kind == "heading" else ITEM_KIND,
        }
        if symbol.closed and self.tags:
            found["tags"] = [DEPRECATED]
        return found

    def _line(self, n: int) -> str:
        return self.lines[n] if n < len(self.lines) else ""

    def _column(self, text: str, col: int) -> int:
        return col if text.isascii() else self.encoding.column(text, col)

    def _symbol(self, head: str, line: int, spans: tuple[int, int, int], end_line: int) -> str:
        """A `DocumentSymbol` up to its children, from its name, kind, tags and detail
        (`head`, encoded), the code-point columns on `line` where it and its text start and
        where its text ends, and its last line (it ends there with that line)."""
        text = self._line(line)
        start, text_start, text_end = spans
        if not text.isascii():
            column = self.encoding.column
            start, text_start, text_end = (
                column(text, start),
                column(text, text_start),
                column(text, text_end),
            )
        last = self._line(end_line)
        end = self._column(last, len(last))
        return (
            f'{{{head},"range":{{"start":{{"line":{line},"character":{start}}},'
            f'"end":{{"line":{end_line},"character":{end}}}}},'
            f'"selectionRange":{{"start":{{"line":{line},"character":{text_start}}},'
            f'"end":{{"line":{line},"character":{text_end}}}}}'
        )

    def _item(self, index: int, kids: dict[int, list[int]]) -> tuple[str, dict[str, int]]:
        """One item and its child items (`kids`: parent index -> child indices) as JSON, and
        the counts per state of the items below it."""
        items = self.checklist.items
        item = items[index]
        below = _NO_COUNTS
        children: list[str] = []
        if index in kids:
            below = {}
            for child in kids[index]:
                encoded, under = self._item(child, kids)
                children.append(encoded)
                add_counts(below, under, items[child].state)
        start, end = checklist.text_span(self._line(item.line), item.text, item.marker_col + 2)
        detail = item.state
        if below:
            detail += " · " + checklist.progress_label(checklist.Progress(below))
        head = (
            f'"name":{encode_basestring_ascii(checklist.symbol_name(item.text))},"kind":{ITEM_KIND}'
            f"{self._closed_tag if item.state in checklist.CLOSED_STATES else ''}"
            f',"detail":{encode_basestring_ascii(detail)}'
        )
        found = self._symbol(
            head, item.line, (min(item.bullet_col, start), start, end), item.end_line
        )
        if children:
            return found + ',"children":[' + ",".join(children) + "]}", below
        return found + "}", below

    def _tree_key(self, index: int, kids: dict[int, list[int]]) -> _TreeKey:
        """Every value the JSON of item `index` and its child items is made of: for each item
        its fields and the texts of its first and last lines, the children nested."""
        item = self.checklist.items[index]
        own = (
            item.line,
            item.end_line,
            item.bullet_col,
            item.marker_col,
            item.state,
            item.text,
            self._line(item.line),
            self._line(item.end_line),
        )
        if index not in kids:
            return own
        return (own, *(self._tree_key(child, kids) for child in kids[index]))

    def _items(
        self, first: int, stop: int, reuse: dict[_TreeKey, _Tree]
    ) -> tuple[list[str], dict[str, int], dict[_TreeKey, _Tree]]:
        """Items `first..stop-1` (those one heading owns) as trees: the roots' JSON (an item
        whose parent another heading owns is a root), the counts per state of them all, and
        each tree by its key; a tree found in `reuse` is not encoded again."""
        items = self.checklist.items
        kids: dict[int, list[int]] = {}
        roots: list[int] = []
        for index in range(first, stop):
            parent = items[index].parent
            if parent is not None and parent >= first:
                kids.setdefault(parent, []).append(index)
            else:
                roots.append(index)
        counts: dict[str, int] = {}
        encoded: list[str] = []
        trees: dict[_TreeKey, _Tree] = {}
        for root in roots:
            key = self._tree_key(root, kids)
            tree = reuse.get(key)
            if tree is None:
                tree = self._item(root, kids)
            trees[key] = tree
            encoded.append(tree[0])
            add_counts(counts, tree[1], items[root].state)
        return encoded, counts, trees

    def _trees_at(self, line: int) -> dict[_TreeKey, _Tree]:
        """The item trees of the previous version's section that started on `line` (the same
        heading, most likely, with an edit inside): those the edit left alone are reused."""
        return self.previous.trees.get(line, _NO_TREES)

    def _owned(self, heading: int | None) -> tuple[int, int]:
        """The first and past-the-last indices of the items whose nearest heading is
        `heading` (None: the items before the first heading)."""
        # Searched by line (bisect's `key`): a list of every item's line would read every item.
        headings, items = self.checklist.headings, self.checklist.items
        first = bisect_right(items, headings[heading].line, key=_LINE) if heading is not None else 0
        following = heading + 1 if heading is not None else 0
        if following < len(headings):
            return first, bisect_left(items, headings[following].line, key=_LINE)
        return first, len(items)

    def _heading(self, index: int, subheadings: dict[int, list[int]]) -> _Section:
        """A heading's section; from the previous version when its lines are unchanged
        (renumbered when they moved: a line added above it)."""
        heading = self.checklist.headings[index]
        end = min(heading.end_line, len(self.lines) - 1)
        key = tuple(self.lines[heading.line : end + 1])
        found = self.previous.sections.get(key)
        if found is not None and found[0] != heading.line:
            # Its trees' keys hold their old lines: they would not match again.
            renumbered = moved("".join(found[1]), heading.line - found[0])
            found = (heading.line, [renumbered], found[2], _NO_TREES)
        if found is None:
            items, counts, trees = self._items(*self._owned(index), self._trees_at(heading.line))
            pieces = [",".join(items)] if items else []
            for sub in subheadings.get(index, ()):
                _, encoded, under, _ = self._heading(sub, subheadings)
                if pieces:
                    pieces.append(",")
                pieces += encoded
                add_counts(counts, under)
            head = f'"name":{encode_basestring_ascii(checklist.symbol_name(heading.text))}'
            head += f',"kind":{HEADING_KIND}'
            if counts:
                detail = checklist.progress_label(checklist.Progress(counts))
                head += f',"detail":{encode_basestring_ascii(detail)}'
            start, text_end = checklist.text_span(self._line(heading.line), heading.text, 0)
            last = checklist.section_end(self.lines, heading)
            opening = self._symbol(head, heading.line, (0, start, text_end), last)
            pieces = [opening + ',"children":[', *pieces, "]}"] if pieces else [opening + "}"]
            found = (heading.line, pieces, counts, trees)
        self.parts.add(key, found)
        return found

    def encode_hierarchy(self) -> str:
        """The document's symbols as a JSON array of `DocumentSymbol`: the items before the
        first heading, then the top-level headings, each holding its subheadings."""
        roots: list[int] = []
        subheadings: dict[int, list[int]] = {}
        open_headings: list[Heading] = []  # levels increasing
        for heading in self.checklist.headings:
            while open_headings and open_headings[-1].level >= heading.level:
                open_headings.pop()
            if open_headings:
                subheadings.setdefault(open_headings[-1].index, []).append(heading.index)
            else:
                roots.append(heading.index)
            open_headings.append(heading)
        items, counts, trees = self._items(*self._owned(None), self._trees_at(_LEADING[0]))
        self.parts.add(_LEADING[1], (_LEADING[0], [], counts, trees))
        pieces = ["[", ",".join(items)]
        for index in roots:
            if len(pieces) > 2 or items:
                pieces.append(",")
            pieces += self._heading(index, subheadings)[1]
        pieces.append("]")
        return "".join(pieces)

    def symbol_information(
        self, symbols: list[Symbol], container: str | None, out: list[dict[str, Any]]
    ) -> None:
        """Flat entries for clients without hierarchical symbols, each naming its parent."""
        for symbol in symbols:
            whole, _ = self.ranges(symbol)
            found = self.fields(symbol)
            found["location"] = {"uri": self.uri, "range": whole}
            if container is not None:
                found["containerName"] = container
            out.append(found)
            self.symbol_information(symbol.children, symbol.name, out)

    def encode(self, hierarchical: bool) -> str:
        """The document's symbols as a JSON array."""
        if hierarchical:
            return self.encode_hierarchy()
        flat: list[dict[str, Any]] = []
        self.symbol_information(checklist.document_symbols(self.checklist, self.lines), None, flat)
        return json.dumps(flat, separators=COMPACT)


def moved(encoded: str, by: int) -> str:
    """Symbols' JSON with every line number `by` lines further down (their columns stay: the
    lines themselves are the same), in two passes of C: no call per number."""
    numbers = tuple(int(n) + by for n in _LINE_NUMBER.findall(encoded))
    return _LINE_NUMBER.sub('"line":%d', encoded.replace("%", "%%")) % numbers


def register(server: TodoLanguageServer) -> None:
    # Per document: what the answer depends on, the answer, and its encoded fragments.
    cache: DocumentCache[tuple[tuple[Any, ...], RawJson, OutlineParts]] = DocumentCache()
    server.document_caches.append(cache)

    @server.feature(
        types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, types.DocumentSymbolOptions(label="todo-ls")
    )
    async def on_document_symbol(
        ls: TodoLanguageServer, params: types.DocumentSymbolParams
    ) -> RawJson | None:
        await ls.configuration.ready()  # the subscriptions come with the settings
        uri = params.text_document.uri
        path = uri_to_path(uri)
        if path is None or not ls.workspace_index.is_subscribed(path):
            cache.drop(uri)
            return None  # other markdown is another server's
        state = ls.workspace_index.state(path)
        # The marker table too: the same lines mean other states under another one.
        key = (
            state,
            ls.encoding,
            ls.client_features.hierarchical_symbols,
            ls.client_features.symbol_tags,
            ls.registry,
        )
        cached = cache.get(uri)
        if cached is None or cached[0] != key:
            same_settings = cached is not None and cached[0][1:] == key[1:]
            encoder = SymbolEncoder(
                state, key[1], key[3], cached[2] if cached and same_settings else None
            )
            encoded = encoder.encode(key[2])
            cached = (key, RawJson(encoded), encoder.parts)
            # The parts weigh about twice the JSON they make up (docs/performance.md).
            cache.put(uri, cached, 3 * len(encoded))
        return cached[1]
