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
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from todo_ls import checklist  # its functions load on first use
from todo_ls.server.core import TodoLanguageServer
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
CACHED_DOCUMENTS = 16
# No spaces: a 10,000-item outline is megabytes the editor has to read.
COMPACT = (",", ":")


_SectionKey = tuple[str, ...]  # a heading's section: its lines
# A heading's section encoded: its first line, its JSON and the counts per state of its items.
_Section = tuple[int, str, dict[str, int]]
# A line number in symbols' JSON (an encoded string cannot hold `"line":`, its quotes are
# escaped), so a section that moved is renumbered without encoding it again.
_LINE_NUMBER = re.compile(r'"line":(\d+)')
_NO_COUNTS: dict[str, int] = {}  # shared by every leaf item: never written to


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
    place, so a section that moved is only renumbered): an edit in a plan of ten thousand
    items re-encodes the section it touched and the headings holding it, as the diagnostics
    re-encode only the items that changed.
    """

    def __init__(
        self,
        state: FileState,
        encoding: Encoding,
        tags: bool,
        previous: dict[_SectionKey, _Section] | None = None,
    ) -> None:
        self.checklist = state.checklist
        self.lines = state.lines
        self.uri = state.uri
        self.encoding = encoding
        self.tags = tags
        self.previous = previous or {}
        self.sections: dict[_SectionKey, _Section] = {}  # what this state used: the next reuse
        self._item_lines = [item.line for item in state.checklist.items]
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

    def _symbol(
        self,
        head: str,
        line: int,
        spans: tuple[int, int, int],
        end_line: int,
        children: list[str],
    ) -> str:
        """A `DocumentSymbol` from its name, kind, tags and detail (`head`, encoded), the
        code-point columns on `line` where it and its text start and where its text ends, its
        last line (it ends there with that line), and its children's JSON."""
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
        found = (
            f'{{{head},"range":{{"start":{{"line":{line},"character":{start}}},'
            f'"end":{{"line":{end_line},"character":{end}}}}},'
            f'"selectionRange":{{"start":{{"line":{line},"character":{text_start}}},'
            f'"end":{{"line":{line},"character":{text_end}}}}}'
        )
        if not children:
            return found + "}"
        return found + ',"children":[' + ",".join(children) + "]}"

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
            f'"name":{encode_basestring_ascii(item.text or checklist.NO_TEXT)},"kind":{ITEM_KIND}'
            f"{self._closed_tag if item.state in checklist.CLOSED_STATES else ''}"
            f',"detail":{encode_basestring_ascii(detail)}'
        )
        spans = (min(item.bullet_col, start), start, end)
        return self._symbol(head, item.line, spans, item.end_line, children), below

    def _items(self, first: int, stop: int) -> tuple[list[str], dict[str, int]]:
        """Items `first..stop-1` (those one heading owns) as trees: the roots' JSON (an item
        whose parent another heading owns is a root), and the counts per state of them all."""
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
        for root in roots:
            text, below = self._item(root, kids)
            encoded.append(text)
            add_counts(counts, below, items[root].state)
        return encoded, counts

    def _owned(self, heading: int | None) -> tuple[int, int]:
        """The first and past-the-last indices of the items whose nearest heading is
        `heading` (None: the items before the first heading)."""
        headings, lines = self.checklist.headings, self._item_lines
        first = bisect_right(lines, headings[heading].line) if heading is not None else 0
        following = heading + 1 if heading is not None else 0
        if following < len(headings):
            return first, bisect_left(lines, headings[following].line)
        return first, len(lines)

    def _heading(self, index: int, subheadings: dict[int, list[int]]) -> _Section:
        """A heading's section; from the previous version when its lines are unchanged
        (renumbered when they moved: a line added above it)."""
        heading = self.checklist.headings[index]
        end = min(heading.end_line, len(self.lines) - 1)
        key = tuple(self.lines[heading.line : end + 1])
        found = self.previous.get(key)
        if found is not None and found[0] != heading.line:
            found = (heading.line, moved(found[1], heading.line - found[0]), found[2])
        if found is None:
            children, counts = self._items(*self._owned(index))
            for sub in subheadings.get(index, ()):
                _, encoded, under = self._heading(sub, subheadings)
                children.append(encoded)
                add_counts(counts, under)
            head = f'"name":{encode_basestring_ascii(heading.text or checklist.NO_TEXT)}'
            head += f',"kind":{HEADING_KIND}'
            if counts:
                detail = checklist.progress_label(checklist.Progress(counts))
                head += f',"detail":{encode_basestring_ascii(detail)}'
            start, text_end = checklist.text_span(self._line(heading.line), heading.text, 0)
            last = checklist.section_end(self.lines, heading)
            encoded = self._symbol(head, heading.line, (0, start, text_end), last, children)
            found = (heading.line, encoded, counts)
        self.sections[key] = found
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
        found, _ = self._items(*self._owned(None))
        found += [self._heading(index, subheadings)[1] for index in roots]
        return "[" + ",".join(found) + "]"

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
    cache: dict[str, tuple[tuple[Any, ...], str, dict[Any, _Section]]] = {}

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
            cache.pop(uri, None)
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
            cached = (key, encoder.encode(key[2]), encoder.sections)
            cache.pop(uri, None)
            while len(cache) >= CACHED_DOCUMENTS:  # the oldest first (dicts keep order)
                del cache[next(iter(cache))]
            cache[uri] = cached
        return RawJson(cached[1])
