"""`todo-ls install claude-code`: hooks in `.claude/settings.json` (project) or
`~/.claude/settings.json` (user; `$CLAUDE_CONFIG_DIR` when set)."""

from __future__ import annotations

from pathlib import Path

from todo_ls.install import Options
from todo_ls.install.hook_settings import HookEvent, HookHost
from todo_ls.install.hook_settings import install as install_hooks

TODO_TOOLS = "TodoWrite|TaskCreate|TaskUpdate"


def host(options: Options) -> HookHost:
    """Claude Code's hook settings for `options`."""
    config = options.env.get("CLAUDE_CONFIG_DIR")
    home = Path(options.env.get("HOME") or Path.home())
    return HookHost(
        kind="claude-code",
        label="Claude Code",
        events=(
            HookEvent("Stop"),
            HookEvent("UserPromptSubmit"),
            HookEvent("SessionStart"),
            HookEvent("SessionEnd"),
            HookEvent("Notification"),
            HookEvent("StopFailure"),
            HookEvent("PostToolUse", TODO_TOOLS),
        ),
        project_file=".claude/settings.json",
        user_file=(Path(config) if config else home / ".claude") / "settings.json",
        timeout=30,  # seconds
        note="Claude Code reads the hooks at its next start (or run /hooks to review them).",
    )


def install(options: Options) -> int:
    """Install or uninstall todo-ls's Claude Code hooks."""
    return install_hooks(host(options), options)
