"""Neovim's status line while a real OpenCode 1.18.33 agent works.

Neovim's real TUI runs in tmux with the plugin (repository root) and the language server, whose
settings point `supervisor.url` at a real `opencode serve` (auth on, the password in the default
`OPENCODE_SERVER_PASSWORD`) driven by the scripted fake model of tests/hosts. The test reads what
the user sees: the terminal screen, and `require('todo_ls').statusline()` through Neovim's RPC
socket (`nvim --server … --remote-expr`). The screenshot test also renders the screen into
test-artifacts/nvim/nvim-status.png, the picture docs/nvim-status.png is copied from.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.fake_model import FakeModel, Reply, bash, stall, text
from support.scenarios import OpencodeServer
from support.terminal_png import screenshot
from test_nvim import ARTIFACTS, SERVER, Tmux, _nvim, plugin_copy, private_env

pytestmark = [pytest.mark.editor, pytest.mark.opencode]

__all__ = ["plugin_copy"]  # the fixture, shared with test_nvim.py

PASSWORD = "pw-nvim-4Tq-not-in-logs"
INIT = Path(__file__).with_name("agent_init.lua")
DOCS_PNG = Path(__file__).resolve().parents[2] / "docs" / "nvim-status.png"
COLUMNS, ROWS = 92, 16
PLAN = """\
# Release plan

## Parser

- [x] read the CommonMark spec
- [ ] write the parser
- [ ] fuzz it

## Ship

- [x] tag the release
- [ ] publish the wheel
  - [x] build it
  - [ ] upload it
"""
FIRST_OPEN_LINE = 6  # 1-based: "write the parser", named by the nudge as PLAN.md:6


class NvimTui:
    """Neovim's TUI in a private tmux server, with an RPC socket for the test to read state."""

    def __init__(self, tmp_path: Path, workspace: Path, plugin: Path, env: dict[str, str]):
        self.tmp_path = tmp_path
        self.workspace = workspace
        self.socket = tmp_path / "nvim.sock"
        self.env = {
            **env,
            "TODO_LS_TEST_PLUGIN": str(plugin),
            "TODO_LS_TEST_CMD": json.dumps(SERVER),
        }
        self.tmux = Tmux(tmp_path, self.env)

    def start(self, settings: dict[str, Any]) -> NvimTui:
        self.tmux.env = {**self.env, "TODO_LS_TEST_SETTINGS": json.dumps(settings)}
        command = [_nvim(), "-u", str(INIT), "--listen", str(self.socket), "PLAN.md"]
        size = ("-x", str(COLUMNS), "-y", str(ROWS))
        self.tmux("new-session", "-d", *size, "-c", str(self.workspace), shlex.join(command))
        return self

    def lua(self, expression: str) -> Any:
        """The value of a Lua expression in the running Neovim (JSON-encoded there)."""
        done = subprocess.run(
            [_nvim(), "--headless", "--clean", "--server", str(self.socket), "--remote-expr",
             "luaeval('vim.json.encode({})')".format(expression.replace("'", "''"))],
            env=self.env, capture_output=True, text=True, timeout=10, check=False,
        )  # fmt: skip
        if done.returncode != 0 or not done.stdout.strip():
            return None  # not listening yet
        return json.loads(done.stdout)

    def seen(self) -> list[dict[str, Any]]:
        """Every status the plugin received so far (see agent_init.lua)."""
        return self.lua("_G.todo_ls_seen") or []

    def statusline(self) -> str:
        return str(self.lua("require('todo_ls').statusline()") or "")

    def wait(self, what: str, check: Callable[[], Any], timeout_s: float = 20) -> Any:
        """Polls `check()` (Neovim has no event for the test to wait on) until truthy."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            value = check()
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(
            f"{what}: not reached in {timeout_s} s\nstatus line: {self.statusline()!r}\n"
            f"statuses: {[s['text'] for s in self.seen()][-12:]}\nscreen:\n{self.tmux.screen()}"
        )

    def wait_status(self, fragment: str, timeout_s: float = 20) -> str:
        def found() -> str | None:
            line = self.statusline()
            return line if fragment in line else None

        line: str = self.wait(f"status line with {fragment!r}", found, timeout_s)
        return line

    def type(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "0", *keys)

    def stop(self) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / f"agent-{self.tmp_path.name}.txt").write_text(self.tmux.screen(), "utf-8")
        self.tmux("kill-server")


@pytest.fixture
def model() -> Iterator[FakeModel]:
    with FakeModel() as fake:
        yield fake


@pytest.fixture
def opencode(tmp_path: Path, model: FakeModel) -> Iterator[OpencodeServer]:
    server = OpencodeServer(tmp_path / "opencode", model, password=PASSWORD).start()
    (server.project / "PLAN.md").write_text(PLAN, encoding="utf-8")
    yield server
    server.stop()


@pytest.fixture
def nvim(tmp_path: Path, opencode: OpencodeServer, plugin_copy: Path) -> Iterator[NvimTui]:
    """Neovim on the OpenCode project's PLAN.md, todo-ls supervising that server."""
    env = {**private_env(tmp_path), "OPENCODE_SERVER_PASSWORD": PASSWORD}
    tui = NvimTui(tmp_path, opencode.project, plugin_copy, env)
    settings = {
        "todoLs": {
            "markdownFiles": ["PLAN.md"],
            "supervisor": {"url": opencode.url, "settleMs": 300, "toasts": False},
        }
    }
    tui.start(settings)
    yield tui
    tui.stop()


def connected(nvim: NvimTui) -> None:
    nvim.wait_status("4/7 open")
    nvim.wait(
        "the supervisor connected",
        lambda: nvim.lua("require('todo_ls').status().supervisor.host.connected"),
    )


def state_words(seen: list[dict[str, Any]]) -> list[str]:
    """The `· state` part of each status text, consecutive repeats dropped."""
    words: list[str] = []
    for status in seen:
        word = str(status["text"]).rpartition(" · ")[2] if " · " in status["text"] else ""
        if word and (not words or words[-1] != word):
            words.append(word)
    return words


def nudges_received(model: FakeModel) -> list[str]:
    """The distinct nudge texts the model was shown (each later request repeats the history)."""
    texts = [t for r in model.requests for t in model.user_texts(r) if "nudge #" in t]
    return list(dict.fromkeys(texts))


def test_status_line_follows_the_agent_and_pause(
    nvim: NvimTui, opencode: OpencodeServer, model: FakeModel
) -> None:
    connected(nvim)
    session = opencode.create_session("Agent in Neovim")
    # One turn: a 3 s tool, then the agent stops with items open. The nudged turn takes ~1 s.
    model.script(
        bash("sleep 3; echo built", "Build"),
        text("Stopping here; the rest can wait."),
        stall(1.0, "Continuing with the plan"),
    )
    opencode.prompt(session, "Work on the plan.")

    # While the tool runs: `working` on screen, and the session's detail names the tool.
    nvim.wait(
        "working with the tool running",
        lambda: any(
            s["text"].endswith("· working") and "tool" in str(d.get("detail"))
            for s in nvim.seen()
            for d in s["sessions"]
        ),
    )
    assert "4/7 open · working" in nvim.tmux.wait_for("· working")
    assert len(model.requests) == 1  # the model has not been asked again: the tool still runs

    # The turn ends with items open: the agent is nudged with the first open item's place.
    model.wait_for(lambda m: bool(nudges_received(m)), timeout=20)
    [nudge] = nudges_received(model)
    assert nudge.startswith("Idle nudge #1"), nudge
    assert f"PLAN.md:{FIRST_OPEN_LINE}" in nudge and "write the parser" in nudge

    # The status line went idle at the end of the turn, working again for the nudged turn, and
    # idle once that ended.
    nvim.wait(
        "working, idle, working, idle",
        lambda: state_words(nvim.seen())[-4:] == ["working", "idle", "working", "idle"],
    )
    assert nvim.statusline().endswith("4/7 open · idle")

    # The user pauses supervision from Neovim's command line.
    nvim.type(":TodoLs pause", "Enter")
    assert nvim.wait_status("· paused").endswith("4/7 open · paused")
    screen = nvim.tmux.wait_for("· paused")
    assert "paused " + session in screen, screen  # the command's answer names the session
    assert len(nudges_received(model)) == 1


def test_screenshot_of_the_status_line_while_the_agent_works(
    nvim: NvimTui, opencode: OpencodeServer, model: FakeModel, tmp_path: Path
) -> None:
    connected(nvim)
    session = opencode.create_session("Screenshot")
    model.script(bash("sleep 30", "Run the test suite"), Reply(text="Done."))
    opencode.prompt(session, "Work on the plan.")
    nvim.wait_status("· working")
    for visible in ("4/7 open · working", "Open: write the parser", "1/2 done"):
        nvim.tmux.wait_for(visible)  # status line, diagnostic virtual text, inlay hint
    screen = nvim.tmux("capture-pane", "-e", "-p", "-t", "0")
    (ARTIFACTS / "nvim-status.ansi").write_text(screen, encoding="utf-8")
    assert "\x1b[38;2;" in screen, "no true colors captured: the picture would be grey"
    png = screenshot(screen, COLUMNS, ROWS, ARTIFACTS / "nvim-status.png", tmp_path)
    if os.environ.get("TODO_LS_UPDATE_DOCS") == "1":
        shutil.copyfile(png, DOCS_PNG)
    opencode.abort(session)
