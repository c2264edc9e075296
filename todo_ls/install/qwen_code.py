"""`todo-ls install qwen-code`: hooks in `.qwen/settings.json` (project) or
`~/.qwen/settings.json` (user), in Claude Code's shape with timeouts in seconds
(docs/hosts-hooks.md, verified on Qwen Code 0.24.4)."""

from __future__ import annotations

from pathlib import Path

from todo_ls.install import Options
from todo_ls.install.hook_settings import HookEvent, HookHost
from todo_ls.install.hook_settings import install as install_hooks

TRUST_NOTE = (
    "Qwen Code reads the hooks at its next start. If folder trust is on "
    "(security.folderTrust.enabled), Qwen Code skips a project's hooks without a word until "
    "the folder is trusted: trust it when Qwen Code asks, or install with --scope user."
)


def host(options: Options) -> HookHost:
    """Qwen Code's hook settings for `options`."""
    home = Path(options.env.get("HOME") or Path.home())
    return HookHost(
        kind="qwen-code",
        label="Qwen Code",
        events=(
            HookEvent("Stop"),
            HookEvent("UserPromptSubmit"),
            HookEvent("SubagentStop"),
            HookEvent("StopFailure"),
        ),
        project_file=".qwen/settings.json",
        user_file=home / ".qwen" / "settings.json",
        timeout=30,  # seconds
        note=TRUST_NOTE,
    )


def install(options: Options) -> int:
    """Install or uninstall todo-ls's Qwen Code hooks."""
    return install_hooks(host(options), options)
