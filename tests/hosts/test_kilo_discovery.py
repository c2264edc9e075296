"""Finding Kilo's `kilo serve` (7.x, OpenCode 1.x's API): the version line, the `kilo`
process, and whose password goes where. The servers are httpx mock transports that record
every request's `Authorization`; the real `kilo serve` is in test_kilo_supervisor.py."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from todo_ls.hosts.base import HostError
from todo_ls.hosts.discovery import connect_host
from todo_ls.hosts.local_servers import Listener
from todo_ls.settings.model import SupervisorSettings

pytestmark = pytest.mark.timeout(30)

KILO_PORT, OPENCODE_PORT = 4100, 4200
PASSWORDS = {"KILO_SERVER_PASSWORD": "kilo-secret-1", "OPENCODE_SERVER_PASSWORD": "oc-secret-2"}


def _basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@dataclass
class Server:
    version: str
    directory: str
    credentials: str | None  # the Authorization it wants, None: no auth


@dataclass
class Loopback:
    """Servers by port, and every Authorization each one was sent."""

    servers: dict[int, Server]
    seen: dict[int, list[str | None]] = field(default_factory=dict)

    def handle(self, request: httpx.Request) -> httpx.Response:
        port = request.url.port or 80
        sent = request.headers.get("authorization")
        self.seen.setdefault(port, []).append(sent)
        server = self.servers.get(port)
        if server is None:
            raise httpx.ConnectError("connection refused", request=request)
        if server.credentials is not None and sent != server.credentials:
            return httpx.Response(401, headers={"www-authenticate": 'Basic realm="Secure Area"'})
        answers: Mapping[str, object] = {
            "/global/health": {"healthy": True, "version": server.version},
            "/path": {"directory": server.directory},
            "/project": [],
        }
        if request.url.path not in answers:
            return httpx.Response(200, text="<html>the web UI</html>")
        return httpx.Response(200, json=answers[request.url.path])

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)


def _env(tmp_path: Path, **more: str) -> dict[str, str]:
    return {"XDG_STATE_HOME": str(tmp_path / "state"), "HOME": str(tmp_path / "home"), **more}


def _kilo_listener() -> Listener:
    return Listener(4321, KILO_PORT, ("/x/bin/kilo", "serve"), "kilo")


def _opencode_listener() -> Listener:
    return Listener(4322, OPENCODE_PORT, ("/x/bin/opencode", "--port", "4200"), "opencode")


def _loopback(project: Path, kilo_auth: bool = True) -> Loopback:
    kilo = _basic("kilo", PASSWORDS["KILO_SERVER_PASSWORD"]) if kilo_auth else None
    return Loopback(
        {
            KILO_PORT: Server("7.7.9", str(project), kilo),
            OPENCODE_PORT: Server(
                "1.18.33", str(project.parent / "other"), _basic("opencode", "oc-secret-2")
            ),
        }
    )


async def test_a_local_kilo_is_found_as_kilo_and_each_server_gets_only_its_password(
    tmp_path: Path,
) -> None:
    net = _loopback(tmp_path)
    host = await connect_host(
        SupervisorSettings(),
        _env(tmp_path, **PASSWORDS),
        directories=[str(tmp_path)],
        transport=net.transport,
        listeners=lambda: [_opencode_listener(), _kilo_listener()],
    )
    try:
        assert (host.info.kind, host.info.version) == ("kilo", "7.7.9")
        assert host.info.url == f"http://127.0.0.1:{KILO_PORT}"
    finally:
        await host.aclose()
    # Kilo's user is `kilo` (the server refuses `opencode`); OpenCode's password never went to
    # the Kilo process, nor Kilo's to the OpenCode one.
    assert set(net.seen[KILO_PORT]) == {_basic("kilo", "kilo-secret-1")}
    assert set(net.seen[OPENCODE_PORT]) == {_basic("opencode", "oc-secret-2")}


async def test_a_local_kilo_without_its_password_says_which_variable(tmp_path: Path) -> None:
    net = _loopback(tmp_path)
    only_opencode = {"OPENCODE_SERVER_PASSWORD": "oc-secret-2"}
    with pytest.raises(HostError) as denied:
        await connect_host(
            SupervisorSettings(),
            _env(tmp_path, **only_opencode),
            directories=[str(tmp_path)],
            transport=net.transport,
            listeners=lambda: [_kilo_listener()],
        )
    assert denied.value.kind == "unauthorized"
    assert "KILO_SERVER_PASSWORD" in str(denied.value)
    assert set(net.seen[KILO_PORT]) == {None}  # OpenCode's password is not Kilo's


async def test_the_host_setting_kilo_probes_only_kilo_processes(tmp_path: Path) -> None:
    net = _loopback(tmp_path)
    host = await connect_host(
        SupervisorSettings(host="kilo"),
        _env(tmp_path, **PASSWORDS),
        directories=[str(tmp_path)],
        transport=net.transport,
        listeners=lambda: [_opencode_listener(), _kilo_listener()],
    )
    await host.aclose()
    assert host.info.kind == "kilo"
    assert OPENCODE_PORT not in net.seen


async def test_no_local_server_names_kilo_serve_in_the_advice(tmp_path: Path) -> None:
    with pytest.raises(HostError) as nothing:
        await connect_host(SupervisorSettings(), _env(tmp_path), listeners=lambda: [])
    assert "`kilo serve`" in str(nothing.value)


async def test_at_a_url_the_version_line_tells_kilo_from_opencode_1x(tmp_path: Path) -> None:
    net = _loopback(tmp_path, kilo_auth=False)
    url = f"http://127.0.0.1:{KILO_PORT}"
    found = await connect_host(SupervisorSettings(url=url), _env(tmp_path), transport=net.transport)
    await found.aclose()
    assert (found.info.kind, found.info.version) == ("kilo", "7.7.9")
    # 7.x is no OpenCode 1.x: asked for that line, the Kilo server is refused.
    with pytest.raises(HostError) as refused:
        await connect_host(
            SupervisorSettings(url=url, host="opencode-v1"),
            _env(tmp_path),
            transport=net.transport,
        )
    assert refused.value.kind == "protocol" and "not opencode-v1" in str(refused.value)


async def test_with_host_kilo_a_url_gets_the_kilo_password_only(tmp_path: Path) -> None:
    net = _loopback(tmp_path)
    url = f"http://127.0.0.1:{KILO_PORT}"
    host = await connect_host(
        SupervisorSettings(url=url, host="kilo"),
        _env(tmp_path, **PASSWORDS),
        transport=net.transport,
    )
    await host.aclose()
    assert host.info.kind == "kilo"
    assert set(net.seen[KILO_PORT]) == {_basic("kilo", "kilo-secret-1")}


async def test_under_auto_a_url_never_gets_the_kilo_password(tmp_path: Path) -> None:
    # OpenCode 1.x wants a password the user did not set; Kilo's is set: it stays home.
    net = _loopback(tmp_path)
    url = f"http://127.0.0.1:{OPENCODE_PORT}"
    only_kilo = {"KILO_SERVER_PASSWORD": "kilo-secret-1"}
    with pytest.raises(HostError) as denied:
        await connect_host(
            SupervisorSettings(url=url), _env(tmp_path, **only_kilo), transport=net.transport
        )
    assert denied.value.kind == "unauthorized"
    assert set(net.seen[OPENCODE_PORT]) == {None}


async def test_under_auto_a_kilo_url_wanting_a_password_says_to_set_the_host(
    tmp_path: Path,
) -> None:
    net = _loopback(tmp_path)
    url = f"http://127.0.0.1:{KILO_PORT}"
    with pytest.raises(HostError) as denied:
        await connect_host(
            SupervisorSettings(url=url), _env(tmp_path, **PASSWORDS), transport=net.transport
        )
    assert denied.value.kind == "unauthorized"
    assert "set supervisor.host to kilo ($KILO_SERVER_PASSWORD is sent only then)" in str(
        denied.value
    )
    assert _basic("kilo", "kilo-secret-1") not in net.seen[KILO_PORT]
