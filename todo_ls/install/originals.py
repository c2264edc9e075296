"""What a config file held before `todo-ls install` changed it, for a byte-exact uninstall.

A text edit and its reverse do not always meet byte for byte (an emptied container keeps the
newline the install put in it; a key the install added has no trace of being added). So the
install keeps the file's earlier text, and what it wrote, in the state folder; the uninstall
restores the earlier text when the file still holds exactly what the install wrote, and
otherwise knows at least which keys the install added.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from todo_ls.store import default_state_dir


@dataclass(frozen=True)
class Original:
    """A config file before the install, and after it."""

    existed: bool
    text: str  # "" when the file did not exist
    written: str  # what the install wrote
    folder_existed: bool = True


def _record_path(path: Path, env: Mapping[str, str]) -> Path:
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:24]
    return default_state_dir(env) / "install" / f"{digest}.json"


def load(path: Path, env: Mapping[str, str]) -> Original | None:
    """The record of `path`, None when there is none (or it is unreadable, or another's)."""
    try:
        raw = json.loads(_record_path(path, env).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or raw.get("path") != str(path):
        return None
    text, written = raw.get("text"), raw.get("written")
    if not isinstance(text, str) or not isinstance(written, str):
        return None
    return Original(bool(raw.get("existed")), text, written, raw.get("folder_existed") is not False)


def save(path: Path, env: Mapping[str, str], original: Original) -> None:
    """Keep `original` for `path`, readable by the user only (a config can hold API keys)."""
    record = _record_path(path, env)
    record.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(record, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(json.dumps({"path": str(path), **asdict(original)}))


def remember(path: Path, env: Mapping[str, str], original: Original, fresh: bool) -> str | None:
    """Keep `original`, the file's text from before the first install (for the uninstall).
    An install over todo-ls's own entries (`fresh` False: a moved todo-ls) keeps the earlier
    text instead; without a record of it, nothing is kept (restoring the text it replaced
    would bring the old entries back). Returns a note for the user when the record cannot be
    written: the install itself is done, only a byte-exact uninstall is lost."""
    if not fresh:
        earlier = load(path, env)
        if earlier is None:
            return None
        original = Original(earlier.existed, earlier.text, original.written, earlier.folder_existed)
    try:
        save(path, env, original)
    except OSError as err:
        return f"Note: could not keep the original of {path} ({err})"
    return None


def forget(path: Path, env: Mapping[str, str]) -> None:
    """Drop the record of `path`; a folder the install created goes too when it is empty."""
    original = load(path, env)
    if original is not None and not original.folder_existed and not path.exists():
        with contextlib.suppress(OSError):
            path.parent.rmdir()  # only when empty
    with contextlib.suppress(OSError):
        _record_path(path, env).unlink()


def diff(path: Path, before: str, after: str | None) -> list[str]:
    """What a dry run shows: the change as a unified diff (`after` None: deleted)."""
    return list(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            (after or "").splitlines(keepends=True),
            str(path),
            f"{path} (after)" if after is not None else f"{path} (deleted)",
        )
    )


def missing_folders(folder: Path) -> list[Path]:
    """The folders that writing into `folder` will create, deepest first (`.github/hooks`
    may need `.github` too)."""
    missing: list[Path] = []
    while not folder.is_dir() and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    return missing


class ChangedError(OSError):
    """The file changed between todo-ls reading it and writing it."""


def read(path: Path) -> str:
    """The file's text with its line endings as they are (a byte-exact uninstall)."""
    return path.read_bytes().decode("utf-8")


def write(path: Path, before: str, after: str | None) -> None:
    """Atomic replace (None: delete), refused when the file changed since it was read."""
    now = read(path) if path.exists() else ""
    if now != before:
        raise ChangedError("the file changed while todo-ls was editing it; run again")
    if after is None:
        path.unlink()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(after)
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
