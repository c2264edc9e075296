"""What a config file held before `todo-ls install` changed it, for a byte-exact uninstall.

A text edit and its reverse do not always meet byte for byte (an emptied container keeps the
newline the install put in it; a key the install added has no trace of being added). So the
install keeps the file's earlier text, and what it wrote, in the state folder; the uninstall
restores the earlier text when the file still holds exactly what the install wrote, and
otherwise knows at least which keys the install added.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
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


def forget(path: Path, env: Mapping[str, str]) -> None:
    """Drop the record of `path`; a folder the install created goes too when it is empty."""
    original = load(path, env)
    if original is not None and not original.folder_existed and not path.exists():
        with contextlib.suppress(OSError):
            path.parent.rmdir()  # only when empty
    with contextlib.suppress(OSError):
        _record_path(path, env).unlink()
