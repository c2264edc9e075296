"""Find the OpenCode server and build the matching host adapter.

`connect_host` looks, in order:

1. at the configured URL when `supervisor.url` is set (nothing else);
2. at the registration file of a managed 2.x service;
3. at the user's own `opencode` (and Kilo's `kilo`) processes listening on loopback, on any
   port (`todo_ls.hosts.local_servers`): each is confirmed by its API and matched to a
   workspace folder by its directory (a TUI started with `--port N` in the project,
   `opencode serve`, `kilo serve`); a process is asked only with its own line's password;
4. where processes cannot be listed (neither /proc nor lsof), at `http://127.0.0.1:4096`.

A probe is judged by its JSON body, never by the status alone: OpenCode 1.18 answers unknown
paths with 200 and its web page. Host lines register here by adding a `Probe` to `PROBES`
(the 2.x line adds its `/api/info`, `/api/health` probes in front of the 1.x one; Kilo's
`/global/health` probe, version 7.x, comes after it). A password belongs to its host kind:
each probe sends only its own kind's (`supervisor.passwordEnv` aside). At a URL with
`supervisor.host` `auto`, the kind is unknown until the server answers: OpenCode's probes send
their passwords as before, Kilo's probe none (`Probe.password_needs_kind`); a local process is
asked only as what its program is.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from todo_ls.hosts import local_servers
from todo_ls.hosts.base import Host, HostError
from todo_ls.hosts.http import DEFAULT_USERNAME, HostHttp
from todo_ls.hosts.local_servers import Listener, local_listeners
from todo_ls.hosts.opencode_v1 import adapter as v1_adapter
from todo_ls.hosts.opencode_v1 import identity as v1_identity
from todo_ls.hosts.opencode_v1 import kilo
from todo_ls.hosts.opencode_v2 import adapter as v2_adapter
from todo_ls.hosts.opencode_v2 import identity as v2_identity
from todo_ls.hosts.opencode_v2 import registration as v2_registration
from todo_ls.settings.model import SupervisorSettings

log = logging.getLogger(__name__)

DEFAULT_URL = "http://127.0.0.1:4096"


@dataclass(frozen=True)
class Probe:
    """How to recognise one host line at a URL and build its adapter."""

    kind: str  # the `supervisor.host` value that selects it
    path: str  # GET this path ...
    identify: Callable[
        [Any], str | None
    ]  # ... and read the version from its JSON body (None: not it)
    password_env: str  # default env var of the password for this host line
    build: Callable[[HostHttp, str, Sequence[str]], Host]  # (http, version, directories)
    legacy_password_env: str | None = None  # read when `password_env` is unset (2.x: the 1.x name)
    program: str = local_servers.PROGRAM  # the process name of this line's servers
    username_env: str = v1_adapter.USERNAME_ENV
    default_username: str = DEFAULT_USERNAME
    # Send this line's password only where the server is known to be of this line (a process
    # of `program`, or `supervisor.host` naming it), never to a URL `auto` is still guessing at.
    password_needs_kind: bool = False


def _v1_build(http: HostHttp, version: str, directories: Sequence[str]) -> Host:
    return v1_adapter.OpenCodeV1Host(http, version=version, directories=directories)


def _kilo_build(http: HostHttp, version: str, directories: Sequence[str]) -> Host:
    return v1_adapter.OpenCodeV1Host(http, version=version, directories=directories, kind=kilo.KIND)


def _v2_build(http: HostHttp, version: str, directories: Sequence[str]) -> Host:
    # The 2.x stream is unfiltered (all locations): the supervisor scopes sessions itself.
    return v2_adapter.OpenCodeV2Host(http, version=version)


def _v2_probe(path: str) -> Probe:
    # 2.x `serve` reads OPENCODE_PASSWORD, and still the 1.x name as its legacy fallback.
    return Probe(
        "opencode-v2",
        path,
        v2_identity.version_of,
        v2_adapter.PASSWORD_ENV,
        _v2_build,
        legacy_password_env=v1_adapter.PASSWORD_ENV,
    )


PROBES: list[Probe] = [
    # 2.x first: OpenCode 1.18 answers these with HTML / `{"healthy": true}`, which is no 2.x.
    _v2_probe("/api/info"),
    _v2_probe("/api/health"),
    Probe(
        "opencode-v1",
        "/global/health",
        v1_identity.version_of,
        v1_adapter.PASSWORD_ENV,
        _v1_build,
    ),
    Probe(
        kilo.KIND,
        "/global/health",
        kilo.version_of,
        kilo.PASSWORD_ENV,
        _kilo_build,
        program=kilo.PROGRAM,
        username_env=kilo.USERNAME_ENV,
        default_username=kilo.DEFAULT_USERNAME,
        password_needs_kind=True,  # OpenCode's probes come first at a URL: not their server
    ),
]


NOT_FOUND_HINT = (
    "start the OpenCode TUI with `opencode --port 4096` (without --port it opens no port), "
    "or run `opencode serve` and then `opencode attach http://127.0.0.1:4096` "
    "(Kilo: `kilo serve`, then `kilo attach <its url>`), "
    "or set todoLs.supervisor.url"
)


async def connect_host(
    settings: SupervisorSettings,
    env: Mapping[str, str],
    *,
    directories: Sequence[str] = (),
    transport: httpx.AsyncBaseTransport | None = None,
    listeners: Callable[[], Sequence[Listener] | None] = local_listeners,
) -> Host:
    """Find the server and return its adapter. Raises HostError: `unauthorized` when a probe
    got 401 (wrong or missing password), `unreachable` when nothing answered (without a URL
    setting, the message says how to start OpenCode so that it can be found), `protocol` when
    something answered that is no OpenCode server of an allowed line. `listeners` lists the
    local OpenCode processes (None: this platform cannot)."""
    probes = [p for p in PROBES if settings.host in ("auto", p.kind)]
    if not probes:
        raise HostError("protocol", f"supervisor.host {settings.host!r} is not supported")
    if settings.host in ("auto", "opencode-v2"):
        # The 2.x managed service registers itself; its file is the discovery contract.
        registered = await v2_registration.from_registration(
            env, url=settings.url, transport=transport
        )
        if registered is not None:
            return registered
    if settings.url is None:
        found = await asyncio.to_thread(listeners)
        if found is not None:
            return await _connect_local(found, probes, settings, env, directories, transport)
    url = settings.url or DEFAULT_URL
    try:
        probe, http, version = await _identify(
            url, probes, settings, env, transport, kind_known=settings.host != "auto"
        )
    except HostError as exc:
        if settings.url is None and exc.kind == "unreachable":
            raise HostError(
                "unreachable", f"no OpenCode server at {url}: {NOT_FOUND_HINT}"
            ) from None
        raise
    log.info("found %s %s at %s", probe.kind, version, url)
    return probe.build(http, version, directories)


def _client(
    url: str,
    probe: Probe,
    settings: SupervisorSettings,
    env: Mapping[str, str],
    transport: httpx.AsyncBaseTransport | None,
    *,
    kind_known: bool = True,
    **limits: Any,
) -> HostHttp:
    """The HTTP client for `probe`'s host line at `url`, with that line's password (when
    `kind_known` is False, not for a line whose password needs its kind known)."""
    env_name = settings.password_env or probe.password_env
    password = env.get(env_name)
    hint = f"check the password in ${env_name}"
    if not settings.password_env and probe.legacy_password_env:
        password = password or env.get(probe.legacy_password_env)
        hint += f" or ${probe.legacy_password_env}"
    if _withheld(probe, settings, kind_known):
        password = None
    return HostHttp(
        url,
        password=password or None,
        username=env.get(probe.username_env) or probe.default_username,
        auth_hint=hint,
        transport=transport,
        **limits,
    )


async def _identify(
    url: str,
    probes: Sequence[Probe],
    settings: SupervisorSettings,
    env: Mapping[str, str],
    transport: httpx.AsyncBaseTransport | None,
    *,
    kind_known: bool = True,
    **limits: Any,
) -> tuple[Probe, HostHttp, str]:
    """The first probe that recognises the server at `url`, its open client and the version.
    Raises the most telling HostError when none does. `kind_known`: see `_client`."""
    errors: list[HostError] = []
    withheld: list[str] = []  # what to set so that a withheld password is sent
    for probe in probes:
        http = _client(url, probe, settings, env, transport, kind_known=kind_known, **limits)
        try:
            body = await http.get_json(probe.path)
        except HostError as exc:
            await http.aclose()
            errors.append(exc)
            if exc.kind == "unauthorized" and _withheld(probe, settings, kind_known):
                withheld.append(
                    f"for a {probe.kind} server set supervisor.host to {probe.kind} "
                    f"(${probe.password_env} is sent only then)"
                )
            if exc.kind == "unreachable":
                break  # nothing listens: the other paths would not answer either
            continue
        version = probe.identify(body)
        if version is None:
            await http.aclose()
            errors.append(HostError("protocol", f"GET {probe.path}: not {probe.kind}"))
            continue
        return probe, http, version
    error = _most_telling(errors)
    if error.kind == "unauthorized" and withheld:
        raise HostError("unauthorized", "; ".join([str(error), *withheld]))
    raise error


def _withheld(probe: Probe, settings: SupervisorSettings, kind_known: bool) -> bool:
    """Whether `probe`'s password stays home: its kind is not known yet (see `Probe`)."""
    return probe.password_needs_kind and not kind_known and not settings.password_env


def _most_telling(errors: Sequence[HostError]) -> HostError:
    for kind in ("unauthorized", "protocol", "timeout"):
        for error in errors:
            if error.kind == kind:
                return error
    return errors[0]


@dataclass(frozen=True)
class _Candidate:
    listener: Listener
    probe: Probe
    version: str
    rank: int  # 0: same folder, 1: nested, 2: a `serve` that knows the project, 3: 2.x


async def _connect_local(
    listeners: Sequence[Listener],
    probes: Sequence[Probe],
    settings: SupervisorSettings,
    env: Mapping[str, str],
    directories: Sequence[str],
    transport: httpx.AsyncBaseTransport | None,
) -> Host:
    """The adapter for the best-matching local OpenCode server (see `_candidate`). A process
    is probed only as its own line (an `opencode` as OpenCode, a `kilo` as Kilo), so it never
    sees another line's password."""
    by_port = [
        x
        for x in {listener.port: listener for listener in listeners}.values()
        if _probes_of(x, probes)
    ]
    judged = await asyncio.gather(
        *(
            _candidate(x, _probes_of(x, probes), settings, env, directories, transport)
            for x in by_port
        )
    )
    candidates = [c for c in judged if isinstance(c, _Candidate)]
    if candidates:
        best = min(candidates, key=lambda c: (c.rank, c.listener.port))
        url = best.listener.url
        log.info(
            "found %s %s at %s (pid %d)", best.probe.kind, best.version, url, best.listener.pid
        )
        http = _client(url, best.probe, settings, env, transport)
        return best.probe.build(http, best.version, directories)
    raise _not_found(list(zip(by_port, judged, strict=True)))


def _probes_of(listener: Listener, probes: Sequence[Probe]) -> list[Probe]:
    return [p for p in probes if p.program == listener.program]


def _not_found(judged: Sequence[tuple[Listener, _Candidate | HostError | str]]) -> HostError:
    """Why no local server fits, and what to do. A server that refused the password may be
    this folder's (its directory cannot be read without it), so that comes first."""
    refused = [(x, r) for x, r in judged if isinstance(r, HostError) and r.kind == "unauthorized"]
    elsewhere = [r for _, r in judged if isinstance(r, str)]
    found: list[str] = [f"port {x.port}: {error}" for x, error in refused]
    if elsewhere:
        found.append(f"OpenCode runs for other folders ({'; '.join(elsewhere)})")
    if not found:
        return HostError("unreachable", f"no OpenCode server found: {NOT_FOUND_HINT}")
    text = f"{'; '.join(found)}; for this folder: {NOT_FOUND_HINT}"
    return HostError("unauthorized" if refused else "unreachable", text)


async def _candidate(
    listener: Listener,
    probes: Sequence[Probe],
    settings: SupervisorSettings,
    env: Mapping[str, str],
    directories: Sequence[str],
    transport: httpx.AsyncBaseTransport | None,
) -> _Candidate | HostError | str:
    """One listener judged: a candidate, the error that ruled it out, or (an OpenCode of
    other folders) where it works. Short timeouts: a starting server may not answer at all."""
    try:
        probe, http, version = await _identify(
            listener.url, probes, settings, env, transport, timeout=2.0, retries=0
        )
    except HostError as exc:
        log.debug("local listener %s (pid %d): %s", listener.url, listener.pid, exc)
        return exc
    try:
        if probe.kind == v2_adapter.KIND:
            return _Candidate(listener, probe, version, 3)  # 2.x serves every location
        rank, directory = await _v1_rank(http, listener, directories)
    except HostError as exc:
        return exc
    finally:
        await http.aclose()
    if rank is None:
        return f"port {listener.port}: {directory}"
    return _Candidate(listener, probe, version, rank)


async def _v1_rank(
    http: HostHttp, listener: Listener, directories: Sequence[str]
) -> tuple[int | None, str]:
    """How well a 1.x server matches the workspace folders, and its own directory.

    `GET /path` names the directory it was started in (a TUI: its project). A `serve`
    answers for any directory, so it also counts when one of its known projects (`GET
    /project`, the catch-all `global` project aside) holds a folder."""
    directory = str(_dict(await http.get_json("/path")).get("directory") or "")
    rank = folder_match(directory, directories) if directory else None
    if rank is None and listener.serves_any_directory:
        projects = await http.get_json("/project")
        worktrees = [
            str(p.get("worktree"))
            for p in (projects if isinstance(projects, list) else [])
            if isinstance(p, dict) and p.get("id") != "global" and p.get("worktree")
        ]
        if any(folder_match(tree, directories) is not None for tree in worktrees):
            rank = 2
    return rank, directory or "?"


def folder_match(directory: str, folders: Sequence[str]) -> int | None:
    """0 when `directory` is one of `folders`, 1 when it holds one or lies inside one, None
    when it is unrelated to all (paths compared after resolving symlinks)."""
    here = Path(os.path.realpath(directory))
    best: int | None = None
    for folder in folders:
        there = Path(os.path.realpath(folder))
        if here == there:
            return 0
        if here in there.parents or there in here.parents:
            best = 1
    return best


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
