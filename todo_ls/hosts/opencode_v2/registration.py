"""OpenCode 2.x: the registration file the managed service writes, and the adapter it names."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx

from todo_ls.hosts.base import HostError
from todo_ls.hosts.http import HostHttp
from todo_ls.hosts.opencode_v2.adapter import OpenCodeV2Host
from todo_ls.hosts.opencode_v2.identity import identify

log = logging.getLogger(__name__)

# --- discovery: the registration file ------------------------------------------------------


@dataclass(frozen=True)
class Registration:
    """`$XDG_STATE_HOME/opencode/service.json`, written by the managed 2.x service."""

    path: Path
    url: str
    pid: int | None
    password: str | None


def registration_path(env: Mapping[str, str]) -> Path:
    """`$XDG_STATE_HOME/opencode/service.json`, default `~/.local/state/opencode/service.json`."""
    state = env.get("XDG_STATE_HOME")
    if state:
        return Path(state) / "opencode" / "service.json"
    home = env.get("HOME")
    return (Path(home) if home else Path.home()) / ".local" / "state" / "opencode" / "service.json"


def read_registration(env: Mapping[str, str]) -> Registration | None:
    """The registration file, or None when it is missing or not usable (logged)."""
    path = registration_path(env)
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("opencode-v2: cannot read %s: %s", path, type(exc).__name__)
        return None
    url = body.get("url") if isinstance(body, dict) else None
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        log.warning("opencode-v2: %s has no usable url", path)
        return None
    pid, password = body.get("pid"), body.get("password")
    return Registration(
        path,
        url,
        pid if isinstance(pid, int) and not isinstance(pid, bool) else None,
        password if isinstance(password, str) and password else None,
    )


async def from_registration(
    env: Mapping[str, str],
    *,
    url: str | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> OpenCodeV2Host | None:
    """The adapter for the registered 2.x service, confirmed by `GET /api/info` (or
    `/api/health`) with the registered password and pid. None when there is no registration,
    it names another URL than `url` (when given), or it is stale (nothing answers there, or
    another process does). A 401 with the registered password raises `unauthorized`."""
    found = read_registration(env)
    if found is None or (url is not None and url.rstrip("/") != found.url.rstrip("/")):
        return None
    http = HostHttp(
        found.url,
        password=found.password,
        auth_hint=f"the password in {found.path} was refused",
        transport=transport,
    )
    try:
        identity = await identify(http)
    except HostError as exc:
        await http.aclose()
        if exc.kind == "unauthorized":
            raise
        log.info("opencode-v2: %s is stale: %s", found.path, exc)
        return None
    if identity is None or (found.pid is not None and identity.pid != found.pid):
        await http.aclose()
        log.info("opencode-v2: %s names a server that is not (or no longer) it", found.path)
        return None
    log.info("found opencode-v2 %s at %s (from %s)", identity.version, found.url, found.path)
    return OpenCodeV2Host(http, version=identity.version)
