"""OpenCode 2.x: recognising a 2.x server by what it says about itself (`/api/info`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from todo_ls.hosts.base import HostError
from todo_ls.hosts.http import HostHttp

# --- identity ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Identity:
    """What a 2.x server says about itself."""

    version: str
    pid: int


def judge_identity(body: Any) -> Identity | None:
    """A 2.x identity body (`/api/info` or `/api/health`) has a string `version` and an
    integer `pid`. OpenCode 1.18 answers those paths with HTML or `{"healthy": true}`: None."""
    if not isinstance(body, dict):
        return None
    version, pid = body.get("version"), body.get("pid")
    if isinstance(version, str) and isinstance(pid, int) and not isinstance(pid, bool):
        return Identity(version, pid)
    return None


def version_of(body: Any) -> str | None:
    """The version in a 2.x identity body (for discovery's probes), None when it is not one."""
    found = judge_identity(body)
    return found.version if found else None


async def identify(http: HostHttp) -> Identity | None:
    """Probe `/api/info`, then `/api/health`; None when neither identifies a 2.x server.

    Raises `HostError` when the server is unreachable or refuses the password (the caller
    must tell those apart from "some other server").
    """
    for path in ("/api/info", "/api/health"):
        try:
            body = await http.get_json(path)
        except HostError as exc:
            if exc.kind in ("unreachable", "unauthorized", "timeout"):
                raise
            continue  # 404, HTML: not this build's identity route
        found = judge_identity(body)
        if found is not None:
            return found
    return None
