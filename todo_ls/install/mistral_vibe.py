"""`todo-ls install mistral-vibe`: Vibe's `[[hooks]]` tables where
todo_ls/hook/hosts/mistral_vibe.py says: `.vibe/hooks.toml` (the project's, run only in a
trusted folder) or `~/.vibe/hooks.toml` (the user's). A hook's `name` is its identity there:
the project's wins over the user's of the same name, so installing both runs todo-ls once."""

from __future__ import annotations

from todo_ls.hook.hosts.mistral_vibe import HOST
from todo_ls.install import Options
from todo_ls.install.agent_hook_files import hook_command
from todo_ls.install.toml_hooks import TomlHooks
from todo_ls.install.toml_hooks import install as install_hooks

USER_NOTE = "Mistral Vibe reads the user's hooks at its next start, in every folder."


def hooks(options: Options) -> TomlHooks:
    """Where and what the install writes for Mistral Vibe."""
    project = options.scope == "project"
    command = hook_command(options.command, HOST.kind)
    tables = []
    for event in HOST.install_events:
        table: dict[str, str | int] = {
            "name": f"todo-ls-{event.name.replace('_', '-')}",
            "type": event.name,
            "command": command,
        }
        if event.matcher is not None:
            table["match"] = event.matcher
        if HOST.timeout is not None:
            table["timeout"] = HOST.timeout
        tables.append((event.name, table))
    path = options.directory / HOST.project_settings if project else HOST.user_settings(options.env)
    note = HOST.trust_note if project else USER_NOTE
    return TomlHooks(HOST.kind, HOST.label, path, tuple(tables), note)


def install(options: Options) -> int:
    """Install or uninstall todo-ls's Mistral Vibe hooks."""
    return install_hooks(hooks(options), options)
