"""Compare-and-swap of a whole file against other writers (docs/reliability.md, "An agent's
write is never undone").

`swap` installs new content at a path only if the file there is still, byte for byte and
inode for inode, the one the caller read, and it never loses a write another process makes
meanwhile, by rename (an agent's atomic rewrite) or in place (an agent's truncate + write):

1. the new content goes to a temp file in the same folder (fsync, mode and owner kept);
2. on Linux a read lease (`F_SETLEASE F_RDLCK`) is taken on the target: it is refused while
   anyone has the file open for writing, and any later open for writing breaks it, which
   `F_GETLEASE` shows without a signal;
3. the target is re-checked (inode, size, mtime, bytes) right before the swap;
4. `renameat2(RENAME_EXCHANGE)` exchanges temp and target atomically, so the file that left
   the target is still at hand (at the temp path) and can be told apart from what was read: if
   it is not the inode that was checked (a rename came between), or an in-place writer opened
   it (the lease broke), the exchange is undone and the answer is "not applied";
5. a writer that opened the old file in the last instant, after its link was removed, is waited
   for (the lease can be taken again once it closes) and its content put back.

Where `renameat2` or leases are missing (not Linux, a file system without them), the swap falls
back to the re-check and a plain `os.replace`: a write landing between the two can still be
lost there.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from typing import NamedTuple

# Linux's values (fcntl exposes them only on recent Pythons).
F_SETSIG = 10
F_SETLEASE = 1024
F_GETLEASE = 1025
F_RDLCK = 0
F_UNLCK = 2
RENAME_EXCHANGE = 2
AT_FDCWD = -100
# A lease break signals its holder; the default SIGIO would end the process, SIGURG is ignored.
_LEASE_SIGNAL = int(getattr(signal, "SIGURG", 23))
RESCUE_WAIT_S = 1.0  # how long a late in-place writer is waited for before its content is kept


class SwapResult(NamedTuple):
    """Whether the swap happened; if not, `reason` says why in one line."""

    applied: bool
    reason: str | None = None


class Before(NamedTuple):
    """The file as the caller read it."""

    data: bytes
    inode: int
    size: int
    mtime_ns: int


def swap(path: str, data: bytes, before: Before) -> SwapResult:
    """Replace the file at `path` (no symlink) by `data` if it is still `before`.

    Raises OSError only for failures of our own temp file (a full disk, a read-only folder)."""
    st = os.stat(path)
    tmp = _temp_copy(path, data, st)
    try:
        exchange = _renameat2()
        if exchange is None:
            return _replace(path, tmp, before)
        return _exchange(path, tmp, before, exchange)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _temp_copy(path: str, data: bytes, st: os.stat_result) -> str:
    directory, name = os.path.split(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, st.st_mode & 0o7777)
        if hasattr(os, "chown"):
            now = os.stat(tmp)
            if (st.st_uid, st.st_gid) != (now.st_uid, now.st_gid):
                # Only root can give the file back to its owner; others keep their own.
                with contextlib.suppress(PermissionError):
                    os.chown(tmp, st.st_uid, st.st_gid)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return tmp


def _moved(path: str) -> SwapResult:
    return SwapResult(False, f"{path}: changed on disk while writing; not written")


def _same(fd: int, path: str, before: Before) -> bool:
    """Whether `fd` is the file at `path` and both are still `before`."""
    st = os.fstat(fd)
    try:
        at_path = os.stat(path, follow_symlinks=False).st_ino
    except FileNotFoundError:
        return False
    if (st.st_ino, st.st_size, st.st_mtime_ns) != (before.inode, before.size, before.mtime_ns):
        return False
    return at_path == st.st_ino and os.pread(fd, before.size + 1, 0) == before.data


def _replace(path: str, tmp: str, before: Before) -> SwapResult:
    """The portable swap: re-check, then rename (a write between the two can be lost)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not _same(fd, path, before):
            return _moved(path)
        os.replace(tmp, path)
    finally:
        os.close(fd)
    return SwapResult(True)


def _exchange(path: str, tmp: str, before: Before, exchange: _Exchange) -> SwapResult:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        leased = _lease(fd)
        if leased is None:
            return SwapResult(False, f"{path}: being written by another process; not written")
        if not _same(fd, path, before) or (leased and _broken(fd)):
            return _moved(path)
        try:
            exchange(tmp, path)
        except OSError as err:
            if err.errno not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
                raise
            os.replace(tmp, path)  # no exchange on this file system: checked just now
            return SwapResult(True)
        # `tmp` now holds what left `path`: it must be the file just checked, untouched.
        try:
            out = os.stat(tmp, follow_symlinks=False).st_ino
        except FileNotFoundError:
            out = -1
        if out != before.inode or (leased and _broken(fd)) or not _unchanged(fd, before):
            exchange(tmp, path)  # the other writer's file goes back where it wrote it
            return _moved(path)
        new_inode = os.stat(path, follow_symlinks=False).st_ino
        os.unlink(tmp)
        if leased and _broken(fd):
            _rescue(fd, path, new_inode)
            return _moved(path)
        if not leased and not _unchanged(fd, before):
            _rescue(fd, path, new_inode)
            return _moved(path)
        return SwapResult(True)
    finally:
        with contextlib.suppress(OSError):
            _fcntl(fd, F_SETLEASE, F_UNLCK)
        os.close(fd)


def _unchanged(fd: int, before: Before) -> bool:
    st = os.fstat(fd)
    if (st.st_size, st.st_mtime_ns) != (before.size, before.mtime_ns):
        return False
    return os.pread(fd, before.size + 1, 0) == before.data


def _rescue(fd: int, path: str, new_inode: int) -> None:
    """A writer opened the old file just as it left `path`: let it finish (its close is when
    the lease can be taken again), then put what it wrote back at `path`, unless `path` moved
    on since (a newer write wins)."""
    with contextlib.suppress(OSError):
        _fcntl(fd, F_SETLEASE, F_UNLCK)
    deadline = time.monotonic() + RESCUE_WAIT_S
    while time.monotonic() < deadline:
        try:
            _fcntl(fd, F_SETLEASE, F_RDLCK)
            break
        except OSError:
            time.sleep(0.0005)
    size = os.fstat(fd).st_size
    data = os.pread(fd, size + 1, 0)
    st = os.stat(path, follow_symlinks=False)
    if st.st_ino != new_inode:
        return
    tmp = _temp_copy(path, data, st)
    try:
        if os.stat(path, follow_symlinks=False).st_ino == new_inode:
            os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _fcntl(fd: int, cmd: int, arg: int) -> int:
    import fcntl

    return fcntl.fcntl(fd, cmd, arg)


def _lease(fd: int) -> bool | None:
    """Take a read lease: True; False where leases are not supported (the swap goes on
    without); None when someone has the file open for writing right now."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        _fcntl(fd, F_SETSIG, _LEASE_SIGNAL)
        _fcntl(fd, F_SETLEASE, F_RDLCK)
    except OSError as err:
        if err.errno in (errno.EAGAIN, errno.EBUSY):
            return None
        return False  # EINVAL (file system), EACCES (not our file, no CAP_LEASE)
    return True


def _broken(fd: int) -> bool:
    """Whether an open for writing is waiting on our lease (a break in progress)."""
    return _fcntl(fd, F_GETLEASE, 0) != F_RDLCK


class _Exchange:
    """`renameat2(a, b, RENAME_EXCHANGE)`: swap two paths atomically."""

    def __init__(self, func: Callable[..., int]) -> None:
        self._func = func

    def __call__(self, a: str, b: str) -> None:
        if self._func(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) != 0:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code), b)


_cached: list[_Exchange | None] = []


def _renameat2() -> _Exchange | None:
    """The exchange where libc has it (glibc 2.28+), else None."""
    if not _cached:
        found: _Exchange | None = None
        if sys.platform.startswith("linux"):
            with contextlib.suppress(OSError, AttributeError):
                libc = ctypes.CDLL(None, use_errno=True)
                func = libc.renameat2
                func.argtypes = [
                    ctypes.c_int,
                    ctypes.c_char_p,
                    ctypes.c_int,
                    ctypes.c_char_p,
                    ctypes.c_uint,
                ]
                func.restype = ctypes.c_int
                found = _Exchange(func)
        _cached.append(found)
    return _cached[0]
