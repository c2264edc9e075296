"""`workspace/symbol`: the open items of every subscribed file of every workspace folder that
fuzzy-match the query (checklist.fuzzy), the cross-file "all open todos" picker (VS Code
`Ctrl+T`, Telescope / fzf-lua / snacks `lsp_workspace_symbols`).

Answered from an index, not from the disk: each parsed file's searchable items are kept for as
long as that parse is the one the workspace counts (the parse the counts' change deltas were
taken from, docs/performance.md "Scale"), so an item the agent ticked on disk is gone from the
next answer once the server has heard of the change (a watched-file event or the poll), as it
is from the status. A query reads no file and stats none: it searches each file's one
lower-cased text of names in C and encodes only the entries it returns, each once per parse.
Each entry's `containerName` is `path › heading` (the path relative to its workspace folder);
at most `LIMIT` entries, in folder, file and document order.
"""

from __future__ import annotations

import weakref
from json.encoder import encode_basestring_ascii
from typing import TYPE_CHECKING

from lsprotocol import types

from todo_ls import checklist  # its functions load on first use
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.document_symbols import ITEM_KIND
from todo_ls.server.positions import Encoding
from todo_ls.server.wire import RawJson
from todo_ls.workspace import FileState, Folder, WorkspaceIndex

if TYPE_CHECKING:
    from pathlib import Path

LIMIT = 1000  # entries per answer: an editor's picker shows a screenful, and types on
SEPARATOR = " › "


class FileSymbols:
    """The open items of one parse of one file, searchable (checklist.OpenItems), and each
    entry's JSON once it has been asked for."""

    __slots__ = ("container", "encoded", "encoding", "folder", "open_items")

    def __init__(self, state: FileState, folder: Folder) -> None:
        # Not the state (it is this entry's weak key), nor its lines: a file read from disk
        # splits them only when one of its entries is encoded.
        self.open_items = checklist.OpenItems(state.checklist)
        self.folder = folder.key
        self.container = folder.relative(state.path)
        self.encoding: Encoding | None = None
        self.encoded: list[str | None] = []

    def entry(self, n: int, state: FileState, headings: list[str], encoding: Encoding) -> str:
        """Item `n` as a `SymbolInformation` (JSON), encoded once per parse and encoding."""
        if encoding is not self.encoding:
            self.encoding = encoding
            self.encoded = [None] * len(self.open_items.items)
        found = self.encoded[n]
        if found is None:
            item = self.open_items.items[n]
            lines = state.lines
            line = lines[item.line] if item.line < len(lines) else ""
            start, end = checklist.text_span(line, item.text, item.marker_col + 2)
            if not line.isascii():
                start, end = encoding.column(line, start), encoding.column(line, end)
            heading = headings[item.heading] if item.heading is not None else ""
            container = self.container + SEPARATOR + heading if heading else self.container
            found = self.encoded[n] = (
                f'{{"name":{encode_basestring_ascii(checklist.symbol_name(item.text))},'
                f'"kind":{ITEM_KIND},"location":{{"uri":{encode_basestring_ascii(state.uri)},'
                f'"range":{{"start":{{"line":{item.line},"character":{start}}},'
                f'"end":{{"line":{item.line},"character":{end}}}}}}},'
                f'"containerName":{encode_basestring_ascii(container)}}}'
            )
        return found


# The index: each parse's searchable items, for as long as that parse is in use (the workspace
# keeps one parse per subscribed file; a changed file's new parse replaces it).
_files: weakref.WeakKeyDictionary[FileState, FileSymbols] = weakref.WeakKeyDictionary()
_headings: weakref.WeakKeyDictionary[FileState, list[str]] = weakref.WeakKeyDictionary()


def _current(index: WorkspaceIndex, path: Path) -> FileState:
    # The parse the counts hold (no stat: the index heard of every change); a file it has
    # not parsed yet is read once.
    return index.last_parsed(path) or index.state(path)


def symbols_of(state: FileState, folder: Folder) -> FileSymbols:
    """The searchable items of `state` (a file of `folder`), built on first use."""
    found = _files.get(state)
    if found is None or found.folder != folder.key:
        found = _files[state] = FileSymbols(state, folder)
    return found


def headings_of(state: FileState) -> list[str]:
    """The names of `state`'s headings, as the outline shows them."""
    found = _headings.get(state)
    if found is None:
        texts = [h.text for h in state.checklist.headings]
        found = _headings[state] = checklist.plain_texts(texts)
    return found


def workspace_symbols(
    index: WorkspaceIndex, encoding: Encoding, query: str, limit: int = LIMIT
) -> str:
    """The matching open items as a JSON array of `SymbolInformation`."""
    pattern = checklist.fuzzy_pattern(query)
    out: list[str] = []
    # In folder and file order, with the changes heard of since the last count applied.
    for path, folder in index.counted().items():
        state = _current(index, path)
        if not state.checklist.items:
            continue
        found = symbols_of(state, folder)
        headings: list[str] | None = None
        for n in found.open_items.matches(pattern):
            if headings is None:
                headings = headings_of(state)
            out.append(found.entry(n, state, headings, encoding))
            if len(out) >= limit:
                return "[" + ",".join(out) + "]"
    return "[" + ",".join(out) + "]"


def register(server: TodoLanguageServer) -> None:
    @server.feature(types.WORKSPACE_SYMBOL)
    async def on_workspace_symbol(
        ls: TodoLanguageServer, params: types.WorkspaceSymbolParams
    ) -> RawJson:
        await ls.configuration.ready()  # the subscriptions come with the settings
        return RawJson(workspace_symbols(ls.workspace_index, ls.encoding, params.query))
