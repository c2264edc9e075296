"""Opening a file only when it is a regular one, for the readers of paths that come from
outside (a plan, a transcript, a host's todo file): a FIFO, a socket or a device is refused
instead of read, since opening a FIFO for reading waits for a writer forever
(docs/reliability.md, "The hook never waits on a file")."""

from __future__ import annotations

import os
import stat
from typing import BinaryIO


class NotRegularFile(OSError):
    """A path that names a FIFO, a socket or a device: never read (a FIFO would block)."""


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """`path` opened for reading, refused (OSError) unless it is a regular file.

    Opened without blocking and judged on the opened file itself: a plain open of a FIFO
    waits for a writer forever, and a stat before the open could judge another file."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(f"{path}: is a directory")
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"{path}: not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
