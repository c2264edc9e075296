"""`todo-ls install qwen-code | copilot-cli | droid`: where each writes, in which shape, that
foreign hooks stay, that a second install changes nothing, that `--dry-run` writes nothing,
that `--uninstall` gives the file back byte for byte, and the step each prints next."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from support.install_options import COMMAND, options, printed

from todo_ls.install import copilot_cli, droid, qwen_code

MODULES: dict[str, ModuleType] = {
    "qwen-code": qwen_code,
    "copilot-cli": copilot_cli,
    "droid": droid,
}
PROJECT_FILES = {
    "qwen-code": ".qwen/settings.json",
    "copilot-cli": ".github/hooks/todo-ls.json",
    "droid": ".factory/settings.json",
}
USER_FILES = {
    "qwen-code": ".qwen/settings.json",
    "copilot-cli": ".copilot/settings.json",
    "droid": ".factory/settings.json",
}


def ours(target: str) -> str:
    return f"{COMMAND} hook --host {target}"


def commands(data: dict[str, Any], event: str) -> list[str]:
    """The command lines under `event`, whatever the host's shape."""
    found = []
    for entry in data["hooks"].get(event, []):
        for handler in entry.get("hooks", [entry]):
            found.append(handler.get("command") or handler.get("bash"))
    return found


def foreign(target: str) -> str:
    """Settings as a user has them: another key and their own Stop hook, in their own
    formatting (4 spaces)."""
    if target == "copilot-cli":
        own = [{"type": "command", "bash": "notify-send done", "timeoutSec": 5}]
        data: dict[str, Any] = {"version": 1, "hooks": {"Stop": own}}
    else:
        group = [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
        data = {"model": {"name": "qwen3-coder"}, "hooks": {"Stop": group}}
    return json.dumps(data, indent=4) + "\n"


@pytest.mark.parametrize("target", sorted(MODULES))
def test_install_merges_is_idempotent_and_uninstall_restores_bytes(
    tmp_path: Path, target: str
) -> None:
    settings = tmp_path / "project" / PROJECT_FILES[target]
    settings.parent.mkdir(parents=True)
    original = foreign(target)
    settings.write_text(original, encoding="utf-8")
    module = MODULES[target]

    opts = options(tmp_path)
    assert module.install(opts) == 0
    installed = settings.read_bytes()
    data = json.loads(installed)
    assert commands(data, "Stop") == ["notify-send done", ours(target)]
    assert f"added Stop: {ours(target)}" in printed(opts)
    assert installed.decode().startswith('{\n    "'), "the file's own indentation was not kept"

    again = options(tmp_path)
    assert module.install(again) == 0
    assert settings.read_bytes() == installed
    assert "nothing to change" in printed(again)

    assert module.install(options(tmp_path, uninstall=True)) == 0
    assert settings.read_text(encoding="utf-8") == original


def test_qwen_code_hooks_and_their_timeout_in_seconds(tmp_path: Path) -> None:
    opts = options(tmp_path)
    assert qwen_code.install(opts) == 0
    data = json.loads((tmp_path / "project/.qwen/settings.json").read_text(encoding="utf-8"))
    assert sorted(data["hooks"]) == [
        "Notification",
        "PostToolUse",
        "SessionEnd",
        "SessionStart",
        "Stop",
        "StopFailure",
        "SubagentStop",
        "UserPromptSubmit",
    ]
    handler = {"type": "command", "command": ours("qwen-code"), "timeout": 30}
    assert data["hooks"]["Stop"] == [{"hooks": [handler]}]
    assert data["hooks"]["PostToolUse"] == [{"matcher": "todo_write", "hooks": [handler]}]
    assert "folderTrust" in printed(opts)  # trust skips project hooks silently


def test_copilot_repository_file_is_todo_ls_own_and_goes_with_its_folders(
    tmp_path: Path,
) -> None:
    (tmp_path / "project").mkdir()
    opts = options(tmp_path)
    assert copilot_cli.install(opts) == 0
    hooks_file = tmp_path / "project/.github/hooks/todo-ls.json"
    data = json.loads(hooks_file.read_text(encoding="utf-8"))
    assert data["version"] == 1
    # Keyed by Claude Code's names: Copilot then sends Claude Code's field names.
    assert sorted(data["hooks"]) == [
        "PostToolUse",
        "SessionEnd",
        "SessionStart",
        "Stop",
        "UserPromptSubmit",
    ]
    assert data["hooks"]["Stop"] == [
        {"type": "command", "bash": ours("copilot-cli"), "timeoutSec": 30}
    ]
    assert "--trust-folder" in printed(opts) and "trust" in printed(opts)

    assert copilot_cli.install(options(tmp_path, uninstall=True)) == 0
    assert not (tmp_path / "project/.github").exists(), "the folders the install made are left"


def test_copilot_user_scope_writes_hooks_into_its_settings(tmp_path: Path) -> None:
    user = tmp_path / "home/.copilot/settings.json"
    user.parent.mkdir(parents=True)
    before = '{\n  "model": "gpt-5",\n  "trusted_folders": []\n}\n'
    user.write_text(before, encoding="utf-8")
    opts = options(tmp_path, scope="user")
    assert copilot_cli.install(opts) == 0
    data = json.loads(user.read_text(encoding="utf-8"))
    assert "version" not in data  # the repository file's key, not the settings'
    assert data["model"] == "gpt-5"
    assert commands(data, "Stop") == [ours("copilot-cli")]
    assert "--trust-folder" not in printed(opts)  # user hooks run in any folder
    assert copilot_cli.install(options(tmp_path, scope="user", uninstall=True)) == 0
    assert user.read_text(encoding="utf-8") == before


def test_copilot_home_moves_the_user_file(tmp_path: Path) -> None:
    env = {
        "HOME": str(tmp_path / "home"),
        "COPILOT_HOME": str(tmp_path / "elsewhere"),
        "TODO_LS_STATE_DIR": str(tmp_path / "state"),
    }
    assert copilot_cli.install(options(tmp_path, scope="user", env=env)) == 0
    assert (tmp_path / "elsewhere/settings.json").is_file()
    assert not (tmp_path / "home").exists()


@pytest.mark.parametrize("target", sorted(MODULES))
def test_user_scope_and_dry_run(tmp_path: Path, target: str) -> None:
    module = MODULES[target]
    user_file = tmp_path / "home" / USER_FILES[target]
    dry = options(tmp_path, scope="user", dry_run=True)
    assert module.install(dry) == 0
    assert "would change" in printed(dry) and "Stop" in printed(dry)
    assert not user_file.exists() and not (tmp_path / "project").exists()

    assert module.install(options(tmp_path, scope="user")) == 0
    assert commands(json.loads(user_file.read_text(encoding="utf-8")), "Stop") == [ours(target)]
    assert module.install(options(tmp_path, scope="user", uninstall=True)) == 0
    assert not user_file.exists()


def test_droid_hooks_in_claude_codes_shape(tmp_path: Path) -> None:
    opts = options(tmp_path)
    assert droid.install(opts) == 0
    data = json.loads((tmp_path / "project/.factory/settings.json").read_text(encoding="utf-8"))
    (stop,) = data["hooks"]["Stop"]
    assert stop == {"hooks": [{"type": "command", "command": ours("droid"), "timeout": 30}]}
    assert data["hooks"]["PostToolUse"][0]["matcher"] == "TodoWrite"


@pytest.mark.parametrize("target", sorted(MODULES))
def test_a_broken_file_is_refused(tmp_path: Path, target: str) -> None:
    settings = tmp_path / "project" / PROJECT_FILES[target]
    settings.parent.mkdir(parents=True)
    broken = '{"hooks": {"Stop": [ }\n'
    settings.write_text(broken, encoding="utf-8")
    opts = options(tmp_path)
    assert MODULES[target].install(opts) == 1
    assert settings.read_text(encoding="utf-8") == broken
    assert str(settings) in printed(opts) and "nothing written" in printed(opts)
