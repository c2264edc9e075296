"""Security properties of real todo-ls processes: no listening socket unless `--tcp` (and then
on loopback), the host password never in any log line or error message even at DEBUG, and the
shared store private to the user (mode 0600)."""

from __future__ import annotations

import base64
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonrpc_frames
import pytest
from support.fake_v2 import FakeV2Server, Variant
from support.reliability_support import (
    ServerThread,
    initialize_over_stdio,
    read_message,
    wait_until,
)

from todo_ls.store import DB_NAME, Store

pytestmark = pytest.mark.timeout(60)

TODO_LS = [sys.executable, "-m", "todo_ls"]
LISTEN = "0A"  # TCP state in /proc/net/tcp


def listening(pid: int) -> list[tuple[str, int]]:
    """(address, port) of the TCP sockets of `pid` in LISTEN state, from /proc."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table in ("tcp", "tcp6"):
        lines = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
        for line in lines:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == LISTEN and inode in inodes:
                address, port = local.split(":")
                found.append((_address(address), int(port, 16)))
    return found


def _address(hex_address: str) -> str:
    if len(hex_address) == 8:  # IPv4, little-endian
        return socket.inet_ntop(socket.AF_INET, bytes.fromhex(hex_address)[::-1])
    raw = b"".join(bytes.fromhex(hex_address[i : i + 8])[::-1] for i in range(0, 32, 8))
    return socket.inet_ntop(socket.AF_INET6, raw)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """An environment whose state and config live in the test's folder."""
    return {
        **os.environ,
        "TODO_LS_STATE_DIR": str(tmp_path / "state"),
        "XDG_STATE_HOME": str(tmp_path / "xdg-state"),
        "HOME": str(tmp_path / "home"),
    }


@contextlib.contextmanager
def running(
    args: list[str], env: dict[str, str], **kw: object
) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(args, env=env, **kw)  # type: ignore[call-overload]
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


def test_stdio_server_listens_on_no_socket(tmp_path: Path, env: dict[str, str]) -> None:
    args = [*TODO_LS, "serve"]
    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.DEVNULL}
    with running(args, env, **pipes) as proc:
        answer = initialize_over_stdio(proc, tmp_path)
        assert "capabilities" in answer["result"]  # type: ignore[operator]
        host_tried(proc)  # the supervisor is up and has tried its host (outbound only)
        assert listening(proc.pid) == []


def host_tried(proc: subprocess.Popen[bytes]) -> None:
    """Read the server's messages (answering its requests) until a `todoLs/status` says the
    supervisor connected to a host or failed to."""
    assert proc.stdin is not None
    while True:
        message: dict[str, Any] = read_message(proc)
        if "id" in message and "method" in message:  # a request of the server: answer null
            proc.stdin.write(jsonrpc_frames.encode({"id": message["id"], "result": None}))
            proc.stdin.flush()
        elif message.get("method") == "todoLs/status":
            host = message["params"]["supervisor"]["host"] or {}
            if host.get("connected") or host.get("error"):
                return


def test_tcp_server_binds_loopback_by_default(tmp_path: Path, env: dict[str, str]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    args = [*TODO_LS, "serve", "--tcp", "--port", str(port)]
    with running(args, env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as proc:
        deadline = time.monotonic() + 15
        while not (found := listening(proc.pid)):
            assert proc.poll() is None, "todo-ls --tcp exited"
            assert time.monotonic() < deadline, "todo-ls --tcp did not listen"
            time.sleep(0.1)
        assert found == [("127.0.0.1", port)]


PASSWORD = "s3cret-Pw-9f2c"


def _forms(secret: str) -> list[str]:
    token = base64.b64encode(f"opencode:{secret}".encode()).decode()
    return [secret, token, f"opencode:{secret}"]


def supervise_output(fake: FakeV2Server, env: dict[str, str], until: Callable[[str], bool]) -> str:
    """Everything `todo-ls supervise --log-level DEBUG` prints until its output so far
    satisfies `until`, and then until it has ended on SIGTERM."""
    folder = Path(env["HOME"]) / "project"
    folder.mkdir(parents=True, exist_ok=True)
    args = [*TODO_LS, "supervise", "--url", fake.url, "--directory", str(folder)]
    args += ["--log-level", "DEBUG"]
    lines: list[str] = []
    with running(args, env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) as proc:
        assert proc.stdout is not None
        stdout = proc.stdout
        reader = threading.Thread(
            target=lambda: lines.extend(raw.decode(errors="replace") for raw in stdout),
            daemon=True,
        )
        reader.start()
        try:
            wait_until(lambda: until("".join(lines)), 30, "the expected output")
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(10)
            reader.join(10)
    return "".join(lines)


def test_password_is_in_no_log_line_when_it_works(env: dict[str, str]) -> None:
    """DEBUG logging of a working connection and a delivered nudge: the password (and its
    Basic-auth encodings) appear nowhere, not in request lines nor in URLs."""
    fake = FakeV2Server(password=PASSWORD)
    server = ServerThread(fake)
    try:
        project = str(Path(env["HOME"]) / "project")
        server.call(fake.add_session, "ses_sec", project)
        out = supervise_output(
            fake,
            {**env, "OPENCODE_PASSWORD": PASSWORD},
            lambda out: "connected to opencode-v2" in out and "/api/event" in out,
        )
    finally:
        server.stop()
    assert "connected to opencode-v2" in out, out[-2000:]
    assert "/api/event" in out  # DEBUG really logged the requests
    for form in _forms(PASSWORD):
        assert form not in out


@pytest.mark.parametrize(
    ("variant", "env_name"),
    [(Variant(), "OPENCODE_PASSWORD"), (Variant(identity="v1"), "OPENCODE_SERVER_PASSWORD")],
    ids=["v2", "v1"],
)
def test_password_is_in_no_401_error(env: dict[str, str], variant: Variant, env_name: str) -> None:
    """A wrong password: the 401 is reported (naming the variable to fix), never the
    password that was tried."""
    wrong = "wr0ng-Pw-77aa"
    fake = FakeV2Server(password=PASSWORD, variant=variant)
    server = ServerThread(fake)
    try:
        out = supervise_output(
            fake, {**env, env_name: wrong}, lambda out: "401" in out and env_name in out
        )
    finally:
        server.stop()
    assert "401" in out and env_name in out, out[-2000:]
    for form in [*_forms(wrong), *_forms(PASSWORD)]:
        assert form not in out


def test_store_is_created_private(tmp_path: Path) -> None:
    old = os.umask(0o022)  # the common default: files would be world-readable
    try:
        store = Store.open(tmp_path / "state")
        store.pause("ses_x", "user", 1.0)  # WAL and shared-memory files appear on write
        modes = {p.name: p.stat().st_mode & 0o777 for p in (tmp_path / "state").iterdir()}
        store.close()
    finally:
        os.umask(old)
    assert modes[DB_NAME] == 0o600
    assert all(mode & 0o077 == 0 for mode in modes.values()), modes
    assert (tmp_path / "state").stat().st_mode & 0o077 == 0
