"""`todo-ls install droid`: hooks in `.factory/settings.json` (project) or
`~/.factory/settings.json` (user), in Claude Code's shape (docs/hosts-hooks.md, verified on
Factory Droid 0.225.2)."""

from __future__ import annotations

from pathlib import Path

from todo_ls.install import Options
from todo_ls.install.hook_settings import HookEvent, HookHost
from todo_ls.install.hook_settings import install as install_hooks


def host(options: Options) -> HookHost:
    """Droid's hook settings for `options`."""
    home = Path(options.env.get("HOME") or Path.home())
    return HookHost(
        kind="droid",
        label="Droid",
        events=(
            HookEvent("Stop"),
            HookEvent("UserPromptSubmit"),
            HookEvent("SessionStart"),
            HookEvent("SessionEnd"),
            HookEvent("Notification"),
            HookEvent("PostToolUse"),
        ),
        project_file=".factory/settings.json",
        user_file=home / ".factory" / "settings.json",
        timeout=30,  # seconds
        note="Droid reads the hooks when its next session starts.",
    )


def install(options: Options) -> int:
    """Install or uninstall todo-ls's Droid hooks."""
    return install_hooks(host(options), options)
