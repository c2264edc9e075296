"""Reading and writing markdown files on disk (the I/O edge of the checklist engine).

Used by the language server for subscribed files the editor does not have open, and by
`todo-ls check`. Reads are strict (UTF-8 with or without BOM, no binary, bounded size) and fail
with one-line `DiskError`s. Writes change only the marker characters of the given edits and keep
every other byte (BOM, line endings, trailing newline or none); they are atomic (temp file in the
same directory, fsync, rename) and refuse, instead of guessing, when the file is not what the
caller read.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from todo_ls import checklist  # the engine loads on first use (server cold start)
from todo_ls.checklist.lines import LINE_END, split_lines
from todo_ls.regular_files import NotRegularFile, open_regular

if TYPE_CHECKING:
    from todo_ls.checklist import MarkerEdit

MAX_BYTES = 10 * 1024 * 1024
BOM = b"\xef\xbb\xbf"

# The line breaks of LSP and markdown-it; \v, \f, U+2028 and friends are not line breaks.


class DiskError(Exception):
    """A file that cannot be used; the message is one line naming the path."""


class DiskText(NamedTuple):
    """A decoded file and the facts that tell whether it changed since."""

    text: str  # line endings kept as in the file
    mtime_ns: int
    size: int  # bytes on disk, BOM included
    bom: bool
    inode: int = 0

    @property
    def encoding(self) -> str:
        """The Python codec that reproduces the file's bytes from `text`."""
        return "utf-8-sig" if self.bom else "utf-8"

    def lines(self) -> list[str]:
        """The lines without their line breaks (LF, CRLF or CR)."""
        return split_lines(self.text)


class WriteResult(NamedTuple):
    """Whether a write happened; if not, `reason` says why in one line."""

    applied: bool
    reason: str | None = None


def read_text(path: str | os.PathLike[str], max_bytes: int = MAX_BYTES) -> DiskText:
    """Read a UTF-8 text file (BOM optional). Raises `DiskError` for a missing file, a
    directory, a file over `max_bytes`, binary content (NUL bytes) or invalid UTF-8."""
    name = os.fspath(path)
    try:
        with open_regular(name) as f:
            st = os.fstat(f.fileno())
            if st.st_size > max_bytes:
                raise DiskError(f"{name}: too large ({st.st_size} bytes, limit {max_bytes})")
            data = f.read(max_bytes + 1)
    except FileNotFoundError:
        raise DiskError(f"{name}: no such file") from None
    except (IsADirectoryError, NotRegularFile) as err:
        raise DiskError(str(err)) from None
    except OSError as err:
        raise DiskError(f"{name}: cannot read ({err.strerror or err})") from None
    if len(data) > max_bytes:  # it grew while we read
        raise DiskError(f"{name}: too large (over {max_bytes} bytes)")
    if b"\0" in data:
        raise DiskError(f"{name}: binary file (contains NUL bytes)")
    bom = data.startswith(BOM)
    try:
        text = data[len(BOM) if bom else 0 :].decode("utf-8")
    except UnicodeDecodeError as err:
        offset = err.start + (len(BOM) if bom else 0)
        raise DiskError(
            f"{name}: not UTF-8 (byte 0x{data[offset]:02x} at offset {offset})"
        ) from None
    return DiskText(text, st.st_mtime_ns, len(data), bom, st.st_ino)


def write_markers(
    path: str | os.PathLike[str], edits: Sequence[MarkerEdit], expected: Mapping[int, str]
) -> WriteResult:
    """Apply marker edits to the file at `path` atomically, changing nothing else.

    `expected` maps 0-based line -> the full line text (without line break) the caller read;
    the write is refused (applied False, reason naming the line) if any of those lines differ
    now, if an edit's old text is not at its place, or if the file changes while we write.
    A symlink is followed: its target is rewritten and the link kept.
    """
    real = os.path.realpath(os.fspath(path))
    try:
        before = read_text(real)
    except DiskError as err:
        return WriteResult(False, str(err))
    lines = before.lines()
    for line, text in sorted(expected.items()):
        if line >= len(lines) or lines[line] != text:
            return WriteResult(False, f"{path}: line {line + 1} changed since it was read")
    if any(LINE_END.search(edit.new) for edit in edits):
        return WriteResult(False, "an edit would insert a line break")
    try:
        text = checklist.apply_edits(before.text, edits)
    except ValueError as err:
        return WriteResult(False, f"{path}: {err}")
    if text == before.text:
        return WriteResult(True)
    data = (BOM if before.bom else b"") + text.encode("utf-8")
    try:
        return _replace(real, data, before)
    except OSError as err:
        return WriteResult(False, f"{path}: cannot write ({err.strerror or err})")


def _replace(real: str, data: bytes, before: DiskText) -> WriteResult:
    """Install `data` at `real` if the file is still `before`, never undoing a write another
    process makes meanwhile (compare-and-swap: `todo_ls.file_swap`)."""
    from todo_ls import file_swap

    old = (BOM if before.bom else b"") + before.text.encode("utf-8")
    result = file_swap.swap(
        real, data, file_swap.Before(old, before.inode, before.size, before.mtime_ns)
    )
    if result.applied:
        _fsync_dir(os.path.dirname(real))
    return WriteResult(result.applied, result.reason)


def _fsync_dir(directory: str) -> None:
    """Make the rename durable; not every platform can open a directory."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
