"""`workspace/symbol`: the open items of every subscribed file of every workspace folder that
fuzzy-match the query (checklist.fuzzy), the cross-file "all open todos" picker (VS Code
`Ctrl+T`, Telescope / fzf-lua / snacks `lsp_workspace_symbols`).

Answered from an index, not from the disk: each parsed file's searchable items are kept for as
long as that parse is the one the workspace counts (the parse the counts' change deltas were
taken from, docs/performance.md "Scale"), so an item the agent ticked on disk is gone from the
next answer once the server has heard of the change (a watched-file event or the poll), as it
is from the status. The index is compact (one lower-cased text of names per file, no parse):
the workspace keeps only some closed files' parses. A ranked query searches one text joining
the texts of the files it scans first (`_Searched`, kept until `WorkspaceIndex.changes` moves:
no file's freshness is checked per query) in C, and encodes only the entries it returns, each
once per parse; it reads no file nor stats one,
but for encoding a file's first entries when the workspace dropped its parse (re-read as
`WorkspaceIndex.state` does, checked against the stamp the entry was built from). The encoded
entries are kept within `ENCODED_BYTES`, the files least recently answered from dropped first:
kept for every item of every file, a long session's varied queries would hold the JSON of the
whole workspace (docs/performance.md, "Memory").
Each entry's `containerName` is `path › heading` (the path relative to its workspace folder).
An empty query lists at most `LIMIT` entries in folder, file and document order; any other
query answers its best `RANKED_LIMIT` matches, best first (`_ranked`).
"""

from __future__ import annotations

import re
import sys
import weakref
from array import array
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Collection, Generator
from json.encoder import encode_basestring_ascii
from pathlib import Path
from typing import Any, AnyStr

from lsprotocol import types

from todo_ls import checklist  # its functions load on first use
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.document_symbols import ITEM_KIND
from todo_ls.server.positions import Encoding
from todo_ls.server.wire import RawJson
from todo_ls.workspace import FileState, Folder, WorkspaceIndex

LIMIT = 1000  # entries of an empty query's answer: the design's "at most 1,000"
# Entries of a query's answer, best first: an editor's picker shows a screenful and re-filters
# as the user types on, so the best hundred or so are what it needs (docs/performance.md).
RANKED_LIMIT = 128
# Matches ranked per query at most: the ranking stays cheap on a million items.
CANDIDATES = 384
# Open items searched for runs before the answer may fill up with scattered letters: the
# ranking is exact up to there, and a query's cost bounded past it (docs/performance.md).
SCAN = 50_000
# checklist.match_rank's first two and last: the query starts the name, starts a word of
# it, its letters are in order but not one run.
PREFIX, WORD, SCATTERED = 0, 1, 3
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


def symbols_of(
    index: WorkspaceIndex,
    path: Path,
    folder: Folder,
    entries: dict[Path, FileSymbols] | None = None,
) -> FileSymbols | None:
    """The searchable items of `path` (a file of `folder`) as the counts hold it, built on
    first use and after each change; None for a file without items. `entries`: the index's
    (`_entries`), when the caller has it at hand."""
    if entries is None:
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


class _StaleFile(Exception):
    """A file changed on disk since its index entry was built (unheard of): its entry is
    dropped and the query asked again."""


def _encode(
    index: WorkspaceIndex, path: Path, found: FileSymbols, ns: list[int], encoding: Encoding
) -> list[str]:
    """The entries of items `ns` of one file, in that order."""
    out: list[str] = []
    parsed: tuple[FileState, _Parsed] | None = None
    for n in ns:
        entry = found.cached(n, encoding)
        if entry is None:
            if parsed is None:
                state = _fresh(index, path)  # a dropped parse is read again
                if index.token_of(state) != found.token:
                    _entries(index).pop(path, None)
                    raise _StaleFile
                parsed = (state, _Parsed(state))
            entry = found.entry(n, parsed[0], parsed[1], encoding)
        out.append(entry)
    if out:
        _encoded_of(index).used(path, found)
    return out


def _listed(index: WorkspaceIndex, encoding: Encoding, limit: int) -> list[str]:
    """The empty query's answer: the first `limit` open items in folder, file and document
    order (nothing to rank)."""
    out: list[str] = []
    for path, folder in index.counted().items():
        found = symbols_of(index, path, folder)
        if found is not None:
            ns = list(range(min(found.open_items.count, limit - len(out))))
            out += _encode(index, path, found, ns, encoding)
            if len(out) >= limit:
                break
    return out


# A candidate's rank key as one int (`rank_key`): sorting ints is several times cheaper than
# sorting tuples of tuples, and the ranking sorts up to `CANDIDATES` of them per keystroke.
_ORDER_BITS = 32  # the scan order: an item's index in `_Searched.starts`, or past them
_SIZE_BITS = 31  # a name's length (a file is at most 10 MB)


def rank_key(rank: int, shut: int, size: int, order: int) -> int:
    """The sort key of a match: `checklist.match_rank`, 0 for an open document else 1, the
    name's length, the scan order (unique per query), most significant first."""
    return (((rank << 1 | shut) << _SIZE_BITS | size) << _ORDER_BITS) | order


_ORDER_MASK = (1 << _ORDER_BITS) - 1
# What starts a word before a run: an ASCII character that is neither a letter nor a digit, as
# the searched text's type holds it (`str`, or `bytes` of the UTF-8 copy).
_WORD_BREAKS = frozenset(
    form for c in map(chr, range(128)) if not c.isalnum() for form in (c, c.encode("ascii"))
)

# One candidate: its rank key, the file's path and entry and the item's index in it.
_Candidate = tuple[int, Path, FileSymbols, int]


def _scattered(
    picked: list[_Candidate],
    path: Path,
    found: FileSymbols,
    shut: int,
    pattern: re.Pattern[str],
    needle: str,
    room: int,
    order: int,
) -> int:
    """Add at most `room` of `found`'s scattered matches to `picked` (their scan order
    counted from `order`); the room left."""
    for n, size in found.open_items.scattered(pattern, needle):
        picked.append((rank_key(SCATTERED, shut, size, order + len(picked)), path, found, n))
        room -= 1
        if not room:
            break
    return room


class _Searched:
    """The files a ranked query searches first, in scan order (open documents first, then
    folder, file and document order) up to the scan budget, with their items' texts joined
    into one, an item a line: a pass over them is one `str.find` or regex loop in C rather
    than one per file, and each match is found by one bisection. Kept while the index is
    unchanged (`WorkspaceIndex.changes`): a query then checks no file's freshness."""

    __slots__ = (
        *("changes", "file_of", "files", "first", "firsts", "opened", "rest", "scan", "starts"),
        *("text", "_utf8", "_backward", "_backward_utf8", "_keys"),
    )

    def __init__(self, index: WorkspaceIndex, scan: int) -> None:
        counted = index.counted()
        self.changes = index.changes
        self.scan = scan
        first = {p for p in index.open_paths() if p in counted}
        order: list[tuple[Path, Folder]] = list(counted.items())
        if first:
            order = [(p, counted[p]) for p in counted if p in first]
            order += [(p, f) for p, f in counted.items() if p not in first]
        self.first = first
        entries = _entries(index)
        # What the run pass searches: the files holding the first `scan` open items; each
        # item's start in `text`, the file it is of, and each file's first item.
        self.files: list[tuple[Path, FileSymbols]] = []
        # Lists, not arrays: bisecting an array makes an int object at each step.
        self.starts: list[int] = []
        self.file_of = array("l")
        self.firsts = array("l")
        self.opened = 0  # items of open documents (the first ones)
        texts: list[str] = []
        at = searched = taken = 0
        for path, folder in order:
            taken += 1
            found = symbols_of(index, path, folder, entries)
            if found is None:
                continue
            items = found.open_items
            if items.count:
                self.firsts.append(len(self.starts))
                self.file_of.extend(array("l", [len(self.files)]) * items.count)
                self.starts.extend([at + start for start in items.starts])
                self.files.append((path, found))
                if path in first:
                    self.opened += items.count
                texts.append(items.text)
                at += len(items.text) + 1
            searched += items.count
            if searched >= scan:
                break
        self.text = "\n".join(texts)
        self.starts.append(len(self.text) + 1)  # past the last item: its end is found alike
        # The files past the budget, visited one by one when the answer is not full.
        self.rest = order[taken:]
        self._utf8: tuple[bytes, list[int]] | None = None
        self._backward: str | None = None
        self._backward_utf8: bytes | None = None
        self._keys: list[int] | None = None

    def utf8(self) -> tuple[bytes, list[int]] | None:
        """`text` as UTF-8 and each item's start in it, when that is the smaller to scan
        (one non-ASCII name makes the whole `str` two or four bytes a character: the
        corpus's `漢字` doubles it); None when `text` is ASCII."""
        if self._utf8 is None:
            if self.text.isascii():
                return None
            data = self.text.encode("utf-8")
            starts = [0]
            starts.extend([m.end() for m in _LINE_END.finditer(data)])
            starts.append(len(data) + 1)
            if len(starts) != len(self.starts):  # a line end inside a name: never split
                return None
            self._utf8 = data, starts
        return self._utf8

    def keys(self) -> list[int]:
        """Each item's rank key for the rank 0 (`rank_key`: open document, name length, scan
        order), a match's key then being its item's plus its rank's: the run pass looks one
        up per match instead of computing it."""
        if self._keys is None:
            starts, opened, shut = self.starts, self.opened, rank_key(0, 1, 0, 0)
            self._keys = [
                ((starts[g + 1] - 1 - starts[g]) << _ORDER_BITS | g) + (shut if g >= opened else 0)
                for g in range(len(starts) - 1)
            ]
        return self._keys

    def backward(self) -> str:
        """`text` with each line read backward (`OpenItems.backward`): each item where it is
        in `text`, for a query that `scans_backward`."""
        if self._backward is None:
            self._backward = "\n".join(found.open_items.backward for _, found in self.files)
        return self._backward

    def backward_utf8(self) -> bytes:
        """`backward` as UTF-8: each item where it is in `utf8`'s text."""
        if self._backward_utf8 is None:
            self._backward_utf8 = self.backward().encode("utf-8")
        return self._backward_utf8

    def current(self, index: WorkspaceIndex, scan: int) -> bool:
        """Whether this still holds for a query of `index` with that budget."""
        return self.changes == index.changes and self.scan == scan

    def candidate(self, key: int) -> _Candidate:
        """The item a match's `key` names (its scan order is its index into `starts`)."""
        g = key & _ORDER_MASK
        k = self.file_of[g]
        path, found = self.files[k]
        return key, path, found, g - self.firsts[k]


_searched: weakref.WeakKeyDictionary[WorkspaceIndex, _Searched] = weakref.WeakKeyDictionary()


def _searched_of(index: WorkspaceIndex, scan: int) -> _Searched:
    index.counted()  # the changes told are applied first (they bump `changes`)
    found = _searched.get(index)
    if found is None or not found.current(index, scan):
        found = _searched[index] = _Searched(index, scan)
    return found


_LINE_END = re.compile(b"\n")


def _runs(
    searched: _Searched,
    hay: AnyStr,
    offsets: list[int],
    needle: str,
    picked: list[int],
    room: int,
) -> int:
    """Add the items holding `needle` as one run, in scan order, to `picked` (at most
    `room`); the room left. `hay` is the searched text, or it as UTF-8 for an ASCII needle
    (`_Searched.utf8`: the same matches, an ASCII needle never matching inside a multi-byte
    character), `offsets` its items' starts; a name's length is counted in characters."""
    wanted = _like(hay, needle)
    text, starts, keys = searched.text, searched.starts, searched.keys()
    find, size, at, breaks = hay.find, len(wanted), 0, _WORD_BREAKS
    # A run with a rare character is found by the regex engine's scan for it (`rare_run`).
    rare = None if "\n" in needle else checklist.rare_run(needle)
    search, back = (re.compile(_like(hay, rare[0])).search, rare[1]) if rare else (None, 0)
    word = rank_key(WORD, 0, 0, 0)
    while room:
        if search is None:
            found = find(wanted, at)
        else:
            match = search(hay, at)
            found = -1 if match is None else match.start() - back
        if found < 0:
            break
        g = bisect_right(offsets, found) - 1
        start, end = offsets[g], offsets[g + 1] - 1
        if found + size <= end:  # not across a line end
            key = keys[g]
            if found == start:
                pass  # PREFIX: 0
            elif hay[found - 1 : found] in breaks:
                key += word
            else:  # a later run may start a word (or a non-ASCII character is before)
                rank = checklist.match_rank(needle, text[starts[g] : starts[g + 1] - 1])
                key += rank_key(rank, 0, 0, 0)
            picked.append(key)
            room -= 1
        at = end + 1
    return room


def _scattered_all(
    searched: _Searched,
    hay: AnyStr,
    offsets: list[int],
    pattern: re.Pattern[AnyStr],
    runs: Collection[int],
    picked: list[int],
    room: int,
) -> int:
    """Add the items `pattern` matches that are not in `runs` (the items holding the query as
    one run, all of them), in scan order, to `picked` (at most `room`); the room left.
    `hay`, `offsets`: as `_runs` takes them, `pattern` of the same type (an ASCII query's
    character classes pass a multi-byte character's bytes as they pass the character)."""
    starts, opened = searched.starts, searched.opened
    # To the line's end: one match per item, found by one loop in C.
    line_end = "[^\n]*" if isinstance(hay, str) else b"[^\n]*"
    for found in re.compile(pattern.pattern + line_end).finditer(hay):
        g = bisect_right(offsets, found.start()) - 1
        if g not in runs:
            size = starts[g + 1] - 1 - starts[g]
            picked.append(rank_key(SCATTERED, g >= opened, size, g))
            room -= 1
            if not room:
                break
    return room


def _like(hay: AnyStr, needle: str) -> AnyStr:
    """`needle` as the type of `hay` (ASCII when that is bytes)."""
    return needle if isinstance(hay, str) else needle.encode("ascii")


def _ranked(
    index: WorkspaceIndex,
    encoding: Encoding,
    query: str,
    limit: int,
    candidates: int,
    scan: int,
) -> list[str]:
    """The best `limit` matches of `query` (docs/performance.md "`workspace/symbol` ranked"):
    the first `candidates` items holding the query as one run, in scan order (open documents
    first, then folder, file and document order), searched in the files holding the first
    `scan` open items; when they are fewer than `limit`, the first items of those files whose
    letters are scattered, as many as it lacks, then the next files' matches (runs, then
    scattered, file by file) until the answer is full; ranked by `checklist.match_rank`, then
    open documents, shorter names, scan order."""
    needle = checklist.substring_needle(query)
    pattern = checklist.fuzzy_pattern(query)
    if pattern is None:
        return []
    searched = _searched_of(index, scan)
    matched: list[int] = []
    # An ASCII query (what is typed, mostly) scans the smaller UTF-8 text when there is one.
    utf8 = searched.utf8() if query.isascii() else None
    if utf8 is not None:
        _runs(searched, utf8[0], utf8[1], needle, matched, candidates)
    else:
        _runs(searched, searched.text, searched.starts, needle, matched, candidates)
    # Too few runs: the scattered letters fill the answer up, first from the files searched
    # (ranked among as many as it lacks, the fuzzy regex being the costly pass), then, past
    # the scan budget, from the next files' runs and scattered letters alike.
    room = limit - len(matched)
    if room > 0:  # then the run pass went through the whole text: `matched` is every run
        runs = {key & _ORDER_MASK for key in matched} if matched else ()
        # Lines read backward when that makes the regex engine try fewer starts (same lines).
        backward = checklist.scans_backward(query)
        scattered = checklist.fuzzy_pattern(query, backward) if backward else pattern
        assert scattered is not None
        if utf8 is not None:
            hay = searched.backward_utf8() if backward else utf8[0]
            as_bytes = re.compile(scattered.pattern.encode("ascii"))
            room = _scattered_all(searched, hay, utf8[1], as_bytes, runs, matched, room)
        else:
            text = searched.backward() if backward else searched.text
            room = _scattered_all(searched, text, searched.starts, scattered, runs, matched, room)
    matched.sort()
    picked = [searched.candidate(key) for key in matched[:limit]]
    if room > 0 and searched.rest:
        order = len(searched.starts)  # past every searched item's
        first = searched.first
        entries = _entries(index)
        for path, folder in searched.rest:
            found = symbols_of(index, path, folder, entries)
            if found is None:
                continue
            shut = 0 if path in first else 1
            for n, rank, size in found.open_items.runs(needle):
                picked.append((rank_key(rank, shut, size, order + len(picked)), path, found, n))
                room -= 1
                if not room:
                    break
            if room:
                room = _scattered(picked, path, found, shut, pattern, needle, room, order)
            if not room:
                break
    best = sorted(picked)[:limit]
    return _encode_best(index, best, encoding)


def _encode_best(index: WorkspaceIndex, best: list[_Candidate], encoding: Encoding) -> list[str]:
    """The entries of `best`, in that order (each file marked used once)."""
    out: list[str] = []
    used: dict[Path, FileSymbols] = {}
    for _, path, found, n in best:
        entry = found.cached(n, encoding)
        if entry is None:
            entry = _encode(index, path, found, [n], encoding)[0]
        else:
            used[path] = found
        out.append(entry)
    encoded = _encoded_of(index)
    for path, found in used.items():
        encoded.used(path, found)
    return out


def workspace_symbols(
    index: WorkspaceIndex,
    encoding: Encoding,
    query: str,
    limit: int | None = None,
    candidates: int = CANDIDATES,
    scan: int = SCAN,
) -> str:
    """The matching open items as a JSON array of `SymbolInformation`: for an empty query the
    first `limit` (default `LIMIT`) in folder, file and document order, else the best `limit`
    (default `RANKED_LIMIT`) of at most `candidates` matches, best first."""
    empty = checklist.fuzzy_pattern(query) is None
    cap = limit if limit is not None else LIMIT if empty else RANKED_LIMIT
    _prune(index, index.counted())
    for _ in range(3):
        try:
            if empty:
                out = _listed(index, encoding, cap)
            else:
                out = _ranked(index, encoding, query, cap, max(candidates, cap), scan)
            break
        except _StaleFile:
            # That file's entry was dropped: the next pass reads what it holds now.
            _searched.pop(index, None)
            continue
    else:
        out = []
    _encoded_of(index).trim(ENCODED_BYTES)
    return "[" + ",".join(out) + "]"


def register(server: TodoLanguageServer) -> None:
    @server.feature(types.WORKSPACE_SYMBOL)
    def on_workspace_symbol(
        ls: TodoLanguageServer, params: types.WorkspaceSymbolParams
    ) -> Generator[Any, Any, RawJson]:
        # A generator, not a coroutine: pygls runs it inline and answers in the same turn of
        # the event loop when the settings are in, with no task to make and schedule (a
        # picker asks on every keystroke). Else it waits for them: the subscriptions come
        # with the settings.
        if not ls.configuration.is_ready:
            yield ls.configuration.ready, (), {}
        return RawJson(workspace_symbols(ls.workspace_index, ls.encoding, params.query))
