"""`todo-ls install codex`: hooks in `.codex/hooks.json` (project) or
`$CODEX_HOME/hooks.json` (user, default `~/.codex`)."""

from __future__ import annotations

from pathlib import Path

from todo_ls.install import Options
from todo_ls.install.hook_settings import HookEvent, HookHost
from todo_ls.install.hook_settings import install as install_hooks

TRUST_NOTE = (
    "Codex skips hooks nobody trusted, without a word: start Codex in this project, run "
    "/hooks and trust todo-ls's hooks. todo-ls never trusts them for you, and Codex asks again "
    "whenever the command changes (for instance after reinstalling todo-ls elsewhere). "
    "A project's .codex/hooks.json is read only when the project itself is trusted."
)


def host(options: Options) -> HookHost:
    """Codex CLI's hook settings for `options`."""
    home = Path(options.env.get("HOME") or Path.home())
    codex_home = options.env.get("CODEX_HOME")
    return HookHost(
        kind="codex",
        label="Codex",
        events=(
            HookEvent("SessionStart"),
            HookEvent("UserPromptSubmit"),
            HookEvent("Stop"),
            HookEvent("Interrupt"),
        ),
        project_file=".codex/hooks.json",
        user_file=(Path(codex_home) if codex_home else home / ".codex") / "hooks.json",
        note=TRUST_NOTE,
    )


def install(options: Options) -> int:
    """Install or uninstall todo-ls's Codex hooks."""
    return install_hooks(host(options), options)
