"""`todo-ls install <agent>`: write todo-ls into an agent's own settings.

A small registry: each agent's module has `install(options) -> exit code`. A hook host's
module is a few lines: its settings files, events and trust step come from its module in
todo_ls/hook/hosts/, and `agent_hook_files` merges the hook entries into the JSON settings file
and takes them out again (`toml_hooks` adds and removes a marked block of `[[hooks]]` tables in
a TOML one). OpenCode's (`opencode`) edits opencode.json.
"""

from __future__ import annotations

import importlib
import os
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TextIO

Scope = Literal["project", "user"]

# agent name -> module with `install(options: Options) -> int`
HOSTS: dict[str, str] = {
    "claude-code": "todo_ls.install.claude_code",
    "codex": "todo_ls.install.codex",
    "gemini-cli": "todo_ls.install.gemini_cli",
    "qwen-code": "todo_ls.install.qwen_code",
    "copilot-cli": "todo_ls.install.copilot_cli",
    "droid": "todo_ls.install.droid",
    "mistral-vibe": "todo_ls.install.mistral_vibe",
    "openhands": "todo_ls.install.openhands",
    "kimi-code": "todo_ls.install.kimi_code",
    "pi": "todo_ls.install.pi",
    "opencode": "todo_ls.install.opencode",
}


@dataclass(frozen=True)
class Options:
    """What the user asked for, and where."""

    scope: Scope
    directory: Path  # the project folder (project scope)
    dry_run: bool = False
    uninstall: bool = False
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    out: TextIO = field(default_factory=lambda: sys.stdout)
    command: str = ""  # how the agent starts todo-ls; "" = this running todo-ls


def todo_ls_command(argv0: str | None = None, python: str | None = None) -> str:
    """The absolute command of the running todo-ls: its script when started as `todo-ls`,
    else `<this python> -m todo_ls` (agents run hooks with their own PATH and folder)."""
    script = Path(sys.argv[0] if argv0 is None else argv0)
    if script.name.startswith("todo-ls") and script.is_file():
        if script.suffix == ".py":
            # The VS Code extension's launcher (server/todo-ls.py): a file this Python runs.
            return f"{shlex.quote(python or sys.executable)} {shlex.quote(str(script.resolve()))}"
        return shlex.quote(str(script.resolve()))
    return f"{shlex.quote(python or sys.executable)} -m todo_ls"


def run_install(
    target: str,
    *,
    scope: Scope = "project",
    directory: str | None = None,
    dry_run: bool = False,
    uninstall: bool = False,
) -> int:
    """The `todo-ls install` command."""
    module = importlib.import_module(HOSTS[target])
    options = Options(
        scope=scope,
        directory=Path(directory or ".").resolve(),
        dry_run=dry_run,
        uninstall=uninstall,
        command=todo_ls_command(),
    )
    result: int = module.install(options)
    return result
