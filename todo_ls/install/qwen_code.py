"""`todo-ls install qwen-code`: Qwen Code's hooks where todo_ls/hook/hosts/qwen_code.py says
(its settings files, events and trust step)."""

from __future__ import annotations

from todo_ls.hook.hosts.qwen_code import HOST
from todo_ls.install import Options
from todo_ls.install.agent_hook_files import HookHost, settings_of
from todo_ls.install.agent_hook_files import install as install_hooks


def host(options: Options) -> HookHost:
    """Where and what the install writes for Qwen Code."""
    return settings_of(HOST, options)


def install(options: Options) -> int:
    """Install or uninstall todo-ls's Qwen Code hooks."""
    return install_hooks(host(options), options)
