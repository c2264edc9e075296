"""The VS Code extension in real VS Code 1.139 (code-server 4.139.1), driven in headless Chromium.

scripts/setup-vscode.sh installs code-server, Node 24, Chromium and playwright-core into the cache
and builds editors/vscode/todo-ls.vsix; these tests fail (never skip) when any of it is missing.
The browser part lives in vscode_e2e.mjs; this file prepares a fresh VS Code profile, installs the
.vsix as a user would, starts code-server on 127.0.0.1 and cleans everything up afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

pytestmark = pytest.mark.editor

REPO = Path(__file__).resolve().parents[2]
EXTENSION = REPO / "editors" / "vscode"
VSIX = EXTENSION / "todo-ls.vsix"
CACHE = Path(os.environ.get("TODO_LS_CACHE") or Path.home() / ".cache" / "todo-ls")
NODE24_BIN = CACHE / "node24" / "bin"
CODE_SERVER = CACHE / "code-server" / "bin" / "code-server"
PLAYWRIGHT = CACHE / "playwright"
DRIVER = Path(__file__).with_name("vscode_e2e.mjs")
ARTIFACTS = REPO / "test-artifacts" / "vscode"
EXTENSION_SOURCES = ("src", "test", "package.json", "esbuild.mjs", ".vscodeignore")

# A server command line that cannot start, as after a broken install.
BROKEN_SERVER = [sys.executable, "-c", "raise SystemExit('todo-ls is broken')"]

PLAN = """\
# Plan — café

- [ ] write the intro ✓
- [x] set up CI
- [ ] ship it
  - [ ] tag the release
  - [x] write the changelog
"""


def _newest_source() -> float:
    paths = [EXTENSION / name for name in EXTENSION_SOURCES]
    files = [f for p in paths for f in ([p] if p.is_file() else p.rglob("*"))]
    return max(f.stat().st_mtime for f in files)


def _installed() -> None:
    """Fails with what to run when scripts/setup-vscode.sh's outputs are missing or stale."""
    needed = {
        "code-server": CODE_SERVER,
        "Node 24": NODE24_BIN / "node",
        "playwright-core": PLAYWRIGHT / "node_modules" / "playwright-core",
        "the extension's node_modules": EXTENSION / "node_modules",
        "the built extension": VSIX,
    }
    missing = [f"{what} ({path})" for what, path in needed.items() if not path.exists()]
    if shutil.which("chromium") is None:
        missing.append("chromium on PATH")
    if missing:
        pytest.fail(f"missing {', '.join(missing)}: run scripts/setup-vscode.sh", pytrace=False)
    if VSIX.stat().st_mtime < _newest_source():
        stale = f"{VSIX.name} is older than its sources: run scripts/setup-vscode.sh"
        pytest.fail(stale, pytrace=False)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _env(tmp: Path) -> dict[str, str]:
    """code-server's environment: Node 24 first, no gallery, every per-user folder in `tmp`."""
    env = dict(os.environ)
    env["PATH"] = f"{NODE24_BIN}{os.pathsep}{env.get('PATH', '')}"
    env["EXTENSIONS_GALLERY"] = "{}"
    env["TODO_LS_STATE_DIR"] = str(tmp / "todo-ls-state")
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        env[var] = str(tmp / var.lower())
    return env


def _write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")


def _profile(tmp: Path, server_command: list[str]) -> tuple[Path, list[str]]:
    """A workspace with PLAN.md subscribed, fresh user settings; returns (workspace, base args)."""
    workspace = tmp / "project"
    workspace.mkdir()
    (workspace / "PLAN.md").write_text(PLAN, encoding="utf-8")
    _write_json(workspace / ".vscode" / "settings.json", {"todoLs.markdownFiles": ["PLAN.md"]})
    user_data = tmp / "user-data"
    _write_json(
        user_data / "User" / "settings.json",
        {
            "todoLs.server.command": server_command,
            # A closed loopback port: the supervisor stays disconnected, whatever else runs here.
            "todoLs.supervisor.url": f"http://127.0.0.1:{_free_port()}",
            "workbench.startupEditor": "none",
            "workbench.tips.enabled": False,
            "workbench.secondarySideBar.defaultVisibility": "hidden",
            "telemetry.telemetryLevel": "off",
            "chat.disableAIFeatures": True,
            "security.workspace.trust.enabled": False,
            "extensions.autoCheckUpdates": False,
            "update.mode": "none",
            "files.autoSave": "off",
        },
    )
    base = [
        str(CODE_SERVER),
        "--config",
        str(tmp / "code-server.yaml"),
        "--user-data-dir",
        str(user_data),
        "--extensions-dir",
        str(tmp / "extensions"),
    ]
    return workspace, base


@contextmanager
def _code_server(tmp: Path, base: list[str], workspace: Path) -> Iterator[str]:
    """Runs code-server in its own process group; yields its URL; kills the group at the end."""
    env = _env(tmp)
    install = subprocess.run(
        [*base, "--install-extension", str(VSIX)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "successfully installed" in install.stdout, install.stdout + install.stderr
    port = _free_port()
    log = (tmp / "code-server.log").open("w")
    process = subprocess.Popen(
        [
            *base,
            *("--auth", "none", "--bind-addr", f"127.0.0.1:{port}"),
            *("--disable-telemetry", "--disable-update-check", "--disable-workspace-trust"),
            *("--disable-getting-started-override", "--ignore-last-opened", str(workspace)),
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=2):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(
                        "code-server did not come up: " + (tmp / "code-server.log").read_text()
                    ) from None
                time.sleep(0.2)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()


def _drive(tmp: Path, server_command: list[str]) -> list[dict[str, object]]:
    """Runs vscode_e2e.mjs against a fresh code-server; returns its steps, fails with its story."""
    _installed()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "failure.png").unlink(missing_ok=True)
    workspace, base = _profile(tmp, server_command)
    with _code_server(tmp, base, workspace) as url:
        env = {
            **os.environ,
            "CODE_SERVER_URL": url,
            "WORKSPACE": str(workspace),
            "ARTIFACTS": str(ARTIFACTS),
            "PLAYWRIGHT_DIR": str(PLAYWRIGHT),
            "CHROMIUM": str(shutil.which("chromium")),
            "BROKEN_SERVER_COMMAND": json.dumps(BROKEN_SERVER),
        }
        run = subprocess.run(
            [str(NODE24_BIN / "node"), str(DRIVER)],
            env=env,
            capture_output=True,
            text=True,
            timeout=80,
        )
    steps = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    print(f"VS Code screenshots: {ARTIFACTS}")
    for step in steps:
        print(json.dumps(step, ensure_ascii=False))
    if run.returncode != 0:
        pytest.fail(
            f"the VS Code run failed (exit {run.returncode}); screenshots in {ARTIFACTS}\n"
            f"{run.stdout}\n{run.stderr}\n"
            f"--- todo-ls output channel ---\n{_output_channel(tmp)[-4000:]}",
            pytrace=False,
        )
    return steps


def _output_channel(tmp: Path) -> str:
    """The extension's output channel as VS Code logged it (client messages, server stderr)."""
    logs = sorted((tmp / "user-data" / "logs").rglob("*todo-ls.log"))
    return "\n".join(p.read_text(errors="replace") for p in logs)


def _activation_lines(tmp: Path) -> list[str]:
    logs = (tmp / "user-data" / "logs").rglob("*exthost.log")
    return [
        line
        for log in logs
        for line in log.read_text(errors="replace").splitlines()
        if "_doActivateExtension todo-ls.todo-ls" in line
    ]


def test_extension_typechecks_lints_and_passes_its_unit_tests() -> None:
    _installed()
    run = subprocess.run(
        ["npm", "run", "--silent", "check"],
        cwd=EXTENSION,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert "# fail 0" in run.stdout


def test_status_bar_problems_inlay_hints_and_quick_fix_in_real_vscode(tmp_path: Path) -> None:
    steps = _drive(tmp_path, [sys.executable, "-m", "todo_ls"])
    assert [s["step"] for s in steps] == [
        "workbench loaded",
        "PLAN.md open",
        "status bar",
        "inlay hints",
        "code lens",
        "problems",
        "quick fix menu",
        "quick fix applied",
        "tooltip",
        "open items quick pick",
        "jumped to PLAN.md:6",
        "palette toggle",
        "saved",
        "broken server command shows stopped",
        "restarted",
    ]
    assert any("onLanguage:markdown" in line for line in _activation_lines(tmp_path))
    # First start, the broken command, the fixed command, "Restart server".
    log = _output_channel(tmp_path).splitlines()
    started = [line for line in log if "Starting the server" in line]
    assert len(started) == 4, started
    assert started[1].endswith(" ".join(BROKEN_SERVER)), started
