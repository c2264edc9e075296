"""Paths and globs of subscriptions (`markdownFiles`): expanding them against a folder.

Kept apart from the workspace index so that the Stop hook, which starts at every turn end,
can expand a project's subscriptions without loading the index and what it needs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

_GLOB_MAGIC = re.compile(r"[*?\[]")
_SKIP_DIRS = frozenset({".git", "node_modules", ".hg", ".svn"})

__all__ = ["expand_patterns", "glob_regex", "normalize"]


def normalize(path: str | Path) -> Path:
    """Absolute and normalised (`..` folded) without resolving symlinks, so that a path keeps
    the spelling the editor uses for it."""
    return Path(os.path.normpath(os.path.abspath(path)))


def expand_patterns(base: Path, patterns: Iterable[str]) -> Iterator[Path]:
    """Files named by `patterns` (paths or globs, relative to `base` unless absolute).

    A plain path is yielded even when the file does not exist (it is picked up when created).
    Globs walk the tree without following symlinked directories, so loops cannot hang it.
    """
    for pattern in patterns:
        full = normalize(base / pattern)
        if not _GLOB_MAGIC.search(pattern):
            yield full
            continue
        parts = Path(os.path.abspath(base / pattern)).parts
        fixed = next(i for i, part in enumerate(parts) if _GLOB_MAGIC.search(part))
        root = Path(*parts[:fixed])
        regex = glob_regex("/".join(parts[fixed:]))
        yield from _walk_matches(root, regex)


def _walk_matches(root: Path, regex: re.Pattern[str]) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        rel_dir = os.path.relpath(dirpath, root)
        prefix = "" if rel_dir == "." else Path(rel_dir).as_posix() + "/"
        for name in sorted(filenames):
            if regex.fullmatch(prefix + name):
                yield normalize(os.path.join(dirpath, name))


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
