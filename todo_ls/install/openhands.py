"""`todo-ls install openhands`: OpenHands' hooks where todo_ls/hook/hosts/openhands.py says
(`.openhands/hooks.json` or `~/.openhands/hooks.json`, Claude Code's shape, every group with
the matcher `*`)."""

from __future__ import annotations

from todo_ls.hook.hosts.openhands import HOST
from todo_ls.install import Options
from todo_ls.install.agent_hook_files import HookHost, settings_of
from todo_ls.install.agent_hook_files import install as install_hooks


def host(options: Options) -> HookHost:
    """Where and what the install writes for OpenHands."""
    return settings_of(HOST, options)


def install(options: Options) -> int:
    """Install or uninstall todo-ls's OpenHands hooks."""
    return install_hooks(host(options), options)
