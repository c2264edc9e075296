"""The release artifacts, built by the scripts the release workflow runs, and installed the way the
README tells users to: the wheel and sdist (scripts/build-dist.sh), the per-platform wheel sets the
VS Code extension bundles (scripts/build-wheelhouse.sh), and `pipx install` / `uv tool install` of
the wheel into a fresh HOME with no network.

No network means: pip and uv pointed at a closed loopback port, no pip configuration, and the
wheels offered only through `--no-index --find-links` of a wheelhouse built here from the cached
downloads. The tools come from scripts/setup-packaging.sh (pinned, in the cache).
"""

from __future__ import annotations

import json
import os
import platform
import re
import socket
import subprocess
import sys
import sysconfig
import tarfile
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path

import pytest
from support.reliability_support import end_process, initialize_over_stdio

from todo_ls import __version__

REPO = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("TODO_LS_CACHE") or Path.home() / ".cache" / "todo-ls")
TOOLS = CACHE / "packaging" / "bin"
TARGETS = ("linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64")
PYTHONS = ("3.10", "3.11", "3.12", "3.13")
# What a compiled wheel's platform tag holds for each target: its kind and its machine.
TARGET_PLATFORMS = {
    "linux-x64": ("manylinux", "x86_64"),
    "linux-arm64": ("manylinux", "aarch64"),
    "darwin-x64": ("macosx", "x86_64"),
    "darwin-arm64": ("macosx", "arm64"),
    "win32-x64": ("win", "amd64"),
}
PLAN = "# Plan\n\n- [ ] write the parser\n- [x] add tests\n"


@dataclass
class Dist:
    wheel: Path
    sdist: Path
    output: str


def _run(command: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    """Runs `command` to success (printing how long it took); returns its stdout."""
    started = time.monotonic()
    run = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, f"{command}: exit {run.returncode}\n{run.stdout}\n{run.stderr}"
    print(f"{Path(command[0]).name} {' '.join(command[1:2])}: {time.monotonic() - started:.1f} s")
    return run.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Dist:
    out = tmp_path_factory.mktemp("dist")
    output = _run([str(REPO / "scripts" / "build-dist.sh"), str(out)])
    wheel = out / f"todo_ls-{__version__}-py3-none-any.whl"
    return Dist(wheel, out / f"todo_ls-{__version__}.tar.gz", output)


def _host_target() -> str:
    machine = {"x86_64": "x64", "aarch64": "arm64", "arm64": "arm64", "amd64": "x64"}
    assert platform.system() == "Linux", "the install tests run on Linux"
    return f"linux-{machine[platform.machine().lower()]}"


@pytest.fixture(scope="module")
def wheelhouse(dist: Dist, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This machine's wheel set: the wheel and every dependency, from the cached downloads."""
    out = tmp_path_factory.mktemp("wheelhouse") / "wheels"
    _run([str(REPO / "scripts" / "build-wheelhouse.sh"), _host_target(), str(dist.wheel), str(out)])
    return out


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port  # closed again when the socket is: nothing listens there


def _offline_home(tmp_path: Path) -> dict[str, str]:
    """A fresh HOME (XDG folders inside it) where pip and uv can reach no index."""
    home = tmp_path / "home"
    home.mkdir()
    closed = f"http://127.0.0.1:{_closed_port()}/"
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PIPX_", "UV_", "XDG_"))
    }
    return {
        **env,
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_BIN_HOME": str(home / ".local" / "bin"),
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_INDEX_URL": closed,
        "UV_DEFAULT_INDEX": closed,
        "UV_NO_CONFIG": "1",
        "UV_PYTHON_DOWNLOADS": "never",
        "TODO_LS_STATE_DIR": str(home / "todo-ls-state"),
    }


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """A folder outside any checkout with a plan in it: where the installed tool runs."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "PLAN.md").write_text(PLAN, encoding="utf-8")
    yield folder


def _check_installed(exe: Path, env: dict[str, str], project: Path) -> None:
    """The installed `todo-ls`: its version, a check of a plan, an LSP initialize answer."""
    home = Path(env["HOME"])
    assert exe.is_file(), f"no {exe}"
    # The tool's own interpreter, inside the fresh HOME: nothing comes from this checkout.
    interpreter = exe.read_text("utf-8", errors="replace").splitlines()[0].removeprefix("#!")
    assert interpreter.startswith(str(home)), interpreter
    where = "import todo_ls; print(todo_ls.__file__)"
    assert _run([interpreter.split()[0], "-c", where], env=env, cwd=project).startswith(str(home))

    assert _run([str(exe), "--version"], env=env, cwd=project).strip() == f"todo-ls {__version__}"
    check = subprocess.run(
        [str(exe), "check", "--format", "json", "PLAN.md"],
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert check.returncode == 1, check.stderr  # an open item: the CI gate fails
    assert json.loads(check.stdout)["totals"] == {
        "open": 1,
        "done": 1,
        "canceled": 0,
        "total": 2,
        "files": 1,
    }
    server = subprocess.Popen(
        [str(exe)], env=env, cwd=project, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        answer = initialize_over_stdio(server, project)
    finally:
        end_process(server)
    result = answer["result"]
    assert isinstance(result, dict)
    assert result["serverInfo"] == {"name": "todo-ls", "version": __version__}
    assert "codeActionProvider" in result["capabilities"]

    # `todo-ls mcp` runs on the installed dependencies alone (no MCP SDK among them).
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "x"}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    mcp = subprocess.run(
        [str(exe), "mcp"],
        input="".join(json.dumps(line) + "\n" for line in lines),
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert mcp.returncode == 0, mcp.stderr
    answers = [json.loads(line) for line in mcp.stdout.splitlines()]
    assert answers[0]["result"]["serverInfo"] == {"name": "todo", "version": __version__}
    assert len(answers[1]["result"]["tools"]) == 4


def test_wheel_and_sdist_pass_twine_and_carry_the_one_version(dist: Dist) -> None:
    assert re.findall(r"Checking \S+: \S*PASSED", dist.output.replace("\x1b", "")), dist.output
    with zipfile.ZipFile(dist.wheel) as wheel:
        names = wheel.namelist()
        metadata = HeaderParser().parsestr(
            wheel.read(f"todo_ls-{__version__}.dist-info/METADATA").decode()
        )
    assert metadata["Version"] == __version__
    assert metadata["Requires-Python"] == ">=3.10"
    assert "# todo-ls" in str(metadata.get_payload())  # the README is the project description
    assert {name.split("/")[0] for name in names} == {"todo_ls", f"todo_ls-{__version__}.dist-info"}
    # The wheel every platform installs is pure Python, even when the checkout it was built from
    # holds the compiled scanner (scripts/setup-compiled.sh builds it beside scan.py).
    assert "todo_ls/checklist/scan.py" in names
    # What `todo-ls install opencode` and `todo-ls install pi` take from the package.
    assert "todo_ls/opencode_plugin/todo-ls-v1.js" in names
    assert "todo_ls/pi_extension/todo-ls.ts" in names
    assert not [n for n in names if n.endswith((".so", ".pyd", ".c", ".compiled-from"))], names
    assert f"todo_ls-{__version__}.dist-info/licenses/LICENSE" in names
    with tarfile.open(dist.sdist) as sdist:
        sdist_names = [name for name in sdist.getnames() if len(Path(name).parts) > 2]
        top = {Path(name).parts[1] for name in sdist.getnames() if len(Path(name).parts) > 1}
    assert {"todo_ls", "tests", "CHANGELOG.md", "LICENSE", "pyproject.toml"} <= top
    assert not top & {"lua", "plugin", "lsp", "doc"}, top  # editor plugins ship apart
    # ... but the OpenCode plugin and the pi extension ride in the wheel (`todo-ls install`).
    editors = {Path(n).parts[2] for n in sdist_names if Path(n).parts[1:2] == ("editors",)}
    assert editors <= {"opencode", "pi"}, editors
    package = json.loads((REPO / "editors" / "vscode" / "package.json").read_text("utf-8"))
    assert package["version"] == __version__
    assert f"## {__version__}" in (REPO / "CHANGELOG.md").read_text("utf-8")


def _hatchling(code: str, cwd: Path, compiled: bool) -> str:
    """Runs `code` against hatchling's build API in `cwd`, with TODO_LS_COMPILED=1 or without."""
    env = {k: v for k, v in os.environ.items() if k != "TODO_LS_COMPILED"}
    if compiled:
        env["TODO_LS_COMPILED"] = "1"
    return _run([sys.executable, "-c", f"import hatchling.build as b\n{code}"], env=env, cwd=cwd)


def test_the_opt_in_compiled_wheel_carries_the_compiled_scanner(dist: Dist, tmp_path: Path) -> None:
    """TODO_LS_COMPILED=1: a wheel for this platform and Python with the scanner compiled by
    mypyc beside scan.py, built from the sdist; only that build asks for mypy."""
    with tarfile.open(dist.sdist) as sdist:
        sdist.extractall(tmp_path, filter="data")
    source = tmp_path / f"todo_ls-{__version__}"
    requires = "print(b.get_requires_for_build_wheel())"
    assert _hatchling(requires, source, compiled=False).strip() == "[]"
    assert "mypy" in _hatchling(requires, source, compiled=True)
    out = tmp_path / "out"
    name = _hatchling(f"print(b.build_wheel({str(out)!r}))", source, compiled=True).split()[-1]
    tag = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    assert name.endswith(f"-{tag}.whl") and "-none-" not in name, name
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    with zipfile.ZipFile(out / name) as wheel:
        names = set(wheel.namelist())
        wheel.extractall(tmp_path / "site")
    scan = "todo_ls/checklist/scan"
    built = {f"{scan}{suffix}", f"{scan}__mypyc{suffix}", f"{scan}.compiled-from"}
    assert {f"{scan}.py", *built} <= names
    # Installed, the package parses with the compiled scanner, and finds what the pure one does.
    probe = (
        "from todo_ls.checklist import scan_loader, parse\n"
        f"print(scan_loader.COMPILED, parse({PLAN!r}) == scan_loader.load_pure().scan({PLAN!r}))"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    assert _run([sys.executable, "-c", probe], env=env, cwd=tmp_path).strip() == "True True"


def test_pipx_installs_the_wheel_in_a_fresh_home_without_network(
    dist: Dist, wheelhouse: Path, tmp_path: Path, project: Path
) -> None:
    env = _offline_home(tmp_path)
    pip_args = f"--no-index --find-links={wheelhouse}"
    _run([str(TOOLS / "pipx"), "install", f"--pip-args={pip_args}", str(dist.wheel)], env=env)
    _check_installed(Path(env["XDG_BIN_HOME"]) / "todo-ls", env, project)


def test_uv_tool_installs_the_wheel_in_a_fresh_home_without_network(
    dist: Dist, wheelhouse: Path, tmp_path: Path, project: Path
) -> None:
    env = _offline_home(tmp_path)
    command = [str(TOOLS / "uv"), "tool", "install", "--no-index", "--find-links", str(wheelhouse)]
    _run([*command, str(dist.wheel)], env=env)
    _check_installed(Path(env["XDG_BIN_HOME"]) / "todo-ls", env, project)


def _for_target(wheel: str, target: str) -> bool:
    """Whether a compiled wheel's platform tag (e.g. `manylinux2014_x86_64`) fits the target."""
    tag = wheel.removesuffix(".whl").split("-")[-1]
    kind, machine = TARGET_PLATFORMS[target]
    return tag.startswith(kind) and (machine in tag or "universal2" in tag)


@pytest.mark.parametrize("target", TARGETS)
def test_each_release_target_gets_a_complete_wheel_set(
    target: str, dist: Dist, tmp_path: Path
) -> None:
    """What build-vsix.sh puts into each platform's .vsix: one compiled pydantic-core per Python
    version, every compiled wheel for that platform, the dependencies only older Pythons need,
    pip, the manifest."""
    out = tmp_path / "wheels"
    _run([str(REPO / "scripts" / "build-wheelhouse.sh"), target, str(dist.wheel), str(out)])
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    wheels = sorted(p.name for p in out.glob("*.whl"))
    assert manifest == {
        "version": __version__,
        "target": target,
        "pythons": list(PYTHONS),
        "pip": next(w for w in wheels if w.startswith("pip-")),
    }
    pydantic_core = [w for w in wheels if w.startswith("pydantic_core-")]
    assert [re.search(r"-(cp3\d+)-", w).group(1) for w in pydantic_core] == [  # type: ignore[union-attr]
        f"cp{v.replace('.', '')}" for v in PYTHONS
    ]
    # Every compiled wheel is for this platform (the script proved the set complete per Python).
    compiled = [w for w in wheels if not w.endswith("-none-any.whl")]
    assert all(_for_target(w, target) for w in compiled), compiled
    for only_for_310 in ("tomli-", "exceptiongroup-"):
        assert any(w.startswith(only_for_310) for w in wheels), (only_for_310, wheels)
    assert f"todo_ls-{__version__}-py3-none-any.whl" in wheels


def test_release_workflow_builds_with_the_tested_scripts_for_every_target() -> None:
    """The release cannot run here; its steps are the scripts these tests run, its target list
    is the one tested above, and its release notes come out of the changelog."""
    workflow = (REPO / ".github" / "workflows" / "release.yml").read_text("utf-8")
    scripts = set(re.findall(r"scripts/[\w-]+\.sh", workflow))
    assert scripts == {"scripts/build-dist.sh", "scripts/build-vsix.sh"}, scripts
    assert all(os.access(REPO / script, os.X_OK) for script in scripts)
    vsix_step = re.search(r"scripts/build-vsix\.sh[^\n]*\\\n\s+([^\n]+)", workflow)
    assert vsix_step is not None and tuple(vsix_step.group(1).split()) == TARGETS
    [notes] = re.findall(r"^\s+(awk .* CHANGELOG\.md) >notes\.md$", workflow, re.M)
    shell = subprocess.run(
        ["bash", "-c", notes],
        cwd=REPO,
        env={**os.environ, "version": __version__},
        capture_output=True,
        text=True,
        check=True,
    )
    # The changelog has a section for this version, and the notes stop at the next one.
    assert shell.stdout.strip() and "\n## " not in shell.stdout, shell.stdout


def test_release_publishes_compiled_wheels_for_every_supported_python() -> None:
    """The compiled wheels are built by the hook the compiled-wheel test above runs, for each
    CPython the package supports, checked to load the compiled scanner, and published."""
    workflow = (REPO / ".github" / "workflows" / "release.yml").read_text("utf-8")
    job = workflow.split("\n  compiled-wheels:\n", 1)[1].split("\n\n  ", 1)[0]
    hook = (REPO / "hatch_build.py").read_text("utf-8")
    [enable] = re.findall(r'^ENABLE = "(\w+)"$', hook, re.M)
    assert f"CIBW_ENVIRONMENT: {enable}=1" in job
    classifiers = (REPO / "pyproject.toml").read_text("utf-8")
    pythons = re.findall(r'"Programming Language :: Python :: 3\.(\d+)"', classifiers)
    [built] = re.findall(r'CIBW_BUILD: "([^"]+)"', job)
    assert built.split() == [f"cp3{minor}-*" for minor in pythons], (built, pythons)
    assert "scan_loader.COMPILED" in job
    for consumer in ("pypi", "github-release"):
        section = workflow.split(f"\n  {consumer}:\n", 1)[1].split("\n\n  ", 1)[0]
        assert "compiled-wheels" in section.split("steps:")[0], consumer
    assert "pattern: compiled-*" in workflow.split("\n  pypi:\n", 1)[1]


def test_release_publishes_every_vsix_to_open_vsx_with_a_token_secret() -> None:
    """Open VSX gets the .vsix files the build job made (all targets, one pinned ovsx call),
    with the token from a secret, never written into the workflow."""
    workflow = (REPO / ".github" / "workflows" / "release.yml").read_text("utf-8")
    job = workflow.split("\n  open-vsx:\n", 1)[1].split("\n\n  ", 1)[0]
    assert "needs: [build]" in job
    assert "name: vsix" in job and "path: vsix" in job  # the build job's artifact
    [publish] = re.findall(r"run: (npx .*)$", job, re.M)
    assert re.fullmatch(
        r"npx --yes ovsx@\d+\.\d+\.\d+ publish --packagePath vsix/\*\.vsix", publish
    )
    assert "OVSX_PAT: ${{ secrets.OVSX_PAT }}" in job
    # The build job uploads exactly the files this job publishes.
    build = workflow.split("\n  build:\n", 1)[1].split("\n\n  ", 1)[0]
    assert "name: vsix\n          path: vsix/*.vsix" in build


def test_release_builds_the_vsix_with_every_python_it_carries() -> None:
    """scripts/unpack_server.py compiles the carried server's bytecode with each Python of the
    wheelhouse that runs on the build machine: the release's build job installs them all."""
    workflow = (REPO / ".github" / "workflows" / "release.yml").read_text("utf-8")
    build = workflow.split("\n  build:\n", 1)[1].split("\n\n  ", 1)[0]
    listed = re.search(r"python-version: \|\n((?:\s+3\.\d+\n)+)", build)
    assert listed is not None, build
    wheelhouse = (REPO / "scripts" / "build-wheelhouse.sh").read_text("utf-8")
    [pythons] = re.findall(r"^PYTHONS=\(([^)]*)\)$", wheelhouse, re.M)
    assert sorted(listed.group(1).split()) == sorted(pythons.split())


def test_mason_registry_entry_installs_this_version_from_pypi() -> None:
    entry = (REPO / "packaging" / "mason" / "package.yaml").read_text("utf-8")
    assert re.search(r"^name: todo-ls$", entry, re.M)
    assert re.search(rf"^  id: pkg:pypi/todo-ls@{re.escape(__version__)}$", entry, re.M), entry
    assert re.search(r"^bin:\n  todo-ls: pypi:todo-ls$", entry, re.M), entry
    assert re.search(r"^licenses:\n  - MIT$", entry, re.M)
    assert re.search(r"^categories:\n  - LSP$", entry, re.M)
