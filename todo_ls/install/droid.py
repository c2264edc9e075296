"""`todo-ls install droid`: Droid's hooks where todo_ls/hook/hosts/droid.py says
(its settings files, events and trust step)."""

from __future__ import annotations

from todo_ls.hook.hosts.droid import HOST
from todo_ls.install import Options
from todo_ls.install.agent_hook_files import HookHost, settings_of
from todo_ls.install.agent_hook_files import install as install_hooks


def host(options: Options) -> HookHost:
    """Where and what the install writes for Droid."""
    return settings_of(HOST, options)


def install(options: Options) -> int:
    """Install or uninstall todo-ls's Droid hooks."""
    return install_hooks(host(options), options)
