"""`todo-ls install copilot-cli`: Copilot CLI's hooks where todo_ls/hook/hosts/copilot_cli.py
says: `.github/hooks/todo-ls.json` (the repository's, a file of todo-ls's own) or `"hooks"`
in `~/.copilot/settings.json` (the user's).

Copilot lists the handlers themselves under each event, the command under `bash` and the
timeout as `timeoutSec`; the repository file also carries `"version": 1`.
"""

from __future__ import annotations

import dataclasses

from todo_ls.hook.hosts.copilot_cli import HOST
from todo_ls.install import Options
from todo_ls.install.agent_hook_files import HookHost, settings_of
from todo_ls.install.agent_hook_files import install as install_hooks

USER_NOTE = "Copilot CLI reads the hooks at its next start, in any folder."


def host(options: Options) -> HookHost:
    """Where and what the install writes for Copilot CLI."""
    project = options.scope == "project"
    return dataclasses.replace(
        settings_of(HOST, options),
        note=HOST.trust_note if project else USER_NOTE,
        grouped=False,
        command_key="bash",
        timeout_key="timeoutSec",
        skeleton={"version": 1} if project else {},
    )


def install(options: Options) -> int:
    """Install or uninstall todo-ls's Copilot CLI hooks."""
    return install_hooks(host(options), options)
