"""`todo-ls install kimi-code`: Kimi Code's `[[hooks]]` tables in `~/.kimi-code/config.toml`
(`$KIMI_CODE_HOME`), as todo_ls/hook/hosts/kimi_code.py says. Kimi Code reads hooks from the
user's config only, so both scopes write there, and the install says so. Kimi Code refuses
its whole config over an unknown key, so the tables hold only `event`, `matcher`, `command`
and `timeout`."""

from __future__ import annotations

from todo_ls.hook.hosts.kimi_code import HOST
from todo_ls.install import Options
from todo_ls.install.agent_hook_files import hook_command
from todo_ls.install.toml_hooks import TomlHooks
from todo_ls.install.toml_hooks import install as install_hooks

# Said before the host's trust note (which says what this means: every folder).
PROJECT_NOTE = "Kimi Code has no project hooks: todo-ls wrote its hooks into the user's config."


def hooks(options: Options) -> TomlHooks:
    """Where and what the install writes for Kimi Code."""
    command = hook_command(options.command, HOST.kind)
    tables = []
    for event in HOST.install_events:
        table: dict[str, str | int] = {"event": event.name}
        if event.matcher is not None:
            table["matcher"] = event.matcher
        table["command"] = command
        if HOST.timeout is not None:
            table["timeout"] = HOST.timeout
        tables.append((event.name, table))
    note = HOST.trust_note
    if options.scope == "project" and not options.uninstall:
        note = f"{PROJECT_NOTE} {note}"
    return TomlHooks(HOST.kind, HOST.label, HOST.user_settings(options.env), tuple(tables), note)


def install(options: Options) -> int:
    """Install or uninstall todo-ls's Kimi Code hooks."""
    return install_hooks(hooks(options), options)
