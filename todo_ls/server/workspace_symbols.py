"""`workspace/symbol`: the open items of every subscribed file of every workspace folder that
fuzzy-match the query (checklist.fuzzy), the cross-file "all open todos" picker (VS Code
`Ctrl+T`, Telescope / fzf-lua / snacks `lsp_workspace_symbols`).

Answered from an index, not from the disk: each parsed file's searchable items are kept for as
long as that parse is the one the workspace counts (the parse the counts' change deltas were
taken from, docs/performance.md "Scale"), so an item the agent ticked on disk is gone from the
next answer once the server has heard of the change (a watched-file event or the poll), as it
is from the status. The index is compact (one lower-cased text of names per file, no parse):
the workspace keeps only some closed files' parses. A query searches each file's text in C
and encodes only the entries it returns, each once per parse; it reads no file nor stats one,
but for encoding a file's first entries when the workspace dropped its parse (re-read as
`WorkspaceIndex.state` does, checked against the stamp the entry was built from). The encoded
entries are kept within `ENCODED_BYTES`, the files least recently answered from dropped first:
kept for every item of every file, a long session's varied queries would hold the JSON of the
whole workspace (docs/performance.md, "Memory").
Each entry's `containerName` is `path › heading` (the path relative to its workspace folder);
at most `LIMIT` entries, in folder, file and document order.
"""

from __future__ import annotations

import re
import sys
import weakref
from collections import OrderedDict
from collections.abc import Collection
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
# What the encoded entries of all files may hold, in bytes (about 30,000 entries of ~250 B):
# a screenful of answers for many queries; past it an entry is encoded again when asked.
ENCODED_BYTES = 8 * 2**20


class FileSymbols:
    """The open items of one parse of one file, searchable (checklist.OpenItems), and each
    entry's JSON once it has been asked for. Compact: neither the parse nor its items (the
    workspace may drop a closed file's parse, docs/performance.md "Memory"); `token` names
    the parse it was built from (`WorkspaceIndex.token`), so a re-read of the same text
    encodes its entries."""

    __slots__ = ("bytes", "container", "encoded", "encoding", "folder", "open_items", "token")

    def __init__(self, state: FileState, folder: Folder, token: object) -> None:
        self.open_items = checklist.OpenItems(state.checklist)
        self.folder = folder.key
        self.container = folder.relative(state.path)
        self.token = token
        self.encoding: Encoding | None = None
        self.encoded: list[str | None] = []
        self.bytes = 0  # held by `encoded` and its strings

    def drop_encoded(self) -> None:
        """Forget the encoded entries (encoded again when next asked)."""
        self.encoding = None
        self.encoded = []
        self.bytes = 0

    def cached(self, n: int, encoding: Encoding) -> str | None:
        """Item `n`'s entry when it was encoded already (no parse needed)."""
        return self.encoded[n] if encoding is self.encoding else None

    def entry(self, n: int, state: FileState, parsed: _Parsed, encoding: Encoding) -> str:
        """Item `n` as a `SymbolInformation` (JSON), encoded once per parse and encoding;
        `state` is a parse of the text this was built from."""
        if encoding is not self.encoding:
            self.encoding = encoding
            self.encoded = [None] * self.open_items.count
            self.bytes = sys.getsizeof(self.encoded)
        found = self.encoded[n]
        if found is None:
            item = parsed.items[n]
            lines = state.lines
            line = lines[item.line] if item.line < len(lines) else ""
            start, end = checklist.text_span(line, item.text, item.marker_col + 2)
            if not line.isascii():
                start, end = encoding.column(line, start), encoding.column(line, end)
            heading = parsed.headings[item.heading] if item.heading is not None else ""
            container = self.container + SEPARATOR + heading if heading else self.container
            found = self.encoded[n] = (
                f'{{"name":{encode_basestring_ascii(checklist.symbol_name(item.text))},'
                f'"kind":{ITEM_KIND},"location":{{"uri":{encode_basestring_ascii(state.uri)},'
                f'"range":{{"start":{{"line":{item.line},"character":{start}}},'
                f'"end":{{"line":{item.line},"character":{end}}}}}}},'
                f'"containerName":{encode_basestring_ascii(container)}}}'
            )
            self.bytes += sys.getsizeof(found)
        return found


class _Encoded:
    """The files whose entries are kept encoded, least recently answered from first, and
    the bytes they hold; trimmed to `ENCODED_BYTES` after each answer."""

    __slots__ = ("bytes", "files")

    def __init__(self) -> None:
        self.bytes = 0
        # Each file's entries and the bytes counted for them when last answered from.
        self.files: OrderedDict[Path, tuple[FileSymbols, int]] = OrderedDict()

    def used(self, path: Path, symbols: FileSymbols) -> None:
        """An answer took entries of `symbols` (those of `path`): now the most recent."""
        old = self.files.pop(path, None)
        if old is not None:
            self.bytes -= old[1]
            if old[0] is not symbols:  # of a parse since replaced: never asked again
                old[0].drop_encoded()
        if symbols.bytes:
            self.files[path] = (symbols, symbols.bytes)
            self.bytes += symbols.bytes

    def trim(self, limit: int) -> None:
        """Drop the encoded entries of the least recently used files past `limit` bytes."""
        while self.bytes > limit and self.files:
            _, (symbols, counted) = self.files.popitem(last=False)
            self.bytes -= counted
            symbols.drop_encoded()


class _Parsed:
    """What encoding entries needs of one parse: its open items and its headings' names."""

    __slots__ = ("headings", "items")

    def __init__(self, state: FileState) -> None:
        self.items = checklist.open_task_items(state.checklist)
        self.headings = headings_of(state)


# The index, per workspace index: each subscribed file's searchable items, built from the parse
# the counts hold (a changed file's new parse replaces its entry).
_indexes: weakref.WeakKeyDictionary[WorkspaceIndex, dict[Path, FileSymbols]] = (
    weakref.WeakKeyDictionary()
)
_headings: weakref.WeakKeyDictionary[FileState, list[str]] = weakref.WeakKeyDictionary()
_encoded: weakref.WeakKeyDictionary[WorkspaceIndex, _Encoded] = weakref.WeakKeyDictionary()


def _fresh(index: WorkspaceIndex, path: Path) -> FileState:
    # The parse the counts hold (no stat: the index heard of every change); a file it has
    # not parsed yet, or whose parse it dropped, is read.
    return index.last_parsed(path) or index.state(path)


def _entries(index: WorkspaceIndex) -> dict[Path, FileSymbols]:
    found = _indexes.get(index)
    if found is None:
        found = _indexes[index] = {}
    return found


def _encoded_of(index: WorkspaceIndex) -> _Encoded:
    found = _encoded.get(index)
    if found is None:
        found = _encoded[index] = _Encoded()
    return found


def symbols_of(index: WorkspaceIndex, path: Path, folder: Folder) -> FileSymbols | None:
    """The searchable items of `path` (a file of `folder`) as the counts hold it, built on
    first use and after each change; None for a file without items."""
    entries = _entries(index)
    found = entries.get(path)
    token = index.token(path)
    current = found is not None and token is not None and found.token == token
    if current and found is not None and found.folder == folder.key:
        return found
    state = _fresh(index, path)
    if not state.checklist.items:
        entries.pop(path, None)
        return None
    found = entries[path] = FileSymbols(state, folder, index.token_of(state))
    return found


def headings_of(state: FileState) -> list[str]:
    """The names of `state`'s headings, as the outline shows them."""
    found = _headings.get(state)
    if found is None:
        texts = [h.text for h in state.checklist.headings]
        found = _headings[state] = checklist.plain_texts(texts)
    return found


def _prune(index: WorkspaceIndex, counted: Collection[Path]) -> None:
    """Drop the entries of files no longer subscribed (once they outnumber the rest)."""
    entries = _entries(index)
    if len(entries) > 2 * len(counted) + 64:
        for path in [p for p in entries if p not in counted]:
            del entries[path]


def _file_entries(
    index: WorkspaceIndex,
    path: Path,
    folder: Folder,
    pattern: re.Pattern[str] | None,
    encoding: Encoding,
    room: int,
) -> list[str]:
    """At most `room` matching entries of one file, in document order."""
    found = symbols_of(index, path, folder)
    if found is None:
        return []
    out: list[str] = []
    parsed: tuple[FileState, _Parsed] | None = None
    for n in found.open_items.matches(pattern):
        entry = found.cached(n, encoding)
        if entry is None:
            if parsed is None:
                state = _fresh(index, path)  # a dropped parse is read again
                if index.token_of(state) != found.token:
                    # Changed on disk since, unheard of: the entries of what it holds now.
                    _entries(index).pop(path, None)
                    return _file_entries(index, path, folder, pattern, encoding, room)
                parsed = (state, _Parsed(state))
            entry = found.entry(n, parsed[0], parsed[1], encoding)
        out.append(entry)
        if len(out) >= room:
            break
    if out:
        _encoded_of(index).used(path, found)
    return out


def workspace_symbols(
    index: WorkspaceIndex, encoding: Encoding, query: str, limit: int = LIMIT
) -> str:
    """The matching open items as a JSON array of `SymbolInformation`."""
    pattern = checklist.fuzzy_pattern(query)
    out: list[str] = []
    # In folder and file order, with the changes heard of since the last count applied.
    counted = index.counted()
    _prune(index, counted)
    for path, folder in counted.items():
        out += _file_entries(index, path, folder, pattern, encoding, limit - len(out))
        if len(out) >= limit:
            break
    _encoded_of(index).trim(ENCODED_BYTES)
    return "[" + ",".join(out) + "]"


def register(server: TodoLanguageServer) -> None:
    @server.feature(types.WORKSPACE_SYMBOL)
    async def on_workspace_symbol(
        ls: TodoLanguageServer, params: types.WorkspaceSymbolParams
    ) -> RawJson:
        await ls.configuration.ready()  # the subscriptions come with the settings
        return RawJson(workspace_symbols(ls.workspace_index, ls.encoding, params.query))
