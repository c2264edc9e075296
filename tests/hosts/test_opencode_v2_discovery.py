"""Finding an OpenCode 2.x server: the registration file, the URL setting, `host: auto` probes."""

from __future__ import annotations

import logging
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from support.fake_v2 import NEWER, OPENAPI_BUILD, FakeV2Server, Variant

from todo_ls.hosts.base import HostError
from todo_ls.hosts.discovery import connect_host
from todo_ls.hosts.local_servers import Listener
from todo_ls.hosts.opencode_v2.adapter import OpenCodeV2Host
from todo_ls.hosts.opencode_v2.registration import from_registration, registration_path
from todo_ls.settings.model import SupervisorSettings

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
async def fake() -> AsyncIterator[FakeV2Server]:
    server = FakeV2Server()
    await server.start()
    yield server
    await server.stop()


def _closed_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def _state_env(tmp_path: Path) -> dict[str, str]:
    return {"XDG_STATE_HOME": str(tmp_path / "state"), "HOME": str(tmp_path / "home")}


def test_registration_path_follows_xdg_state_home(tmp_path: Path) -> None:
    env = _state_env(tmp_path)
    assert registration_path(env) == tmp_path / "state" / "opencode" / "service.json"
    home_only = {"HOME": str(tmp_path / "home")}
    assert registration_path(home_only) == (
        tmp_path / "home" / ".local" / "state" / "opencode" / "service.json"
    )


@pytest.mark.parametrize("variant", [NEWER, OPENAPI_BUILD], ids=["api-info", "api-health"])
async def test_auto_finds_the_registered_service_with_no_setting(
    tmp_path: Path, variant: Variant, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    server = FakeV2Server(variant=variant, password="reg-secret-123")
    await server.start()
    try:
        env = _state_env(tmp_path)
        server.write_registration(tmp_path / "state")
        host = await connect_host(SupervisorSettings(), env)
        try:
            assert isinstance(host, OpenCodeV2Host)
            assert (host.info.kind, host.info.url, host.info.version) == (
                "opencode-v2",
                server.url,
                "2.0.17",
            )
            assert await host.busy_sessions() == {}  # the registered password works
        finally:
            await host.aclose()
        assert "reg-secret-123" not in caplog.text
    finally:
        await server.stop()


async def test_a_stale_registration_is_not_trusted(tmp_path: Path, fake: FakeV2Server) -> None:
    env = _state_env(tmp_path)
    assert await from_registration(env) is None  # no file
    fake.write_registration(tmp_path / "state")
    fake.pid += 1  # another process answers there now: not the registered one
    assert await from_registration(env) is None
    fake.pid -= 1
    found = await from_registration(env)
    assert found is not None and found.info.url == fake.url
    await found.aclose()
    # A registration naming a port where nothing listens is stale too: probing takes over.
    path = fake.write_registration(tmp_path / "state")
    path.write_text(path.read_text().replace(fake.url, _closed_url()))
    assert await from_registration(env) is None
    env_with_pw = {**env, "OPENCODE_PASSWORD": fake.password}
    host = await connect_host(SupervisorSettings(url=fake.url), env_with_pw)
    assert host.info.kind == "opencode-v2"
    await host.aclose()
    path.write_text("{not json")
    assert await from_registration(env) is None


async def test_url_setting_with_the_password_from_the_environment(fake: FakeV2Server) -> None:
    for env in ({"OPENCODE_PASSWORD": fake.password}, {"OPENCODE_SERVER_PASSWORD": fake.password}):
        host = await connect_host(SupervisorSettings(url=fake.url), env)
        assert host.info.kind == "opencode-v2"
        await host.aclose()
    custom = SupervisorSettings(url=fake.url, host="opencode-v2", password_env="MY_PW")
    host = await connect_host(custom, {"MY_PW": fake.password})
    assert host.info.version == "2.0.17"
    await host.aclose()


async def test_wrong_password_is_reported_as_unauthorized(
    tmp_path: Path, fake: FakeV2Server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with pytest.raises(HostError) as denied:
        await connect_host(SupervisorSettings(url=fake.url), {"OPENCODE_PASSWORD": "nope-pw-9"})
    assert denied.value.kind == "unauthorized" and "OPENCODE_PASSWORD" in str(denied.value)
    # A registration whose own password is refused is a problem to show, not to skip.
    fake.write_registration(tmp_path / "state")
    fake.password = "rotated-pw"
    with pytest.raises(HostError) as refused:
        await connect_host(SupervisorSettings(), _state_env(tmp_path))
    assert refused.value.kind == "unauthorized" and "service.json" in str(refused.value)
    assert "nope-pw-9" not in caplog.text


async def test_probes_judge_the_body_not_the_status() -> None:
    # What OpenCode 1.18 answers: HTML on /api/info, {"healthy": true} on /api/health.
    v1 = FakeV2Server(variant=Variant(identity="v1"))
    await v1.start()
    try:
        env = {"OPENCODE_SERVER_PASSWORD": v1.password}
        with pytest.raises(HostError) as not_v2:
            await connect_host(SupervisorSettings(url=v1.url, host="opencode-v2"), env)
        assert not_v2.value.kind == "protocol"
        host = await connect_host(SupervisorSettings(url=v1.url), env)
        assert (host.info.kind, host.info.version) == ("opencode-v1", "1.18.33")
        await host.aclose()
    finally:
        await v1.stop()


async def test_host_v1_setting_ignores_the_registration(tmp_path: Path, fake: FakeV2Server) -> None:
    fake.write_registration(tmp_path / "state")
    settings = SupervisorSettings(url=_closed_url(), host="opencode-v1")
    with pytest.raises(HostError) as unreachable:
        await connect_host(settings, _state_env(tmp_path))
    assert unreachable.value.kind == "unreachable"


# --- local processes (the listing is injected; tests/unit/test_local_servers.py covers it) ---


def _listener(url: str, *argv: str) -> Listener:
    return Listener(pid=4321, port=int(url.rsplit(":", 1)[1]), argv=("opencode", *argv))


async def test_a_local_2x_server_is_found_on_any_port(tmp_path: Path, fake: FakeV2Server) -> None:
    env = {**_state_env(tmp_path), "OPENCODE_PASSWORD": fake.password}
    closed = _listener(_closed_url(), "serve")  # ended between the listing and the probe
    found = [closed, _listener(fake.url, "serve")]
    host = await connect_host(
        SupervisorSettings(), env, directories=[str(tmp_path)], listeners=lambda: found
    )
    try:
        assert (host.info.kind, host.info.url) == ("opencode-v2", fake.url)
    finally:
        await host.aclose()


async def test_nothing_found_says_how_to_start_opencode(tmp_path: Path) -> None:
    for listed in ([], [_listener(_closed_url())]):
        with pytest.raises(HostError) as nothing:
            await connect_host(
                SupervisorSettings(), _state_env(tmp_path), listeners=lambda listed=listed: listed
            )
        assert nothing.value.kind == "unreachable"
        text = str(nothing.value)
        assert "opencode --port 4096" in text and "`opencode serve`" in text
        assert "opencode attach" in text and "todoLs.supervisor.url" in text


async def test_a_local_server_needing_a_password_says_which(
    tmp_path: Path, fake: FakeV2Server
) -> None:
    with pytest.raises(HostError) as denied:
        await connect_host(
            SupervisorSettings(), _state_env(tmp_path), listeners=lambda: [_listener(fake.url)]
        )
    assert denied.value.kind == "unauthorized" and "OPENCODE_PASSWORD" in str(denied.value)
    assert "opencode --port 4096" in str(denied.value)  # it may be another folder's server


async def test_the_url_setting_skips_the_process_listing(
    tmp_path: Path, fake: FakeV2Server
) -> None:
    def never() -> list[Listener]:
        raise AssertionError("listed processes although supervisor.url is set")

    env = {**_state_env(tmp_path), "OPENCODE_PASSWORD": fake.password}
    host = await connect_host(SupervisorSettings(url=fake.url), env, listeners=never)
    await host.aclose()
