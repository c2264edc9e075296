"""Kilo Code CLI (`kilo serve`, 7.x): OpenCode 1.x's HTTP API under another name.

`kilo serve` serves every path of OpenCode 1.18's API with the same `/global/event` stream, so
the 1.x adapter serves it; what differs is said here: the host kind `kilo`, the version line
(`GET /global/health` → `{"healthy": true, "version": "7.7.9"}`), the process name local
discovery looks for, and the server's own credentials (`KILO_SERVER_PASSWORD`, user name
`KILO_SERVER_USERNAME`, default `kilo` — the server refuses `opencode`). Kilo's extra turn
events are read in `events.normalize`.
"""

from __future__ import annotations

from typing import Any, Final

from todo_ls.hosts.opencode_v1.identity import version_of as v1_version_of

KIND: Final = "kilo"
PROGRAM: Final = "kilo"
PASSWORD_ENV: Final = "KILO_SERVER_PASSWORD"
USERNAME_ENV: Final = "KILO_SERVER_USERNAME"
DEFAULT_USERNAME: Final = "kilo"
MAJOR: Final = "7"


def version_of(body: Any) -> str | None:
    """The version in a Kilo `/global/health` body (7.x), None when it is not one."""
    return v1_version_of(body, major=MAJOR)
