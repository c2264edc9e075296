"""Find the OpenCode server and build the matching host adapter.

`connect_host` tries each `Probe` allowed by `supervisor.host` (`auto`: all, in order) on the
configured URL (default `http://127.0.0.1:4096`). A probe is judged by its JSON body, never by
the status alone: OpenCode 1.18 answers unknown paths with 200 and its web page. Host lines
register here by adding a `Probe` to `PROBES` (the 2.x line adds its registration file and its
`/api/info`, `/api/health` probes in front of the 1.x one).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from todo_ls.config import SupervisorSettings
from todo_ls.hosts.base import Host, HostError
from todo_ls.hosts.http import DEFAULT_USERNAME, HostHttp
from todo_ls.hosts.opencode_v1 import adapter as v1_adapter
from todo_ls.hosts.opencode_v1 import identity as v1_identity
from todo_ls.hosts.opencode_v2 import adapter as v2_adapter
from todo_ls.hosts.opencode_v2 import identity as v2_identity
from todo_ls.hosts.opencode_v2 import registration as v2_registration

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


def _v1_build(http: HostHttp, version: str, directories: Sequence[str]) -> Host:
    return v1_adapter.OpenCodeV1Host(http, version=version, directories=directories)


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
]


async def connect_host(
    settings: SupervisorSettings,
    env: Mapping[str, str],
    *,
    directories: Sequence[str] = (),
    transport: httpx.AsyncBaseTransport | None = None,
) -> Host:
    """Probe the server and return its adapter. Raises HostError: `unauthorized` when a probe
    got 401 (wrong or missing password), `unreachable` when nothing answered, `protocol` when
    something answered that is no OpenCode server of an allowed line."""
    url = settings.url or DEFAULT_URL
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
    errors: list[HostError] = []
    for probe in probes:
        env_name = settings.password_env or probe.password_env
        password = env.get(env_name)
        hint = f"check the password in ${env_name}"
        if not settings.password_env and probe.legacy_password_env:
            password = password or env.get(probe.legacy_password_env)
            hint += f" or ${probe.legacy_password_env}"
        http = HostHttp(
            url,
            password=password or None,
            username=env.get(v1_adapter.USERNAME_ENV) or DEFAULT_USERNAME,
            auth_hint=hint,
            transport=transport,
        )
        try:
            body = await http.get_json(probe.path)
        except HostError as exc:
            await http.aclose()
            errors.append(exc)
            continue
        version = probe.identify(body)
        if version is None:
            await http.aclose()
            errors.append(HostError("protocol", f"GET {probe.path}: not {probe.kind}"))
            continue
        log.info("found %s %s at %s", probe.kind, version, url)
        return probe.build(http, version, directories)
    for kind in ("unauthorized", "protocol", "timeout"):
        for error in errors:
            if error.kind == kind:
                raise error
    raise errors[0]
