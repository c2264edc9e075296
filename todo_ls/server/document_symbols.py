"""`textDocument/documentSymbol`: the outline of a subscribed file (headings → items → child
items), so the editor's outline, breadcrumbs and symbol pickers show the plan.

Hierarchical `DocumentSymbol[]` for clients that support it (VS Code, Neovim), else the flat
`SymbolInformation[]`. The answer is encoded to JSON here (`wire.RawJson`): a plan of ten
thousand items would otherwise spend most of its time in pygls's generic encoder. It is kept
per document state and encoding, so asking again for an unchanged document costs nothing.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from todo_ls import checklist  # its functions load on first use
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.positions import Encoding
from todo_ls.server.wire import RawJson
from todo_ls.workspace import FileState, uri_to_path

if TYPE_CHECKING:
    from todo_ls.checklist import Node, Symbol

# Headings as VS Code's own markdown outline shows them; an item is a checkbox.
HEADING_KIND = types.SymbolKind.String.value
ITEM_KIND = types.SymbolKind.Boolean.value
# Done and canceled items are tagged deprecated: editors show them struck through.
DEPRECATED = types.SymbolTag.Deprecated.value
CACHED_DOCUMENTS = 16
# No spaces: a 10,000-item outline is megabytes the editor has to read.
COMPACT = (",", ":")


_SectionKey = tuple[Any, ...]


class SymbolEncoder:
    """The symbols of one document state in the client's encoding, as JSON.

    Each heading's section (the heading, its items, its subsections) is encoded once and
    reused for the next document version while its lines and its place are unchanged (what
    it shows depends on nothing else): an edit in a plan of ten thousand items re-encodes the
    section it touched and the headings holding it, as the diagnostics re-encode only the
    items that changed.
    """

    def __init__(
        self,
        state: FileState,
        encoding: Encoding,
        tags: bool,
        previous: dict[_SectionKey, str] | None = None,
    ) -> None:
        self.checklist = state.checklist
        self.lines = state.lines
        self.uri = state.uri
        self.encoding = encoding
        self.tags = tags
        self.outline = checklist.Outline(state.checklist)
        self.previous = previous or {}
        self.sections: dict[_SectionKey, str] = {}  # what this state used: the next reuse

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

    def document_symbol(self, node: Node) -> str:
        """One node and its children as a `DocumentSymbol`."""
        symbol = checklist.node_symbol(self.checklist, self.lines, node)
        whole, text = self.ranges(symbol)
        found = self.fields(symbol)
        if symbol.detail:
            found["detail"] = symbol.detail
        found["range"], found["selectionRange"] = whole, text
        # Without the closing brace: the children may follow.
        head = json.dumps(found, separators=COMPACT)[:-1]
        if not node.children:
            return head + "}"
        children = ",".join([self.child(child) for child in node.children])
        return head + ',"children":[' + children + "]}"

    def child(self, node: Node) -> str:
        """A node; a heading's whole section from the previous version when it is unchanged."""
        if node.kind != "heading":
            return self.document_symbol(node)
        heading = self.checklist.headings[node.index]
        end = min(heading.end_line, len(self.lines) - 1)
        key = (heading.line, tuple(self.lines[heading.line : end + 1]))
        found = self.previous.get(key)
        if found is None:
            found = self.document_symbol(self.outline.fill(node))
        self.sections[key] = found
        return found

    def encode_hierarchy(self) -> str:
        """The document's symbols as a JSON array of `DocumentSymbol`."""
        outline = self.outline
        nodes = outline.item_nodes(outline.owned_items(None)) + outline.heading_tree()
        return "[" + ",".join([self.child(n) for n in outline.in_document_order(nodes)]) + "]"

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


def register(server: TodoLanguageServer) -> None:
    # Per document: what the answer depends on, the answer, and its encoded fragments.
    cache: dict[str, tuple[tuple[Any, ...], str, dict[Any, str]]] = {}

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
