"""The project file: `todo-ls.toml` (or `.todo-ls.toml`) at the root of a workspace folder.

It holds the keys of the `todoLs` settings section, so entry points without an editor to ask
(`todo-ls hook`, `mcp`, `supervise`, `check`) read the same settings as the language server:

    markdownFiles = ["PLAN.md"]

    [supervisor]
    maxNoProgressNudges = 3

Editor settings override it key by key (`layered`). Reading it is plain TOML with no
validation: each entry point validates the merged result its own way (the language server with
pydantic, the hook without it, to start fast). Kept free of pydantic, pygls and httpx.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

FILE_NAMES = ("todo-ls.toml", ".todo-ls.toml")
MAX_BYTES = 1_000_000  # a settings file is small; a huge one is a mistake, not settings


class ProjectFile(NamedTuple):
    """The raw `todoLs` settings a workspace folder's project file holds.

    `settings` is empty when there is no file or it cannot be used; `error` then says why in
    one line naming the file (for a warning), and is None when there simply is no file.
    """

    settings: Mapping[str, Any] = {}  # one shared empty default: never changed in place
    path: Path | None = None
    error: str | None = None


def find(folder: Path) -> Path | None:
    """The project file of `folder`, `todo-ls.toml` first; None when there is neither."""
    for name in FILE_NAMES:
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def read(folder: Path) -> ProjectFile:
    """Read `folder`'s project file. Never raises: a broken file gives an `error` line."""
    path = find(folder)
    if path is None:
        return ProjectFile()
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            return ProjectFile(path=path, error=f"{path}: {size} bytes is too large to read")
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return ProjectFile(path=path, error=f"{path}: cannot read: {reason}")
    except tomllib.TOMLDecodeError as exc:
        return ProjectFile(path=path, error=f"{path}: not valid TOML: {exc}")
    # A `[todoLs]` table is accepted too, for users who copy the editor's section as it is.
    if set(data) == {"todoLs"} and isinstance(data["todoLs"], dict):
        data = data["todoLs"]
    return ProjectFile(settings=data, path=path)


def layered(base: Mapping[str, Any], override: object) -> dict[str, Any]:
    """`override` on top of `base`, key by key: nested tables merge, other values replace.

    Used with the project file as `base` and the editor's settings as `override`; a non-object
    `override` (no editor settings, or a malformed value) leaves `base` as it is, and the caller
    reports the malformed value itself.
    """
    merged: dict[str, Any] = dict(base)
    if not isinstance(override, Mapping):
        return merged
    for key, value in override.items():
        below = merged.get(key)
        if isinstance(value, Mapping) and isinstance(below, Mapping):
            merged[key] = layered(below, value)
        else:
            merged[key] = value
    return merged
