"""The project file: `todo-ls.toml` (or `.todo-ls.toml`) at the root of a workspace folder.

It holds the keys of the `todoLs` settings section, so entry points without an editor to ask
(`todo-ls hook`, `mcp`, `supervise`, `check`) read the same settings as the language server:

    markdownFiles = ["PLAN.md"]

    [supervisor]
    maxNoProgressNudges = 3

Editor settings override it key by key (`layered`). Reading it is plain TOML with no
validation: each entry point validates the merged result its own way (the language server with
pydantic, the hook without it, to start fast). Kept free of pydantic, pygls and httpx.

The file is repository content, not the user's choice (docs/security.md): `read` drops the keys
that say where todo-ls connects, what it sends or where it writes (`USER_ONLY`), each with one
line in `ignored`, so no entry point can forget to. Its `markdownFiles` stay inside the folder
when they are expanded (`todo_ls.globs.expand_inside`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

FILE_NAMES = ("todo-ls.toml", ".todo-ls.toml")
MAX_BYTES = 1_000_000  # a settings file is small; a huge one is a mistake, not settings
# Settings only the user sets (editor settings, initializationOptions, the command line, the
# environment): a cloned repository must not pick the server that gets the password, the
# variable the password is read from, or the folder written to. Both spellings pydantic
# accepts (the camelCase alias and the field name).
USER_ONLY: tuple[tuple[str, ...], ...] = (
    ("supervisor", "url"),
    ("supervisor", "host"),
    ("supervisor", "passwordEnv"),
    ("supervisor", "password_env"),
    ("stateDir",),
    ("state_dir",),
)


class ProjectFile(NamedTuple):
    """The raw `todoLs` settings a workspace folder's project file holds.

    `settings` is empty when there is no file or it cannot be used; `error` then says why in
    one line naming the file (for a warning), and is None when there simply is no file.
    """

    settings: Mapping[str, Any] = {}  # one shared empty default: never changed in place
    path: Path | None = None
    error: str | None = None
    ignored: tuple[str, ...] = ()  # one warning line per `USER_ONLY` key the file set


def _without_user_only(data: Mapping[str, Any], path: Path) -> tuple[dict[str, Any], list[str]]:
    """`data` without the `USER_ONLY` keys, and one warning naming each key it held."""
    kept: dict[str, Any] = dict(data)
    ignored: list[str] = []
    for key_path in USER_ONLY:
        node: Any = kept
        for key in key_path[:-1]:
            below = node.get(key)
            if not isinstance(below, Mapping):
                node = None
                break
            copy = dict(below)  # `data` stays as it was read
            node[key] = copy
            node = copy
        if node is None or key_path[-1] not in node:
            continue
        del node[key_path[-1]]
        ignored.append(
            f"{path}: ignoring todoLs.{'.'.join(key_path)}: a project file may not choose "
            "where todo-ls connects, what it sends or where it writes; set it in your editor's "
            "settings, on the command line or in the environment"
        )
    return kept, ignored


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
    settings, ignored = _without_user_only(data, path)
    return ProjectFile(settings=settings, path=path, ignored=tuple(ignored))


def _holds(raw: object, path: tuple[str, ...]) -> bool:
    """`raw` has a value at the key path `path`."""
    node = raw
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return False
        node = node[key]
    return True


def origin(
    project: ProjectFile, override: object
) -> Callable[[tuple[str, ...]], str | None] | None:
    """For `model.load_settings(layered(project.settings, override), origin)`: names the
    project file as the source of a key path `override` does not set, so a bad value there
    is reported with the file. None when there is no file."""
    if project.path is None:
        return None
    name = str(project.path)

    def source(path: tuple[str, ...]) -> str | None:
        return None if _holds(override, path) else name

    return source


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
