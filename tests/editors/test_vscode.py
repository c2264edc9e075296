"""The VS Code extension in real VS Code 1.139 (code-server 4.139.1), driven in headless Chromium.

scripts/setup-vscode.sh installs code-server, Node 24, Chromium and playwright-core into the cache
and builds editors/vscode/todo-ls.vsix; these tests fail (never skip) when any of it is missing.
The browser part lives in vscode_e2e.mjs; this file prepares a fresh VS Code profile, installs the
.vsix as a user would, starts code-server on 127.0.0.1 and cleans everything up afterwards.

The agent test points the supervisor at a real OpenCode 1.18.33 (the fake model and the fixtures
of test_editor_agent.py) whose project folder is the VS Code workspace, and watches the status bar
while a session works, is nudged and is paused. Its screenshot of the status bar and tooltip,
test-artifacts/vscode/8-agent-working.png, is the README's docs/vscode-status.png (copied there
when TODO_LS_UPDATE_DOCS=1).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from support.fake_agents import PASSWORD_ENV, busy_sessions
from support.fake_model import FakeModel, bash, stall, text
from support.scenarios import OpencodeServer
from test_editor_agent import FIRST_OPEN_LINE, model, nudges_received, opencode, state_words

from todo_ls import __version__
from todo_ls.store import Store

pytestmark = pytest.mark.editor

__all__ = ["model", "opencode"]  # the fixtures, shared with test_editor_agent.py

REPO = Path(__file__).resolve().parents[2]
EXTENSION = REPO / "editors" / "vscode"
VSIX = EXTENSION / "todo-ls.vsix"
CACHE = Path(os.environ.get("TODO_LS_CACHE") or Path.home() / ".cache" / "todo-ls")
NODE24_BIN = CACHE / "node24" / "bin"
CODE_SERVER = CACHE / "code-server" / "bin" / "code-server"
PLAYWRIGHT = CACHE / "playwright"
DRIVER = Path(__file__).with_name("vscode_e2e.mjs")
ARTIFACTS = REPO / "test-artifacts" / "vscode"
DOCS_PNG = REPO / "docs" / "vscode-status.png"
EXTENSION_SOURCES = ("src", "test", "package.json", "esbuild.mjs", ".vscodeignore")

# test_editor_agent.PLAN, which the `opencode` fixture writes into the agent's project.
AGENT_PROGRESS = "4/7 open"

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


def _env(tmp: Path, extra: dict[str, str | None]) -> dict[str, str]:
    """code-server's environment: Node 24 first, no gallery, every per-user folder in `tmp`, then
    `extra`, where None removes a variable (the extension host and the language server inherit
    all of it)."""
    env = dict(os.environ)
    env["PATH"] = f"{NODE24_BIN}{os.pathsep}{env.get('PATH', '')}"
    env["EXTENSIONS_GALLERY"] = "{}"
    env["TODO_LS_STATE_DIR"] = str(tmp / "todo-ls-state")
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        env[var] = str(tmp / var.lower())
    for name, value in extra.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def _write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")


def _profile(
    tmp: Path, server_command: list[str] | None, opencode: OpencodeServer | None = None
) -> tuple[Path, list[str]]:
    """A workspace with PLAN.md subscribed, fresh user settings; returns (workspace, base args).

    Without `opencode` the workspace is a folder with PLAN (written anew) and the supervisor
    points at a closed port. With it, the workspace is OpenCode's project folder (its PLAN.md
    written by the caller) and the supervisor watches that server, settling fast and without TUI
    toasts. `server_command` None leaves `todoLs.server.command` unset: the bundled server."""
    if opencode is None:
        workspace = tmp / "project"
        workspace.mkdir(exist_ok=True)
        (workspace / "PLAN.md").write_text(PLAN, encoding="utf-8")
        # A closed loopback port: the supervisor stays disconnected, whatever else runs here.
        supervisor: dict[str, object] = {
            "todoLs.supervisor.url": f"http://127.0.0.1:{_free_port()}"
        }
    else:
        workspace = opencode.project
        supervisor = {
            "todoLs.supervisor.url": opencode.url,
            "todoLs.supervisor.settleMs": 300,
            "todoLs.supervisor.toasts": False,
        }
    # The plan is subscribed by the project file, as a project shares it with every entry point
    # (the hook, `check`, other editors): VS Code's filled-in defaults must not override it.
    (workspace / "todo-ls.toml").write_text('markdownFiles = ["PLAN.md"]\n', encoding="utf-8")
    _write_json(workspace / ".vscode" / "settings.json", {})  # the driver edits it later
    command = {} if server_command is None else {"todoLs.server.command": server_command}
    return workspace, _user_settings(tmp, {**command, **supervisor})


def _machine_scoped() -> frozenset[str]:
    """The extension's settings of `machine` or `machine-overridable` scope (the server's
    command line): a remote window, which code-server's is, takes them from the remote
    machine's settings only. From the user settings VS Code drops them as soon as it knows the
    extension's schema, so there they would apply only when the file was read first: a race."""
    manifest = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    properties = manifest["contributes"]["configuration"]["properties"]
    return frozenset(
        key for key, schema in properties.items() if schema.get("scope", "").startswith("machine")
    )


def _user_settings(tmp: Path, todo_ls: dict[str, object]) -> list[str]:
    """A fresh VS Code profile in `tmp` with the `todo_ls` settings, each where a user of a
    remote window sets it (see _machine_scoped); returns code-server's base arguments (config,
    profile and extension folders)."""
    user_data = tmp / "user-data"
    machine = _machine_scoped()
    _write_json(
        user_data / "Machine" / "settings.json",
        {key: value for key, value in todo_ls.items() if key in machine},
    )
    _write_json(
        user_data / "User" / "settings.json",
        {
            **{key: value for key, value in todo_ls.items() if key not in machine},
            "workbench.startupEditor": "none",
            # Tooltips after 0.2 s instead of 1.5 s: the tests read them, some more than once.
            "workbench.hover.delay": 200,
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
    return base


@contextmanager
def _code_server(
    tmp: Path, base: list[str], workspace: Path, extra_env: dict[str, str | None], vsix: Path | None
) -> Iterator[str]:
    """Installs `vsix` (unless None: installed by an earlier run), runs code-server in its own
    process group; yields its URL; kills the group at the end."""
    env = _env(tmp, extra_env)
    if vsix is not None:
        install = subprocess.run(
            [*base, "--install-extension", str(vsix)],
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


Step = dict[str, object]


def _drive(
    tmp: Path,
    server_command: list[str] | None,
    opencode: OpencodeServer | None = None,
    on_step: Callable[[Step], None] = lambda step: None,
    *,
    scenario: dict[str, str] | None = None,
    vsix: Path | None = VSIX,
    env: dict[str, str | None] | None = None,
    profile: tuple[Path, list[str]] | None = None,
    timeout: float = 90,
) -> list[Step]:
    """Runs vscode_e2e.mjs against a fresh code-server; returns its steps, fails with its story.

    With `opencode` the driver runs its "agent" scenario against that server; `on_step` sees
    each step as the driver reports it, so the test can act on the agent side meanwhile.
    `scenario` (SCENARIO and its inputs) picks another driver scenario, `vsix` the extension to
    install (None: keep the one an earlier run in `tmp` installed), `env` changes code-server's
    environment (see _env), `profile` replaces _profile's (what code-server opens, its base
    arguments), `timeout` the seconds the driver may take."""
    _installed()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "failure.png").unlink(missing_ok=True)
    workspace, base = profile or _profile(tmp, server_command, opencode)
    server_env: dict[str, str | None] = dict(env or {})
    if opencode is not None and opencode.password is not None:
        server_env["OPENCODE_SERVER_PASSWORD"] = opencode.password
    steps: list[Step] = []
    with _code_server(tmp, base, workspace, server_env, vsix) as url:
        driver_env = {
            **os.environ,
            "CODE_SERVER_URL": url,
            "WORKSPACE": str(workspace),
            "ARTIFACTS": str(ARTIFACTS),
            "PLAYWRIGHT_DIR": str(PLAYWRIGHT),
            "CHROMIUM": str(shutil.which("chromium")),
            "BROKEN_SERVER_COMMAND": json.dumps(BROKEN_SERVER),
        }
        if opencode is not None:
            driver_env |= {"SCENARIO": "agent", "PROGRESS": AGENT_PROGRESS}
        driver_env |= scenario or {}
        stdout: list[str] = []
        with (tmp / "driver.err").open("w+") as stderr:
            driver = subprocess.Popen(
                [str(NODE24_BIN / "node"), str(DRIVER)],
                env=driver_env,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
            )
            # Bounded: a driver that hangs is killed, which ends its output and this loop.
            watchdog = threading.Timer(timeout, driver.kill)
            watchdog.start()
            try:
                assert driver.stdout is not None
                for line in driver.stdout:
                    stdout.append(line)
                    if line.startswith('{"step"'):
                        steps.append(json.loads(line))
                        on_step(steps[-1])
                returncode = driver.wait()
            finally:
                watchdog.cancel()
                driver.kill()
                driver.wait()
            stderr.seek(0)
            errors = stderr.read()
    print(f"VS Code screenshots: {ARTIFACTS}")
    for step in steps:
        print(json.dumps(step, ensure_ascii=False))
    if returncode != 0:
        pytest.fail(
            f"the VS Code run failed (exit {returncode}); screenshots in {ARTIFACTS}\n"
            f"{''.join(stdout)}\n{errors}\n"
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
    # The workspace's todo-ls.toml (or the todo-ls view in the Explorer) starts the extension
    # before PLAN.md is opened (it used to be onLanguage:markdown, still listed in package.json).
    [activation] = _activation_lines(tmp_path)
    started_by = ("workspaceContains:todo-ls.toml", "onView:todoLs.panel")
    assert any(f"activationEvent: '{event}'" in activation for event in started_by), activation
    # First start, the broken command, the fixed command, "Restart server".
    log = _output_channel(tmp_path).splitlines()
    started = [line for line in log if "Starting the server" in line]
    assert len(started) == 4, started
    assert started[1].endswith(" ".join(BROKEN_SERVER)), started


def test_a_command_run_while_the_server_starts_waits_for_it_and_answers(tmp_path: Path) -> None:
    """The extension starts its server in the background; a command does not fail meanwhile."""
    gate = tmp_path / "server-may-start"
    # The server starts once the driver creates `gate` (bounded: 2 minutes, should the driver die).
    wait_then_serve = (
        'i=0; while [ ! -e "$1" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done; '
        'exec "$0" -m todo_ls'
    )
    try:
        steps = _drive(
            tmp_path,
            ["sh", "-c", wait_then_serve, sys.executable, str(gate)],
            scenario={"SCENARIO": "slow-start", "GATE": str(gate)},
        )
    finally:
        gate.touch()
    assert [s["step"] for s in steps] == [
        "workbench loaded",
        "PLAN.md open",
        "command waits for the start",
        "answered once started",
    ]
    assert steps[2]["toasts"] == 0, "an answer (or an error) before the server started"
    assert "re-read 1 subscribed file(s)" in str(steps[3]["message"])
    assert steps[3]["toasts"] == 1, "an error toast beside the answer"


@pytest.mark.opencode
def test_status_bar_follows_a_real_opencode_agent_and_pause(
    tmp_path: Path, opencode: OpencodeServer, model: FakeModel
) -> None:
    """Issue 5's "sees the agent's state there while OpenCode runs", in VS Code."""
    requests_at: dict[str, int] = {}

    def on_step(step: Step) -> None:
        name = str(step["step"])
        requests_at[name] = len(model.requests)
        if name == "supervisor connected":
            # One turn: an 8 s tool (time to hover the status bar item while it runs), then the
            # agent stops with items open. The nudged turn takes ~1 s.
            model.script(
                bash("sleep 8; echo built", "Build"),
                text("Stopping here; the rest can wait."),
                stall(1.0, "Continuing with the plan"),
            )
            opencode.prompt(opencode.create_session("Agent in VS Code"), "Work on the plan.")

    run = _drive(tmp_path, [sys.executable, "-m", "todo_ls"], opencode, on_step)
    steps = {str(step["step"]): step for step in run}
    assert list(steps) == [
        "workbench loaded",
        "PLAN.md open",
        "supervisor connected",
        "working",
        "tooltip lists the session",
        "nudged turn over",
        "paused",
        "code lens paused",
    ]
    assert steps["supervisor connected"]["text"] == f"📋 ███░░░░░ {AGENT_PROGRESS}"
    assert steps["working"]["text"] == f"📋 ███░░░░░ {AGENT_PROGRESS} · working"
    session = str(steps["tooltip lists the session"]["session"])
    tooltip = steps["tooltip lists the session"]["tooltip"]
    assert isinstance(tooltip, list)
    assert any(line.startswith(f"{session} working · 1 tool") for line in tooltip), tooltip
    # The hover came while the tool ran: the model had not been asked for the next step yet.
    assert requests_at["tooltip lists the session"] == 1

    # The turn ended with items open: the agent was nudged with the first open item's place.
    [nudge] = nudges_received(model)
    assert nudge.startswith("Idle nudge #1"), nudge
    assert f"PLAN.md:{FIRST_OPEN_LINE}" in nudge and "write the parser" in nudge

    # The status bar went working → idle → working (the nudged turn) → idle, then paused.
    seen = steps["paused"]["seen"]
    assert isinstance(seen, list)
    words = state_words([{"text": shown} for shown in seen])
    assert words[-5:] == ["working", "idle", "working", "idle", "paused"], seen
    assert steps["paused"]["text"] == f"📋 ███░░░░░ {AGENT_PROGRESS} · paused"
    assert f"pause: {session} paused" in str(steps["paused"]["message"])

    if os.environ.get("TODO_LS_UPDATE_DOCS") == "1":
        shutil.copyfile(ARTIFACTS / "8-agent-working.png", DOCS_PNG)


# The self-contained extension: the .vsix the release ships, which sets its server up itself.


def test_bundled_vsix_carries_the_server_of_its_platform_and_the_one_version(
    bundled_vsix: Path,
) -> None:
    """The server unpacked, no wheels: pure libraries once in server/site, the compiled ones per
    Python version, the launcher and the manifest the extension reads."""
    with zipfile.ZipFile(bundled_vsix) as vsix:
        names = vsix.namelist()
        manifest = json.loads(vsix.read("extension/server/manifest.json"))
        package = json.loads(vsix.read("extension/package.json"))
        identity = vsix.read("extension.vsixmanifest").decode()
        carried = vsix.read("extension/server/site/todo_ls/__init__.py").decode()
    assert manifest["target"] == "linux-x64" and manifest["version"] == __version__
    assert f'__version__ = "{__version__}"' in carried
    assert package["version"] == __version__ and "scripts" not in package
    assert 'TargetPlatform="linux-x64"' in identity
    assert "extension/server/todo-ls.py" in names
    assert not [n for n in names if n.endswith(".whl")]
    for version in manifest["pythons"]:
        tag = version.replace(".", "")
        compiled = f"extension/server/py{version}/pydantic_core/_pydantic_core.cpython-{tag}"
        assert any(n.startswith(compiled) and n.endswith("-x86_64-linux-gnu.so") for n in names)
    shared = [n for n in names if n.startswith("extension/server/site/")]
    assert any(n.startswith("extension/server/site/pygls/") for n in shared)
    assert not [n for n in shared if "pydantic_core" in n]  # compiled: per version only
    assert "extension/out/extension.js" in names
    # No TypeScript source of the extension, no node_modules; the carried server's pi extension
    # is data `todo-ls install pi` writes (pi loads TypeScript as is).
    pi_extension = "extension/server/site/todo_ls/pi_extension/todo-ls.ts"
    assert pi_extension in names
    assert not [
        n for n in names if "node_modules" in n or (n.endswith(".ts") and n != pi_extension)
    ]


def _offline_env(path: str) -> dict[str, str | None]:
    """`path` as the extension host's PATH and pip pointed at a closed port: any download would
    fail. VSCODE_CLI=1 stops the VS Code server from adding the PATH of the login shell (pyenv
    shims and all) to the extension host's environment."""
    return {
        "PATH": path,
        "VSCODE_CLI": "1",
        "PIP_INDEX_URL": f"http://127.0.0.1:{_free_port()}/",
        "PIP_NO_INDEX": None,
        "PIP_FIND_LINKS": None,
    }


def _path_without_todo_ls() -> str:
    """Node 24 and every PATH folder without a todo-ls in it (so also without .venv/bin)."""
    folders = [NODE24_BIN, *map(Path, os.environ.get("PATH", "").split(os.pathsep))]
    path = os.pathsep.join(str(d) for d in folders if str(d) and not (d / "todo-ls").exists())
    assert shutil.which("todo-ls", path=path) is None
    return path


def _server_processes(tmp: Path) -> list[list[str]]:
    """Command lines of the running todo-ls servers started from a launcher under `tmp`."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().decode(errors="replace").split("\0")[:-1]
        except OSError:  # the process ended meanwhile
            continue
        if any(a.startswith(str(tmp)) and a.endswith("todo-ls.py") for a in args):
            found.append(args)
    return found


def test_bundled_server_starts_offline_from_what_it_carries_and_installs_nothing(
    tmp_path: Path, bundled_vsix: Path
) -> None:
    path = _path_without_todo_ls()
    python3 = shutil.which("python3", path=path)
    assert python3 is not None, "the test needs a python3 (3.10-3.13) on PATH"
    env = _offline_env(path)
    servers: list[list[str]] = []

    def on_step(step: Step) -> None:
        if step["step"] == "status bar":
            servers.extend(_server_processes(tmp_path))

    scenario = {"SCENARIO": "bundled"}
    first = _drive(tmp_path, None, None, on_step, scenario=scenario, vsix=bundled_vsix, env=env)
    assert [s["step"] for s in first] == [
        "workbench loaded",
        "PLAN.md open",
        "status bar",
        "quick fix menu",
        "quick fix applied",
    ]
    # The running server is the python3 on PATH running the extension's own launcher, isolated;
    # no venv, nothing in the extension's storage.
    probe = [python3, "-c", "import sys; print(sys.executable)"]
    interpreter = subprocess.run(probe, env={**os.environ, "PATH": path}, capture_output=True)
    [launcher] = (tmp_path / "extensions").glob("todo-ls.todo-ls-*/server/todo-ls.py")
    server = [interpreter.stdout.decode().strip(), "-I", str(launcher)]
    assert servers == [server]
    storage = tmp_path / "user-data" / "User" / "globalStorage" / "todo-ls.todo-ls"
    assert not (storage / "server").exists()
    log = _output_channel(tmp_path)
    assert f"Starting the server: {' '.join(server)}" in log

    # Second start, same profile: the same command line, still nothing installed.
    second = _drive(tmp_path, None, None, on_step, scenario=scenario, vsix=None, env=env)
    assert [s["step"] for s in second] == [s["step"] for s in first]
    assert servers == [server, server]
    log = _output_channel(tmp_path)
    print(
        f"bundled server: status bar at {first[2]['ms']} ms on the first start, "
        f"{second[2]['ms']} ms on the second (driver time)"
    )
    assert log.count("Starting the server") == 2
    assert "Setting up" not in log and "pip" not in log


def test_bundled_server_without_python_says_so_once_and_does_not_restart(
    tmp_path: Path, bundled_vsix: Path
) -> None:
    path = str(NODE24_BIN)  # node for code-server, and no Python at all
    assert not any(shutil.which(p, path=path) for p in ("python3", "python", "todo-ls"))
    steps = _drive(
        tmp_path,
        None,
        scenario={"SCENARIO": "no-python", "OBSERVE_MS": "5000"},
        vsix=bundled_vsix,
        env=_offline_env(path),
    )
    assert [s["step"] for s in steps] == [
        "workbench loaded",
        "PLAN.md open",
        "no Python",
        "still no Python",
    ]
    message = str(steps[2]["message"])
    assert "todo-ls needs Python 3.10–3.13" in message
    assert "found no Python on PATH" in message
    assert "sudo apt install python3" in message
    # Five seconds later: the same status, the one message, and no server ever started.
    assert steps[3]["statusBar"] is True
    assert steps[3]["toasts"] == 1
    log = _output_channel(tmp_path)
    assert log.count("todo-ls needs Python") == 1, log
    assert "Starting the server" not in log
    assert not (tmp_path / "user-data" / "User" / "globalStorage" / "todo-ls.todo-ls").exists()


TASKS = "# Tasks\n\n- [ ] only item here\n- [x] done one\n"
SESSION = "ses_second"


def test_multi_root_status_per_folder_and_an_agent_todo_list_in_real_vscode(
    tmp_path: Path,
) -> None:
    """Two folders in one window: the status bar follows the active editor's folder; an agent
    session (fake 2.x host) in the second folder keeps its own list in the store, which the
    tooltip counts and the quick pick toggles."""
    project, second = tmp_path / "project", tmp_path / "second"
    project.mkdir()
    second.mkdir()
    (project / "PLAN.md").write_text(PLAN, encoding="utf-8")
    (second / "TASKS.md").write_text(TASKS, encoding="utf-8")
    opens = tmp_path / "two.code-workspace"
    _write_json(opens, {"folders": [{"path": "project"}, {"path": "second"}]})
    todos = [
        {"content": "Write the parser", "status": "completed"},
        {"content": "Update the docs", "status": "pending"},
    ]
    state_dir = tmp_path / "todo-ls-state"  # _env's TODO_LS_STATE_DIR
    with busy_sessions(state_dir, {SESSION: second}, {SESSION: todos}) as fake:
        settings: dict[str, object] = {
            "todoLs.server.command": [sys.executable, "-m", "todo_ls"],
            "todoLs.markdownFiles": ["PLAN.md", "TASKS.md"],
            "todoLs.supervisor.url": fake.url,
            "todoLs.supervisor.toasts": False,
        }
        run = _drive(
            tmp_path,
            None,
            scenario={"SCENARIO": "folders", "WORKSPACE": str(project), "SESSION": SESSION},
            env={PASSWORD_ENV: fake.password},
            profile=(opens, _user_settings(tmp_path, settings)),
        )
    steps = {str(step["step"]): step for step in run}
    assert list(steps) == [
        "workbench loaded",
        "TASKS.md open",
        "second folder status",
        "tooltip shows the session's todos",
        "quick pick lists the session items",
        "session item toggled",
        "PLAN.md open",
        "first folder status",
    ]
    assert steps["second folder status"]["text"] == "📋 ████░░░░ 1/2 open · working"
    tooltip = steps["tooltip shows the session's todos"]["tooltip"]
    assert isinstance(tooltip, list)
    assert "Folder second:" in tooltip and "TASKS.md 1/2 open" in tooltip, tooltip
    assert any(line.startswith("Folder project: 📋") for line in tooltip), tooltip
    rows = steps["quick pick lists the session items"]["rows"]
    assert isinstance(rows, list)
    assert any("only item here" in row and "second/TASKS.md:3" in row for row in rows), rows
    assert any("[ ] Update the docs" in row and f"{SESSION} #2" in row for row in rows), rows
    assert "Update the docs" in str(steps["session item toggled"]["message"])
    assert steps["first folder status"]["text"] == "📋 ███░░░░░ 3/5 open"
    store = Store.open(state_dir)
    try:
        assert store.session_todos(SESSION) == [todos[0], {**todos[1], "status": "completed"}]
    finally:
        store.close()


def test_extension_typechecks_lints_and_passes_its_unit_tests() -> None:
    """With the Node 24 that runs code-server: `node --test` of a folder broke on Node 22+."""
    _installed()
    env = {**os.environ, "PATH": f"{NODE24_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    run = subprocess.run(
        ["npm", "run", "--silent", "check"],
        cwd=EXTENSION,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    # Node 24's test runner summary (spec reporter): `ℹ pass 16`, `ℹ fail 0`.
    passed = re.search(r"^ℹ pass (\d+)$", run.stdout, re.MULTILINE)
    assert passed and int(passed.group(1)) > 0, run.stdout[-4000:]
    assert re.search(r"^ℹ fail 0$", run.stdout, re.MULTILINE), run.stdout[-4000:]
