"""Paths and globs of subscriptions (`markdownFiles`): expanding them against a folder.

Kept apart from the workspace index so that the Stop hook, which starts at every turn end,
can expand a project's subscriptions without loading the index and what it needs.

A project file's patterns are repository content: `expand_inside` keeps them inside their
folder, by spelling (`..`, an absolute path elsewhere) and by real path (a symlink out), and
says what it left out (docs/security.md).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

_GLOB_MAGIC = re.compile(r"[*?\[]")
# Never searched for checklists: version control data and installed packages.
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules"})

__all__ = [
    "SKIP_DIRS",
    "Confinement",
    "Expansion",
    "Matcher",
    "expand_inside",
    "expand_patterns",
    "glob_regex",
    "leaves",
    "normalize",
    "resolves_inside",
    "split_glob",
    "walk_files",
]


def normalize(path: str | Path) -> Path:
    """Absolute and normalised (`..` folded) without resolving symlinks, so that a path keeps
    the spelling the editor uses for it."""
    return Path(os.path.normpath(os.path.abspath(path)))


def expand_patterns(base: Path, patterns: Iterable[str]) -> Iterator[Path]:
    """Files named by `patterns` (paths or globs, relative to `base` unless absolute).

    A plain path is yielded even when the file does not exist (it is picked up when created).
    Globs walk the tree with `walk_files`: symlinked folders once each, so a loop ends.
    """
    for pattern in patterns:
        yield from _expand_one(base, pattern, None)


class Expansion(NamedTuple):
    """What `expand_inside` found, and one line per thing it left out (for a warning)."""

    paths: list[Path]
    outside: list[str]


def leaves(base: Path, pattern: str) -> bool:
    """`pattern` names a place outside `base` by its spelling alone: an absolute path
    elsewhere, or `..` climbing out."""
    root = normalize(base)
    full = normalize(root / pattern)
    return full != root and root not in full.parents


def expand_inside(base: Path, patterns: Iterable[str]) -> Expansion:
    """`expand_patterns` for patterns the folder `base` itself supplies (its project file):
    only what stays inside `base` once symlinks are resolved. A pattern that leaves it is
    skipped whole, a matched file whose real path is elsewhere is dropped, and a glob does not
    walk into a symlinked folder outside (nor the whole disk behind one)."""
    real_base = os.path.realpath(base)
    paths: list[Path] = []
    outside: list[str] = []
    for pattern in patterns:
        if leaves(base, pattern):
            outside.append(f"ignoring markdownFiles entry {pattern!r}: it is outside the folder")
            continue

        def out(path: str, pattern: str = pattern) -> None:
            shown = Path(os.path.relpath(path, base)).as_posix()
            outside.append(
                f"ignoring {shown} (markdownFiles entry {pattern!r}): it leads out of the "
                "folder through a symlink"
            )

        for path in _expand_one(base, pattern, Confinement(real_base, out)):
            if _inside(real_base, os.path.realpath(path)):
                paths.append(path)
            else:
                out(str(path))
    return Expansion(paths, outside)


class Confinement(NamedTuple):
    """Where a walk must stay (a real path), and what to call with a folder it skips."""

    real_root: str
    skipped: Callable[[str], None]


def _inside(real_base: str, real: str) -> bool:
    return real == real_base or real.startswith(real_base.rstrip(os.sep) + os.sep)


def resolves_inside(base: Path, path: Path) -> bool:
    """Whether `path` is in `base` once symlinks are resolved in both."""
    return _inside(os.path.realpath(base), os.path.realpath(path))


def split_glob(base: Path, pattern: str) -> tuple[Path, re.Pattern[str]] | None:
    """A glob's fixed root (where its walk starts) and the regex its files' `/`-separated
    paths below that root must match; None for a plain path."""
    if not _GLOB_MAGIC.search(pattern):
        return None
    parts = Path(os.path.abspath(base / pattern)).parts
    fixed = next(i for i, part in enumerate(parts) if _GLOB_MAGIC.search(part))
    return Path(*parts[:fixed]), glob_regex("/".join(parts[fixed:]))


def _expand_one(base: Path, pattern: str, within: Confinement | None) -> Iterator[Path]:
    """The files of one pattern; with `within`, a glob's walk stays in it."""
    split = split_glob(base, pattern)
    if split is None:
        yield normalize(base / pattern)
        return
    yield from _walk_matches(split[0], split[1], within)


def walk_files(root: str | os.PathLike[str], within: Confinement | None = None) -> Iterator[str]:
    """Every file below `root`, folder by folder in sorted order, outside `SKIP_DIRS`.

    Symlinked folders are followed, each real folder visited once, so a link loop ends; with
    `within`, a folder whose real path is outside its root is skipped (and reported to it)."""
    seen: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        real = os.path.realpath(dirpath)
        if within is not None and not _inside(within.real_root, real):
            within.skipped(dirpath)
            dirnames.clear()
            continue
        if real in seen:
            dirnames.clear()
            continue
        seen.add(real)
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            yield os.path.join(dirpath, name)


def _walk_matches(root: Path, regex: re.Pattern[str], within: Confinement | None) -> Iterator[Path]:
    # The walk's paths all start with `root` and a separator: sliced, not `relpath`'d (a
    # third of expanding 20,000 files).
    skip = len(str(root).rstrip(os.sep)) + 1
    for path in walk_files(root, within):
        rel = path[skip:] if os.sep == "/" else path[skip:].replace(os.sep, "/")
        if regex.fullmatch(rel):
            yield Path(os.path.normpath(path))


class Matcher:
    """Whether a file belongs to the expansion of a folder's patterns, without walking:
    `expand_patterns` (or, `confined`, `expand_inside`) of `patterns` against `base` would
    yield `path` if it exists. Lets a file event update an expansion in place."""

    def __init__(self, base: Path, patterns: Iterable[str], *, confined: bool = False) -> None:
        self._base = base
        self._confined = confined
        self._plain: set[Path] = set()
        self._globs: list[tuple[Path, re.Pattern[str]]] = []
        for pattern in patterns:
            if confined and leaves(base, pattern):
                continue
            split = split_glob(base, pattern)
            if split is None:
                self._plain.add(normalize(base / pattern))
            else:
                self._globs.append(split)

    def plain(self, path: Path) -> bool:
        """`path` is named by a plain (glob-free) pattern: it is subscribed even when missing."""
        return path in self._plain

    def __call__(self, path: Path) -> bool:
        """`path` (normalized) is named by a plain pattern or matched by a glob's walk."""
        if path in self._plain:
            return not self._confined or resolves_inside(self._base, path)
        for root, regex in self._globs:
            rel = os.path.relpath(path, root)
            if rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
                continue
            rel = Path(rel).as_posix()
            # The walk never enters these folders, whatever the glob says.
            if any(part in SKIP_DIRS for part in rel.split("/")[:-1]):
                continue
            if regex.fullmatch(rel):
                return not self._confined or resolves_inside(self._base, path)
        return False


def glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a `/`-separated glob: `*` and `?` stay in one path segment, `**` spans any
    number of segments, `[...]` is a character class (`[!...]` negated)."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        char = pattern[i]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : end].replace("\\", "\\\\")
            out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out))
