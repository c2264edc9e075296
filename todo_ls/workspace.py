"""Workspace folders, subscriptions and a freshness-checked cache of parsed checklists.

No pygls here: the language server feeds in the folders, the settings, the editor's open
documents and an optional store, and reads back the effective subscription set per folder and
the parsed state of any subscribed file.

- Effective subscriptions of a folder = `settings.markdownFiles` (paths or globs relative to
  the folder) ∪ files subscribed by command − files unsubscribed by command. A subscribed file
  that does not exist is valid (0 items, `missing`) and is picked up when it appears.
  `markdownFiles` from the folder's project file are repository content: they stay inside the
  folder, symlinks resolved (`globs.expand_inside`); the user's settings and commands may name
  any file.
- A file's parse is cached; before each use the cache re-checks size and mtime of an unopened
  file, so a file the agent edited on disk is never stale. The editor's text wins while the
  file is open in the editor. Only the open documents' parses are always kept; closed files'
  parses are kept least recently used first out within `CLOSED_PARSE_BYTES` (`ParseCache`),
  and every other file is known by its summary alone (`_known`) until a request needs its
  items, which reads and parses it again (docs/performance.md, "Memory").
- The command-made part of the subscriptions lives in the store when there is one; without it
  (or when it fails) it is kept in memory for the session.
- Counting a file needs its summary only: a file not open, not parsed yet and whose size and
  mtime are those of a persisted summary (`warm`, file_index.py) is counted from it without
  being read; each summary read from disk goes to the `SummarySink` to be persisted.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import logging
import os
import sys
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

# urllib.request's url2pathname on Windows, without its import of http.client and email
# (~30 ms of the server's cold start).
from nturl2path import url2pathname
from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlsplit

from todo_ls import checklist  # its functions load on first use
from todo_ls.checklist import OPEN_STATES, Checklist, FileItem, Progress, StateRegistry
from todo_ls.checklist.lines import split_lines
from todo_ls.disk import DiskError, read_text
from todo_ls.disk_scan import stamp
from todo_ls.file_index import Known, usable
from todo_ls.globs import Matcher, expand_inside, leaves, walk_files

# Re-exported: the server and the tests use them from here.
from todo_ls.globs import expand_patterns as expand_patterns
from todo_ls.globs import glob_regex as glob_regex
from todo_ls.globs import normalize as normalize
from todo_ls.path_checks import URI_SCHEME
from todo_ls.workspace_counts import FileSummary, FolderCounts

log = logging.getLogger(__name__)

_EMPTY = Checklist(items=(), headings=(), plain_items=())

# What the parses of closed files may hold, in (estimated) bytes: a 50-item note's parse costs
# ~14 KB, so this keeps a few thousand of them; past it a request re-reads the file (a parse of
# such a note is ~0.3 ms). 20,000 kept parses were 275 MB (docs/performance.md, "Memory").
CLOSED_PARSE_BYTES = 32 * 2**20

# Per item and per heading of a parse, beside its text: the item object, its strings, the
# plain-text views (measured with tracemalloc on bench/corpus.py notes).
_ITEM_BYTES = 200
_HEADING_BYTES = 250
_STATE_BYTES = 600
_LINE_BYTES = sys.getsizeof("") + 8  # a line's str header and its slot in the list
_LIST_BYTES = sys.getsizeof([])

# Tokens of open documents' parses: unique, so no later parse is taken for them.
_open_tokens = itertools.count(1)


class SubscriptionStore(Protocol):
    """The part of `todo_ls.store.Store` the workspace uses."""

    def subscription_overrides(self, workspace: str) -> _Overrides: ...

    def subscribe(self, workspace: str, path: str) -> None: ...

    def unsubscribe(self, workspace: str, path: str) -> None: ...


class _Overrides(Protocol):
    @property
    def added(self) -> frozenset[str]: ...

    @property
    def removed(self) -> frozenset[str]: ...

    @property
    def skipped(self) -> tuple[str, ...]: ...


class SummarySink(Protocol):
    """Where the summaries of files read from disk go to be persisted (server: the store
    thread); `None` for a file that is gone. Called on the index's thread: must not block."""

    def __call__(self, path: Path, known: Known | None) -> None: ...


class SubscriptionError(ValueError):
    """A subscribe/unsubscribe request that cannot be honoured (message is for the user)."""


def uri_to_path(uri: str) -> Path | None:
    """The absolute, normalised filesystem path of a `file:` URI, else None."""
    parts = urlsplit(uri)
    if parts.scheme != "file":
        return None
    raw = url2pathname(parts.path) if os.name == "nt" else unquote(parts.path)
    if parts.netloc and parts.netloc != "localhost":
        raw = f"//{parts.netloc}{raw}"
    return normalize(raw) if raw else None


def _parts(path: Path) -> tuple[str, ...]:
    return path.parts


def path_to_uri(path: Path) -> str:
    """A `file:` URI for an absolute path."""
    return path.as_uri()


def innermost_folder(path: str | None, folders: Iterable[str]) -> str | None:
    """The deepest of `folders` (paths) that is `path` or holds it, normalized; None for none."""
    if not path:
        return None
    return _innermost_folder(path, tuple(folders))


@functools.lru_cache(maxsize=4096)
def _innermost_folder(path: str, folders: tuple[str, ...]) -> str | None:
    # Asked for every session at every status update and evaluation (hundreds of times per
    # second on a busy stream), about a handful of directories: `normpath` is worth caching.
    path = os.path.normpath(path)
    best: str | None = None
    for folder in folders:
        root = os.path.normpath(folder)
        inside = path == root or path.startswith(root.rstrip(os.sep) + os.sep)
        if inside and (best is None or len(root) > len(best)):
            best = root
    return best


@dataclass(frozen=True)
class Folder:
    """A workspace folder. `key` identifies it in the store (its absolute path)."""

    uri: str
    path: Path

    @property
    def key(self) -> str:
        return str(self.path)

    @classmethod
    def from_uri(cls, uri: str) -> Folder | None:
        """The folder for a `file:` URI, None for other schemes."""
        path = uri_to_path(uri)
        return cls(uri, path) if path is not None else None

    @classmethod
    def from_path(cls, path: Path) -> Folder:
        return cls(path_to_uri(path), path)

    def relative(self, path: Path) -> str:
        """`path` relative to the folder with `/` separators (`../` when outside)."""
        return Path(os.path.relpath(path, self.path)).as_posix()

    def contains(self, path: Path) -> bool:
        return path == self.path or self.path in path.parents


class FileState:
    """One parsed file: the editor's text when open, else the file on disk."""

    def __init__(
        self,
        path: Path,
        uri: str,
        text: str,
        checklist: Checklist,
        *,
        version: int | None = None,
        missing: bool = False,
        error: str | None = None,
        stamp: tuple[int, int] | None = None,
        lines: list[str] | None = None,
    ) -> None:
        self.path = path
        self.uri = uri
        self.text = text
        self.checklist = checklist
        self.version = version  # editor version of an open document, None for disk
        self.missing = missing
        self.error = error  # why the file could not be read (too large, not UTF-8, ...)
        self.stamp = stamp  # (mtime_ns, size) of the disk text parsed
        # Equal for two parses of the same text by the same index (what is derived from a
        # parse, such as the symbol index's entries, stays valid across a re-read): the
        # disk stamp, or a fresh number for an editor's text. The index adds its epoch.
        self.token: object = stamp if version is None else -next(_open_tokens)
        if lines is not None:  # already split by the caller: fills the cached property
            self.__dict__["lines"] = lines

    @property
    def is_open(self) -> bool:
        return self.version is not None

    @cached_property
    def lines(self) -> list[str]:
        return split_lines(self.text)

    def cost(self) -> int:
        """Estimated bytes this parse holds (`ParseCache`'s measure)."""
        found = _STATE_BYTES + sys.getsizeof(self.text)
        found += _ITEM_BYTES * len(self.checklist.items)
        found += _HEADING_BYTES * len(self.checklist.headings)
        # Its lines counted whether split or not: a reader of a kept parse (an outline, a
        # workspace/symbol entry) may split them after the cache weighed it. Each line is a
        # str (header, its characters, at most the text's width) and a slot of the list.
        lines = self.__dict__.get("lines")
        if lines is not None:
            return found + sys.getsizeof(lines) + sum(map(sys.getsizeof, lines))
        ends = self.text.count("\n") + self.text.count("\r") + 1
        return found + sys.getsizeof(self.text) + _LINE_BYTES * ends + _LIST_BYTES

    @cached_property
    def progress(self) -> Progress:
        return checklist.document_progress(self.checklist)

    @cached_property
    def summary(self) -> FileSummary:
        """What the status shows of this file."""
        return FileSummary.of(self.uri, self.progress, missing=self.missing, error=self.error)

    def open_items(self, rel_path: str) -> list[FileItem]:
        """The open items as `path:line` references."""
        return [i for i in checklist.file_items(self.checklist, rel_path) if i.state in OPEN_STATES]


class ParseCache:
    """Parses by path: open documents' always, closed files' within `limit` estimated bytes,
    the least recently used dropped first (the last one put is kept whatever its size)."""

    def __init__(self, limit: int = CLOSED_PARSE_BYTES) -> None:
        self.limit = limit
        self.bytes = 0  # held by the closed files' parses
        self._open: dict[Path, FileState] = {}
        self._closed: OrderedDict[Path, tuple[FileState, int]] = OrderedDict()

    def get(self, path: Path) -> FileState | None:
        """The parse of `path` (now the most recently used), None when not kept."""
        found = self._open.get(path)
        if found is not None:
            return found
        entry = self._closed.get(path)
        if entry is None:
            return None
        self._closed.move_to_end(path)
        return entry[0]

    def put(self, path: Path, state: FileState) -> None:
        """Keep `state` as the parse of `path`, dropping the oldest closed ones past `limit`."""
        if self.get(path) is state:
            return
        self.pop(path)
        if state.is_open:
            self._open[path] = state
            return
        cost = state.cost()
        self._closed[path] = (state, cost)
        self.bytes += cost
        while self.bytes > self.limit and len(self._closed) > 1:
            _, (_, dropped) = self._closed.popitem(last=False)
            self.bytes -= dropped

    def pop(self, path: Path) -> None:
        """Drop the parse of `path`."""
        if self._open.pop(path, None) is None:
            entry = self._closed.pop(path, None)
            if entry is not None:
                self.bytes -= entry[1]

    def clear(self) -> None:
        self._open.clear()
        self._closed.clear()
        self.bytes = 0

    def __contains__(self, path: object) -> bool:
        return path in self._open or path in self._closed

    def __len__(self) -> int:
        return len(self._open) + len(self._closed)


# Membership changes past this many files at once re-sort a folder's list instead of bisecting.
_BISECT_LIMIT = 256


@dataclass(frozen=True)
class GlobPlan:
    """One folder's patterns to expand (`WorkspaceIndex.glob_plans`)."""

    folder: Folder
    patterns: tuple[str, ...]
    confined: bool


@dataclass(frozen=True)
class ExpandedGlobs:
    """What a `GlobPlan` expands to, each file's (mtime_ns, size) as the walk saw it (so
    counting a newly subscribed, unchanged file needs no stat), and the lines to warn about
    (patterns leaving a confined folder)."""

    paths: set[Path]
    stamps: Mapping[Path, tuple[int, int] | None] = field(default_factory=dict)
    outside: tuple[str, ...] = ()


def expand_globs(plans: Iterable[GlobPlan]) -> list[tuple[GlobPlan, ExpandedGlobs]]:
    """Expand each plan's patterns and stat what they name: work on the disk that touches no
    index, so it may run on a worker thread (the server's settings change)."""
    found: list[tuple[GlobPlan, ExpandedGlobs]] = []
    for plan in plans:
        base = plan.folder.path
        outside: tuple[str, ...] = ()
        if plan.confined:
            inside = expand_inside(base, plan.patterns)
            paths, outside = set(inside.paths), tuple(inside.outside)
        else:
            paths = set(expand_patterns(base, plan.patterns))
        found.append((plan, ExpandedGlobs(paths, {p: stamp(p) for p in paths}, outside)))
    return found


@dataclass
class _OpenDoc:
    uri: str
    version: int
    text: str
    lines: list[str] | None = None  # split_lines(text), when the caller has it


@dataclass
class _FolderSubs:
    added: set[Path] = field(default_factory=set)
    removed: set[Path] = field(default_factory=set)
    globbed: set[Path] | None = None  # expansion of settings.markdownFiles, None = stale
    # Whether a path belongs to `globbed`: file events update it in place (file_created).
    matcher: Matcher | None = None
    # The sorted effective set, None = stale: every status, watched-file event and request
    # asks for it, and sorting a thousand paths each time cost more than the rest of a status.
    effective: list[Path] | None = None


class WorkspaceIndex:
    """Folders, effective subscriptions and parsed files (see the module docstring)."""

    def __init__(
        self,
        store: SubscriptionStore | None = None,
        *,
        warn: Callable[[str], None] | None = None,
        parse_bytes: int = CLOSED_PARSE_BYTES,
    ) -> None:
        """`warn` gets one line, once, per subscription a project file named outside its
        folder and per unusable stored subscription (default: the log). `parse_bytes`
        bounds the closed files' parses kept (`ParseCache`)."""
        self._store = store
        self._warn = warn or log.warning
        self._folders: list[Folder] = []
        self._subs: dict[str, _FolderSubs] = {}
        self._patterns: list[str] = []
        self._folder_patterns: dict[str, list[str]] = {}
        self._confined: frozenset[str] = frozenset()
        self._default_confined = False
        self._warned: set[str] = set()  # said once: globs are expanded again and again
        self._registry = StateRegistry.default()
        self._open: dict[Path, _OpenDoc] = {}
        self._cache = ParseCache(parse_bytes)
        self._epoch = 0  # bumped when every parse is dropped (a new registry parses anew)
        # Bumped by every event that may change what the counts hold (`changes`).
        self._changes = 0
        # Counts per folder key, kept by each file's delta; None = rebuild on next use (the
        # subscription set changed). `_owner` names the folder counting each subscribed file
        # (the first that holds it), `_dirty` the files to read again before the next count.
        self._counts: dict[str, FolderCounts] | None = None
        self._owner: dict[Path, Folder] = {}
        self._dirty: set[Path] = set()
        # Each disk file's summary by the size and mtime it was read at (persisted ones from
        # `warm`): a count rebuild uses it instead of reading an unchanged file.
        self._known: dict[Path, Known] = {}
        self._sink: SummarySink | None = None
        self._globs_pending = False
        self._events_while_pending: list[tuple[bool, Path]] = []  # (created?, path)

    # --- configuration -------------------------------------------------------------------

    @property
    def folders(self) -> list[Folder]:
        return list(self._folders)

    @property
    def registry(self) -> StateRegistry:
        return self._registry

    def set_folders(self, folders: Iterable[Folder]) -> None:
        """Replace the workspace folders (command-made subscriptions are reloaded per folder)."""
        self._folders = list(dict.fromkeys(folders))
        self._subs = {
            f.key: self._subs.get(f.key) or self._load_overrides(f) for f in self._folders
        }
        self._counts = None

    def configure(
        self,
        patterns: Iterable[str],
        registry: StateRegistry,
        folder_patterns: Mapping[str, Sequence[str]] | None = None,
        *,
        confined: Collection[str] = (),
        default_confined: bool = False,
        defer_globs: bool = False,
    ) -> None:
        """Apply `markdownFiles` and the state registry (a new registry drops every parse).
        `folder_patterns` (by folder key) replace `patterns` for the folders it names.
        `confined` names the folders whose patterns come from their project file, and
        `default_confined` says the same of `patterns`: those stay inside the folder.

        Unchanged patterns keep their expansion (a settings change of anything else walks
        nothing). Changed ones are expanded again on next use, or, `defer_globs`, the old
        expansion stays in use until `install_globs` gets the new one (expanded elsewhere:
        `glob_plans`, `expand_globs`), which changes only the files that differ."""
        before = self._glob_inputs()
        self._patterns = list(patterns)
        self._folder_patterns = {k: list(v) for k, v in (folder_patterns or {}).items()}
        self._confined = frozenset(confined)
        self._default_confined = default_confined
        if registry != self._registry:
            self._registry = registry
            self.clear_cache()
            self._known.clear()  # counted with other states
        if self._glob_inputs() == before:
            return
        if defer_globs:
            self._globs_pending = True
        else:
            self.invalidate_globs()

    def _glob_inputs(self) -> object:
        return self._patterns, self._folder_patterns, self._confined, self._default_confined

    @property
    def globs_pending(self) -> bool:
        """`configure(defer_globs=True)` changed patterns whose expansion is not installed."""
        return self._globs_pending

    def glob_plans(self) -> list[GlobPlan]:
        """What expanding every folder's patterns takes, for `expand_globs` (on any thread)."""
        return [
            GlobPlan(f, tuple(self._folder_patterns.get(f.key, self._patterns)), self.confined(f))
            for f in self._folders
        ]

    def install_globs(self, expanded: Sequence[tuple[GlobPlan, ExpandedGlobs]]) -> None:
        """Use these expansions (`expand_globs` of `glob_plans`) in place of the old ones: only
        the files that differ change membership (and are counted or dropped). A plan that is
        no longer current (the settings changed again meanwhile) is ignored."""
        current = {plan.folder.key: plan for plan in self.glob_plans()}
        installed = 0
        for plan, found in expanded:
            if current.get(plan.folder.key) != plan:
                continue
            installed += 1
            for line in found.outside:
                self._warn_once(f"todo-ls: {plan.folder.path}: {line}")
            self._install(plan, found)
        if installed == len(current):
            self._globs_pending = False
            # Files created or deleted while the walk ran: it may have missed them.
            replay, self._events_while_pending = self._events_while_pending, []
            for created, path in replay:
                (self.file_created if created else self.file_deleted)(path)

    def _install(self, plan: GlobPlan, found: ExpandedGlobs) -> None:
        folder, paths = plan.folder, found.paths
        subs = self._subs[folder.key]
        old = subs.globbed
        subs.matcher = Matcher(folder.path, plan.patterns, confined=plan.confined)
        if old is None or self._counts is None:
            subs.globbed, subs.effective = paths, None
            return
        differ = old ^ paths
        if len(differ) > _BISECT_LIMIT:  # one sort beats many list insertions
            subs.globbed, subs.effective = paths, None
        else:
            for path in differ:
                change = old.discard if path in old else old.add
                self._change_membership(folder, path, functools.partial(change, path))
        for path in differ:
            self._reown(path, found.stamps)

    def patterns(self, folder: Folder) -> list[str]:
        """The `markdownFiles` of `folder` (of a confined folder: those spelled inside it)."""
        found = self._folder_patterns.get(folder.key, self._patterns)
        if self.confined(folder):
            return [p for p in found if not leaves(folder.path, p)]
        return list(found)

    def confined(self, folder: Folder) -> bool:
        """`folder`'s `markdownFiles` come from a project file, so they stay inside it."""
        if folder.key in self._folder_patterns:
            return folder.key in self._confined
        return self._default_confined

    def set_store(self, store: SubscriptionStore | None) -> None:
        """Use `store` for the command-made subscriptions from now on (reloads them)."""
        self._store = store
        self.reload_overrides()

    def reload_overrides(self) -> None:
        """Re-read the command-made subscriptions (another process may have changed them)."""
        self._subs = {f.key: self._load_overrides(f) for f in self._folders}
        self._counts = None

    def invalidate_globs(self) -> None:
        """Expand `markdownFiles` again on next use (files were created or deleted)."""
        for subs in self._subs.values():
            subs.globbed = None
            subs.effective = None
        self._counts = None

    def forget(self, path: Path) -> None:
        """Drop the cached parse of `path` (it is read again before the next count)."""
        self._cache.pop(path)
        self._dirty.add(path)
        self._changes += 1

    @property
    def changes(self) -> int:
        """A counter bumped by every event that may change which files are counted or the
        parse (`token`) of one (a file told changed, an editor's text, the subscriptions):
        while it stays the same, what `counted` and `token` gave still holds (a cache of
        anything built from them need not check each file again). Read it after `counted`."""
        return self._changes

    def warm(self, known: Mapping[Path, Known], sink: SummarySink | None) -> None:
        """Persisted summaries (file_index.load, with this index's registry) to count
        unchanged files from, and where to send the summaries of files read from now on."""
        for path, entry in known.items():
            self._known.setdefault(path, entry)
        self._sink = sink

    def known(self) -> Mapping[Path, Known]:
        """The summaries by size and mtime this index holds (persisted or read)."""
        return self._known

    def _remember(self, path: Path, state: FileState) -> None:
        """Keep (and persist) the summary of a disk read; a missing file's is dropped."""
        if state.is_open:
            return
        if state.stamp is None:
            if self._known.pop(path, None) is not None and self._sink is not None:
                self._sink(path, None)
            return
        entry = Known(state.stamp, state.summary)
        if self._known.get(path) != entry:
            self._known[path] = entry
            if self._sink is not None:
                self._sink(path, entry)

    def last_parsed(self, path: Path) -> FileState | None:
        """The parse of `path` last used (and so served to the client), not re-checked."""
        return self._cache.get(path)

    def clear_cache(self) -> None:
        self._cache.clear()
        self._epoch += 1
        self._changes += 1
        self._counts = None

    @property
    def parse_cache(self) -> ParseCache:
        """The parses kept (open documents' and a bounded number of closed files')."""
        return self._cache

    def token(self, path: Path) -> object | None:
        """What identifies the parse of `path` the counts hold, without reading the file (a
        closed file's parse may have been dropped): equal to `token_of` that parse or of a
        re-read of the same text; None when the index holds nothing of it."""
        cached = self._cache.get(path)
        if cached is not None:
            return self.token_of(cached)
        known = self._known.get(path)
        return (self._epoch, known.stamp) if known is not None and path in self._owner else None

    def token_of(self, state: FileState) -> object:
        """The token of a parse this index made (see `token`)."""
        return (self._epoch, state.token)

    # --- open documents ------------------------------------------------------------------

    def open_document(
        self, uri: str, version: int, text: str, lines: list[str] | None = None
    ) -> Path | None:
        """Record the editor's text of `uri` (and its `split_lines`, when already split);
        returns its path (None for non-file URIs)."""
        path = uri_to_path(uri)
        if path is not None:
            self._open[path] = _OpenDoc(uri, version, text, lines)
            self._dirty.add(path)
            self._changes += 1
        return path

    def close_document(self, uri: str) -> Path | None:
        path = uri_to_path(uri)
        if path is not None:
            self._open.pop(path, None)
            self.forget(path)
        return path

    def is_open(self, path: Path) -> bool:
        return path in self._open

    def open_paths(self) -> Collection[Path]:
        """The files open in the editor."""
        return self._open.keys()

    # --- subscriptions -------------------------------------------------------------------

    def subscribed(self, folder: Folder) -> list[Path]:
        """The effective subscription set of `folder`, sorted."""
        subs = self._subs.get(folder.key)
        if subs is None:
            return []
        if subs.effective is None:
            if subs.globbed is None:
                subs.globbed = set(self._expand(folder))
                subs.matcher = Matcher(
                    folder.path,
                    self._folder_patterns.get(folder.key, self._patterns),
                    confined=self.confined(folder),
                )
            # By parts: the order of `Path`'s own comparison for absolute paths (which bisection
            # keeps later), compared in C instead of Path.__lt__ (a quarter of a warm start).
            subs.effective = sorted((subs.globbed | subs.added) - subs.removed, key=_parts)
        return list(subs.effective)

    def _holds(self, folder: Folder, path: Path) -> bool:
        """`path` is in `folder`'s effective set (a set lookup, no sorted list)."""
        subs = self._subs.get(folder.key)
        if subs is None:
            return False
        if subs.globbed is None:
            self.subscribed(folder)
        assert subs.globbed is not None
        return (path in subs.globbed or path in subs.added) and path not in subs.removed

    def _change_membership(self, folder: Folder, path: Path, change: Callable[[], None]) -> None:
        """Apply `change` to `folder`'s sets, keeping its sorted effective list in step by
        bisection instead of sorting the folder again."""
        subs = self._subs[folder.key]
        before = self._holds(folder, path)
        change()
        after = self._holds(folder, path)
        if subs.effective is None or before == after:
            return
        at = bisect.bisect_left(subs.effective, path)
        if after:
            subs.effective.insert(at, path)
        elif at < len(subs.effective) and subs.effective[at] == path:
            del subs.effective[at]

    def _reown(
        self, path: Path, stamps: Mapping[Path, tuple[int, int] | None] | None = None
    ) -> None:
        """Count `path` in the first folder holding it now (or nowhere), by its delta; a
        newly counted file whose stamp (from `stamps`, taken off the loop) is its known
        summary's is counted from that, unread."""
        counts = self._counts
        if counts is None:
            return  # rebuilt on next use
        new = next((f for f in self._folders if self._holds(f, path)), None)
        old = self._owner.get(path)
        if old == new:
            return
        self._changes += 1
        if old is not None:
            counts[old.key].remove(path)
            del self._owner[path]
        if new is not None:
            self._owner[path] = new
            known = None
            if stamps and path in stamps and path not in self._open:
                cached = self._cache.get(path)
                if cached is None:
                    known = usable(self._known, path, stamps[path])
                elif cached.stamp is not None and cached.stamp == stamps[path]:
                    known = cached.summary
            if known is not None:
                counts[new.key].set(path, known)
            else:
                self._count(path, self.state(path))

    # --- file events ---------------------------------------------------------------------

    def file_created(self, path: Path) -> bool:
        """A file (or a folder of files) appeared on disk: each folder whose `markdownFiles`
        match it subscribes it from now on, without expanding the patterns again (the cost
        is the event's, not the workspace's). Returns whether `path` is subscribed now."""
        if self._globs_pending:
            self._events_while_pending.append((True, path))
        if os.path.isdir(path):
            found = [self.file_created(normalize(f)) for f in walk_files(path)]
            return any(found)
        if os.path.isfile(path):
            for folder in self._folders:
                subs = self._subs[folder.key]
                if subs.globbed is None or path in subs.globbed:
                    continue
                if subs.matcher is not None and subs.matcher(path):
                    self._change_membership(folder, path, functools.partial(subs.globbed.add, path))
            self._reown(path)
        self.forget(path)
        return any(self._holds(f, path) for f in self._folders)

    def file_deleted(self, path: Path) -> bool:
        """A file (or a folder) is gone from disk: the globs no longer match it (a file named
        by a plain path stays subscribed, as missing). Returns whether `path` was
        subscribed."""
        if self._globs_pending:
            self._events_while_pending.append((False, path))
        was = any(self._holds(f, path) for f in self._folders)
        gone = {path}
        for folder in self._folders:
            subs = self._subs[folder.key]
            if subs.globbed is None:
                continue
            if path not in subs.globbed:
                # Perhaps a folder: everything matched below it went with it.
                prefix = str(path).rstrip(os.sep) + os.sep
                below = {p for p in subs.globbed if str(p).startswith(prefix)}
                gone |= below
                was = was or bool(below)
            else:
                below = {path}
            for lost in below:
                if subs.matcher is not None and subs.matcher.plain(lost):
                    continue
                self._change_membership(folder, lost, functools.partial(subs.globbed.discard, lost))
        for lost in gone:
            self._reown(lost)
            self.forget(lost)
        return was

    def file_changed(self, path: Path) -> bool:
        """A file's content changed on disk: read again before the next count. Returns
        whether it is subscribed."""
        self.forget(path)
        return self.is_subscribed(path)

    def _expand(self, folder: Folder) -> list[Path]:
        patterns = self._folder_patterns.get(folder.key, self._patterns)
        if not self.confined(folder):
            return list(expand_patterns(folder.path, patterns))
        found = expand_inside(folder.path, patterns)
        for line in found.outside:
            self._warn_once(f"todo-ls: {folder.path}: {line}")
        return found.paths

    def _warn_once(self, message: str) -> None:
        if message not in self._warned:
            self._warned.add(message)
            self._warn(message)

    def all_subscribed(self) -> list[tuple[Folder, Path]]:
        """Every subscribed file with the folder it belongs to (first folder wins)."""
        seen: set[Path] = set()
        found = []
        for folder in self._folders:
            for path in self.subscribed(folder):
                if path not in seen:
                    seen.add(path)
                    found.append((folder, path))
        return found

    def command_subscribed(self) -> set[Path]:
        """The files subscribed by command in any folder (whether a glob names them too)."""
        return {path for subs in self._subs.values() for path in subs.added}

    def stamps(self) -> dict[Path, tuple[int, int] | None]:
        """(mtime_ns, size) of every subscribed file as last read (None: missing, or never
        read): the baseline of the disk re-check (disk_scan.py)."""
        found: dict[Path, tuple[int, int] | None] = {}
        for _, path in self.all_subscribed():
            cached = self._cache.get(path)
            if cached is not None:
                found[path] = cached.stamp if not cached.is_open else None
            else:
                known = self._known.get(path)
                found[path] = known.stamp if known is not None else None
        return found

    def folder_of(self, path: Path) -> Folder | None:
        """The innermost workspace folder holding `path`."""
        key = innermost_folder(str(path), [f.key for f in self._folders])
        return next((f for f in self._folders if f.key == key), None) if key else None

    def subscription_folder(self, path: Path) -> Folder | None:
        """The folder whose subscription set holds `path`, or None when it is not subscribed."""
        self._ensure_counts()
        return self._owner.get(path)

    def counted(self) -> Mapping[Path, Folder]:
        """Every subscribed file and the folder counting it, in `all_subscribed`'s order,
        current with every change the index was told of; kept, not built per call."""
        self._ensure_counts()
        return self._owner

    def is_subscribed(self, path: Path) -> bool:
        return self.subscription_folder(path) is not None

    def resolve_target(self, target: str) -> Path:
        """The file a subscribe/unsubscribe argument names: a `file:` URI, an absolute path,
        or a path relative to the (first) workspace folder that must stay inside it."""
        if URI_SCHEME.match(target):
            path = uri_to_path(target)
            if path is None:
                raise SubscriptionError(f"{target} is not a file URI")
            return path
        if os.path.isabs(target):
            return normalize(target)
        if not self._folders:
            raise SubscriptionError(f"{target} is relative, but there is no workspace folder")
        base = self._folders[0]
        path = normalize(base.path / target)
        if not base.contains(path):
            raise SubscriptionError(
                f"{target} is outside the workspace folder {base.path}; "
                "give its absolute path or URI to subscribe it"
            )
        return path

    def subscribe(self, path: Path) -> Folder:
        """Subscribe `path` in its folder (the first folder for a path outside all of them)."""
        folder = self._target_folder(path)
        subs = self._subs[folder.key]

        def change() -> None:
            subs.removed.discard(path)
            subs.added.add(path)

        self._change_membership(folder, path, change)
        self._reown(path)
        self._persist("subscribe", folder, path)
        return folder

    def unsubscribe(self, path: Path) -> Folder:
        """Unsubscribe `path` from every folder whose set holds it."""
        holders = [f for f in self._folders if self._holds(f, path)] or [self._target_folder(path)]
        for folder in holders:
            subs = self._subs[folder.key]

            def change(subs: _FolderSubs = subs) -> None:
                subs.added.discard(path)
                subs.removed.add(path)

            self._change_membership(folder, path, change)
            self._persist("unsubscribe", folder, path)
        self._reown(path)
        return holders[0]

    def _target_folder(self, path: Path) -> Folder:
        folder = self.folder_of(path) or (self._folders[0] if self._folders else None)
        if folder is None:
            raise SubscriptionError("there is no workspace folder to subscribe files in")
        return folder

    def _persist(self, action: str, folder: Folder, path: Path) -> None:
        if self._store is None:
            return
        try:
            getattr(self._store, action)(folder.key, str(path))
        except Exception as exc:  # the store is optional: keep the change in memory
            log.warning("could not store the %s of %s (kept in memory): %s", action, path, exc)

    def _load_overrides(self, folder: Folder) -> _FolderSubs:
        if self._store is None:
            return self._subs.get(folder.key) or _FolderSubs()
        try:
            found = self._store.subscription_overrides(folder.key)
        except Exception as exc:  # the store is optional: keep what is in memory
            log.warning("could not read stored subscriptions of %s: %s", folder.path, exc)
            return self._subs.get(folder.key) or _FolderSubs()
        for line in found.skipped:  # a bad stored row never breaks a read (docs/security.md)
            self._warn_once(f"todo-ls: {folder.path}: {line}")
        return _FolderSubs(
            {normalize(p) for p in found.added}, {normalize(p) for p in found.removed}
        )

    # --- parsed files --------------------------------------------------------------------

    def state(self, path: Path) -> FileState:
        """The parsed state of `path`: the editor's text when open, else a fresh disk read."""
        doc = self._open.get(path)
        cached = self._cache.get(path)
        if doc is not None:
            if cached is not None and cached.text is doc.text and cached.version == doc.version:
                return cached
            lines = doc.lines if doc.lines is not None else split_lines(doc.text)
            # A keystroke re-parses only its section (see checklist.incremental).
            parsed = (
                checklist.reparse(cached.checklist, cached.lines, lines, self._registry)
                if cached is not None
                else None
            )
            if parsed is None:
                parsed = checklist.parse(doc.text, self._registry)
            state = FileState(path, doc.uri, doc.text, parsed, version=doc.version, lines=lines)
        else:
            state = self._disk_state(path, cached)
        self._cache.put(path, state)
        self._dirty.discard(path)
        if state is not cached and self._counts is not None:
            self._count(path, state)
        return state

    # --- counts --------------------------------------------------------------------------

    def _count(self, path: Path, state: FileState) -> None:
        """Adjust the totals of the folder counting `path` by its new summary."""
        folder = self._owner.get(path)
        if folder is None or self._counts is None:
            return
        self._warn_unusable(state.error)
        self._remember(path, state)
        self._counts[folder.key].set(path, state.summary)

    def _warn_unusable(self, error: str | None) -> None:
        if error:
            self._warn(f"todo-ls skips {error}")

    def _summary(self, path: Path) -> FileSummary:
        """What counting `path` needs: a persisted summary when the file is neither open nor
        parsed and its size and mtime are unchanged (no read), else its parse."""
        if path not in self._open and path not in self._cache:
            found = usable(self._known, path, stamp(path))
            if found is not None:
                return found
        state = self.state(path)  # uncounted while `_counts` is None
        self._remember(path, state)
        return state.summary

    def build_counts(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Count every subscribed file afresh (each one's summary: persisted, cached or
        parsed); `progress(done, total)` after each file. Returns how many files."""
        self._owner = {path: folder for folder, path in self.all_subscribed()}
        self._changes += 1
        counts = {f.key: FolderCounts() for f in self._folders}
        self._dirty.clear()
        total = len(self._owner)
        for done, (path, folder) in enumerate(self._owner.items(), 1):
            summary = self._summary(path)
            self._warn_unusable(summary.error)
            counts[folder.key].set(path, summary)
            if progress is not None:
                progress(done, total)
        self._counts = counts
        return total

    def _ensure_counts(self) -> dict[str, FolderCounts]:
        """The counts per folder key, rebuilt when the subscriptions changed (each file is
        parsed once; a cached parse is only re-checked) and read again where files changed."""
        counts = self._counts
        if counts is None:
            self.build_counts()
            assert self._counts is not None
            counts = self._counts
        elif self._dirty:
            dirty, self._dirty = self._dirty, set()
            for path in dirty:
                if path in self._owner:
                    self.state(path)
        return counts

    def counts(self, folder: Folder) -> FolderCounts:
        """The counts of `folder`'s subscribed files, current with every change the index
        was told of (`forget`, the editor's documents)."""
        return self._ensure_counts().get(folder.key) or FolderCounts()

    def _disk_state(self, path: Path, cached: FileState | None) -> FileState:
        uri = cached.uri if cached is not None else path_to_uri(path)  # as_uri is slow
        try:
            st = path.stat()
        except OSError:
            return FileState(path, uri, "", _EMPTY, missing=True)
        stamp = (st.st_mtime_ns, st.st_size)
        if cached is not None and not cached.is_open and cached.stamp == stamp:
            return cached
        try:
            disk = read_text(path)
        except DiskError as exc:  # too large, binary, not UTF-8...: the file is skipped
            return FileState(path, uri, "", _EMPTY, error=str(exc), stamp=stamp)
        return FileState(
            path,
            uri,
            disk.text,
            checklist.parse(disk.text, self._registry),
            stamp=(disk.mtime_ns, disk.size),
        )

    def open_items(self, folder: Folder) -> list[FileItem]:
        """Open items of the folder's subscribed files, paths relative to the folder."""
        found: list[FileItem] = []
        for path in self.subscribed(folder):
            found += self.state(path).open_items(folder.relative(path))
        return found
