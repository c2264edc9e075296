"""`todo-ls install gemini-cli`: hooks in `.gemini/settings.json` (project) or
`~/.gemini/settings.json` (user).

Written from Gemini CLI's documentation (0.61.0) and not run here: `AfterAgent` fires once per
turn after the final answer and takes `{"decision": "deny", "reason": ...}` to send the reason
as the next prompt; timeouts are in milliseconds.
"""

from __future__ import annotations

from pathlib import Path

from todo_ls.install import Options
from todo_ls.install.hook_settings import HookEvent, HookHost
from todo_ls.install.hook_settings import install as install_hooks


def host(options: Options) -> HookHost:
    """Gemini CLI's hook settings for `options`."""
    home = Path(options.env.get("HOME") or Path.home())
    return HookHost(
        kind="gemini-cli",
        label="Gemini CLI",
        events=(
            HookEvent("AfterAgent"),
            HookEvent("BeforeAgent"),
            HookEvent("SessionStart"),
            HookEvent("SessionEnd"),
            HookEvent("Notification"),
        ),
        project_file=".gemini/settings.json",
        user_file=home / ".gemini" / "settings.json",
        timeout=30000,  # milliseconds
        note=(
            "Gemini CLI support is untested (written from its documentation). Gemini CLI "
            "warns once about new project hooks: accept them to let todo-ls run."
        ),
    )


def install(options: Options) -> int:
    """Install or uninstall todo-ls's Gemini CLI hooks."""
    return install_hooks(host(options), options)
