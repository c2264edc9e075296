"""`todo-ls install claude-code | codex | gemini-cli`: merged, idempotent, reversible."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.install_options import COMMAND, options, printed

from todo_ls.install import HOSTS, Options, claude_code, codex, gemini_cli, todo_ls_command

FOREIGN = """{
  "permissions": {"allow": ["Bash(ls)"]},
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  }
}
"""


def commands(data: dict[str, Any], event: str) -> list[str]:
    return [h["command"] for g in data["hooks"].get(event, []) for h in g["hooks"]]


def test_claude_code_hooks_merge_beside_foreign_ones(tmp_path: Path) -> None:
    settings = tmp_path / "project" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(FOREIGN, encoding="utf-8")
    opts = options(tmp_path)
    assert claude_code.install(opts) == 0
    data = json.loads(settings.read_text(encoding="utf-8"))
    ours = f"{COMMAND} hook --host claude-code"
    assert commands(data, "Stop") == ["notify-send done", ours]
    assert data["permissions"] == {"allow": ["Bash(ls)"]}
    for event in ("UserPromptSubmit", "SessionStart", "SessionEnd", "Notification", "StopFailure"):
        assert commands(data, event) == [ours]
    (todo_tools,) = data["hooks"]["PostToolUse"]
    assert todo_tools["matcher"] == "TodoWrite|TaskCreate|TaskUpdate"
    assert "SubagentStop" not in data["hooks"]  # never blocked, so not even asked
    assert f"added Stop: {ours}" in printed(opts)


def test_install_twice_changes_nothing_and_uninstall_restores_bytes(tmp_path: Path) -> None:
    settings = tmp_path / "project" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(FOREIGN, encoding="utf-8")
    assert claude_code.install(options(tmp_path)) == 0
    installed = settings.read_bytes()
    again = options(tmp_path)
    assert claude_code.install(again) == 0
    assert settings.read_bytes() == installed
    assert "nothing to change" in printed(again)
    assert claude_code.install(options(tmp_path, uninstall=True)) == 0
    assert settings.read_text(encoding="utf-8") == FOREIGN


def test_uninstall_keeps_changes_made_since_the_install(tmp_path: Path) -> None:
    settings = tmp_path / "project" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(FOREIGN, encoding="utf-8")
    claude_code.install(options(tmp_path))
    data = json.loads(settings.read_text(encoding="utf-8"))
    data["model"] = "opus"
    settings.write_text(json.dumps(data, indent=2), encoding="utf-8")
    assert claude_code.install(options(tmp_path, uninstall=True)) == 0
    after = json.loads(settings.read_text(encoding="utf-8"))
    assert after == {**json.loads(FOREIGN), "model": "opus"}


def test_a_file_the_install_created_is_deleted_by_the_uninstall(tmp_path: Path) -> None:
    opts = options(tmp_path)
    assert codex.install(opts) == 0
    hooks = tmp_path / "project" / ".codex" / "hooks.json"
    data = json.loads(hooks.read_text(encoding="utf-8"))
    assert sorted(data["hooks"]) == ["Interrupt", "SessionStart", "Stop", "UserPromptSubmit"]
    assert "/hooks" in printed(opts)  # the trust step only the user can do
    assert codex.install(options(tmp_path, uninstall=True)) == 0
    assert not hooks.exists()
    assert not hooks.parent.exists()  # the .codex folder the install made, empty again


def test_unparsable_settings_are_refused_never_rewritten(tmp_path: Path) -> None:
    settings = tmp_path / "project" / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    broken = '{"theme": "dark",, }'
    settings.write_text(broken, encoding="utf-8")
    opts = options(tmp_path)
    assert gemini_cli.install(opts) == 1
    assert settings.read_text(encoding="utf-8") == broken
    assert "not valid JSON" in printed(opts) and "nothing written" in printed(opts)
    settings.write_text('{"hooks": []}', encoding="utf-8")
    assert gemini_cli.install(options(tmp_path)) == 1


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    opts = options(tmp_path, dry_run=True)
    assert claude_code.install(opts) == 0
    assert "would change" in printed(opts)
    assert not (tmp_path / "project" / ".claude").exists()


def test_user_scope_and_an_older_install_path(tmp_path: Path) -> None:
    opts = options(tmp_path, scope="user")
    assert gemini_cli.install(opts) == 0
    user_file = tmp_path / "home" / ".gemini" / "settings.json"
    data = json.loads(user_file.read_text(encoding="utf-8"))
    (after_agent,) = data["hooks"]["AfterAgent"][0]["hooks"]
    assert after_agent["timeout"] == 30000  # Gemini counts milliseconds
    moved = Options(
        scope="user",
        directory=opts.directory,
        env=opts.env,
        out=io.StringIO(),
        command="/new/place/todo-ls",
    )
    assert gemini_cli.install(moved) == 0
    data = json.loads(user_file.read_text(encoding="utf-8"))
    assert commands(data, "AfterAgent") == ["/new/place/todo-ls hook --host gemini-cli"]
    assert "replaced AfterAgent" in printed(moved)


def test_the_command_written_is_the_running_todo_ls(tmp_path: Path) -> None:
    script = tmp_path / "bin" / "todo-ls"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n", encoding="utf-8")
    assert todo_ls_command(str(script)) == str(script.resolve())
    assert todo_ls_command("/somewhere/pytest", "/py/bin/python3") == "/py/bin/python3 -m todo_ls"
    assert sorted(HOSTS) == [
        "claude-code",
        "codex",
        "copilot-cli",
        "droid",
        "gemini-cli",
        "kimi-code",
        "mistral-vibe",
        "opencode",
        "openhands",
        "pi",
        "qwen-code",
    ]


def test_the_vscode_extensions_launcher_is_run_by_its_python(tmp_path: Path) -> None:
    """The .vsix starts `python -I …/server/todo-ls.py`: hooks must run that file with that
    Python (it is not executable itself, and `python -m todo_ls` would not find the package)."""
    launcher = tmp_path / "my ext" / "server" / "todo-ls.py"
    launcher.parent.mkdir(parents=True)
    launcher.write_text("", encoding="utf-8")
    command = todo_ls_command(str(launcher), "/py/bin/python3")
    assert command == f"/py/bin/python3 '{launcher.resolve()}'"


def test_cli_installs_into_the_given_project(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = {"HOME": str(tmp_path / "home"), "TODO_LS_STATE_DIR": str(tmp_path / "state")}
    done = subprocess.run(
        [sys.executable, "-m", "todo_ls", "install", "claude-code", "--directory", str(project)],
        capture_output=True,
        text=True,
        env={**env, "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    data = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert commands(data, "Stop") == [f"{sys.executable} -m todo_ls hook --host claude-code"]


@pytest.mark.parametrize("target", ["claude-code", "codex", "gemini-cli"])
def test_installed_hook_command_runs(tmp_path: Path, target: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    opts = Options(
        scope="project",
        directory=project,
        env={"HOME": str(tmp_path), "TODO_LS_STATE_DIR": str(tmp_path / "state")},
        out=io.StringIO(),
        command=todo_ls_command("/x/pytest"),
    )
    module = {"claude-code": claude_code, "codex": codex, "gemini-cli": gemini_cli}[target]
    assert module.install(opts) == 0
    path = module.host(opts).path(opts)
    data = json.loads(path.read_text(encoding="utf-8"))
    command = next(iter(data["hooks"].values()))[0]["hooks"][0]["command"]
    assert command.endswith(f"hook --host {target}")
    done = subprocess.run(command, shell=True, input=b"{}", capture_output=True, env=opts.env)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
