"""`todo-ls install copilot-cli`: hooks in `.github/hooks/todo-ls.json` (the repository's,
a file of todo-ls's own) or in `"hooks"` of `~/.copilot/settings.json` (user;
`$COPILOT_HOME` instead of `~/.copilot` when set). Verified on Copilot CLI 1.0.102
(docs/hosts-hooks.md).

Copilot lists handlers directly under each event, the command under `bash`, the timeout as
`timeoutSec`. The events are keyed by Claude Code's names (`Stop`, `UserPromptSubmit`, ...):
Copilot then sends Claude Code's snake_case fields, which `todo-ls hook` reads for every host.
"""

from __future__ import annotations

from pathlib import Path

from todo_ls.install import Options
from todo_ls.install.hook_settings import HookEvent, HookHost
from todo_ls.install.hook_settings import install as install_hooks

TRUST_NOTE = (
    "Copilot CLI runs a repository's hooks only in a folder you trusted: answer yes when "
    "Copilot asks whether to trust this folder (or start it once with --trust-folder). In a "
    "folder you did not trust it skips them without a word; install with --scope user to "
    "have todo-ls in every folder."
)
USER_NOTE = "Copilot CLI reads the hooks at its next start."


def host(options: Options) -> HookHost:
    """Copilot CLI's hook settings for `options`."""
    home = Path(options.env.get("HOME") or Path.home())
    copilot_home = options.env.get("COPILOT_HOME")
    project = options.scope == "project"
    return HookHost(
        kind="copilot-cli",
        label="Copilot CLI",
        events=(
            HookEvent("Stop"),
            HookEvent("UserPromptSubmit"),
            HookEvent("SessionStart"),
            HookEvent("SessionEnd"),
            HookEvent("PostToolUse"),
        ),
        project_file=".github/hooks/todo-ls.json",
        user_file=(Path(copilot_home) if copilot_home else home / ".copilot") / "settings.json",
        timeout=30,  # seconds
        note=TRUST_NOTE if project else USER_NOTE,
        grouped=False,
        command_key="bash",
        timeout_key="timeoutSec",
        skeleton={"version": 1} if project else {},
    )


def install(options: Options) -> int:
    """Install or uninstall todo-ls's Copilot CLI hooks."""
    return install_hooks(host(options), options)
