"""`todo-ls install opencode`: the MCP server `todo` and the companion plugin in opencode.json.

It edits `opencode.jsonc` or `opencode.json` (the project's, or the user's with `--scope user`)
with minimal text edits, so comments and every other key stay as they were; a file it cannot
parse is refused, never rewritten. Running it again changes nothing; `--uninstall` takes out
exactly what it put in: the file comes back byte for byte when todo-ls's entries were the only
change (`originals` keeps the text from before the install; a file the install created is
deleted), and otherwise an `mcp` object or `plugin` list the install added goes once empty.
The plugin file is referenced where todo-ls ships it, outside every OpenCode config folder:
OpenCode installs its `@opencode-ai/plugin` package into each config folder at start when any
plugin is configured, and a new config folder would cost an offline start ~70 s of waiting for
the package registry.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, TextIO

from todo_ls.install import jsonc, originals, todo_ls_command

SERVER = "todo"
PLUGIN_FILE = "todo-ls-v1.js"
CONFIG_NAMES = ("opencode.jsonc", "opencode.json")
PLUGIN_PACKAGE = "@opencode-ai/plugin"


class InstallOptions(Protocol):
    """The part of `todo_ls.install.Options` this installer reads."""

    @property
    def scope(self) -> str: ...
    @property
    def directory(self) -> Path: ...
    @property
    def dry_run(self) -> bool: ...
    @property
    def uninstall(self) -> bool: ...
    @property
    def env(self) -> Mapping[str, str]: ...
    @property
    def out(self) -> TextIO: ...
    @property
    def command(self) -> str: ...


class InstallError(Exception):
    """The install cannot be done; the message says why in one line."""


def plugin_path() -> Path:
    """The 1.x companion plugin: inside the installed package, or `editors/opencode` of a
    source checkout."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "opencode_plugin", package.parent / "editors" / "opencode"):
        if (candidate / PLUGIN_FILE).is_file():
            return candidate / PLUGIN_FILE
    raise InstallError(f"the companion plugin {PLUGIN_FILE} is missing from this todo-ls")


def config_dir(env: Mapping[str, str]) -> Path:
    """OpenCode's global config folder."""
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / "opencode"


def config_file(options: InstallOptions) -> Path:
    """The file to edit: an existing `opencode.jsonc`, else `opencode.json`."""
    folder = options.directory if options.scope == "project" else config_dir(options.env)
    for name in CONFIG_NAMES:
        if (folder / name).is_file():
            return folder / name
    return folder / "opencode.json"


def is_ours(entry: object) -> bool:
    """An MCP entry written by todo-ls (its command ends in `todo-ls ... mcp`)."""
    if not isinstance(entry, dict):
        return False
    command = entry.get("command")
    return (
        isinstance(command, list)
        and len(command) >= 2
        and command[-1] == "mcp"
        and any(isinstance(part, str) and "todo" in part for part in command[:-1])
    )


def edit(text: str, mcp_entry: dict[str, Any] | None, plugin_url: str | None) -> str:
    """`text` (an opencode.json) with todo-ls's MCP entry and plugin set, or taken out when
    they are None. Raises InstallError for a file that is not JSONC or has other shapes."""
    root = _parse(text or "{}")
    if root.kind != "object":
        raise InstallError("the top level is not an object")
    if not text.strip():
        text = "{}\n"
    text = _edit_mcp(text, mcp_entry)
    return _edit_plugin(text, plugin_url)


def _parse(text: str) -> jsonc.Node:
    try:
        return jsonc.parse(text)
    except jsonc.JsoncError as err:
        raise InstallError(f"not valid JSON with comments ({err})") from None


def _edit_mcp(text: str, entry: dict[str, Any] | None) -> str:
    root = _parse(text)
    servers = jsonc.member(root, "mcp")
    if servers is None:
        return text if entry is None else jsonc.set_member(text, root, "mcp", {SERVER: entry})
    if servers.value.kind != "object":
        raise InstallError('"mcp" is not an object')
    current = jsonc.member(servers.value, SERVER)
    if current is not None and not is_ours(_value(text, current.value)):
        if entry is None:
            return text  # someone else's server named `todo`: not ours to remove
        raise InstallError(f'"mcp.{SERVER}" is another MCP server; rename it, then run again')
    if entry is None:
        return jsonc.remove_member(text, servers.value, SERVER)
    if current is not None and _value(text, current.value) == entry:
        return text
    return jsonc.set_member(text, servers.value, SERVER, entry)


def _edit_plugin(text: str, url: str | None) -> str:
    root = _parse(text)
    plugins = jsonc.member(root, "plugin")
    if plugins is None:
        return text if url is None else jsonc.set_member(text, root, "plugin", [url])
    if plugins.value.kind != "array":
        raise InstallError('"plugin" is not a list')
    for index, item in enumerate(plugins.value.items):
        if isinstance(item.value, str) and item.value.endswith("/" + PLUGIN_FILE):
            if item.value == url:
                return text
            # An older install (todo-ls moved): take it out, then add the current one.
            text = jsonc.remove_item(text, plugins.value, index)
            return _edit_plugin(text, url)
    if url is None:
        return text
    return jsonc.append_item(text, plugins.value, url)


def uninstalled(text: str, original: originals.Original | None) -> str | None:
    """`text` without todo-ls's entries; None: delete the file. When the file holds exactly
    what the install wrote (`original`), the text from before the install (None when there was
    no file); else the `mcp` / `plugin` keys the install added go too once they are empty."""
    if not text.strip():
        return text
    removed = edit(text, None, None)
    if removed == text or original is None:
        return removed
    if text == original.written:
        return original.text if original.existed else None
    removed = _drop_added_containers(removed, original.text)
    if not original.existed and not _parse(removed).members:
        return None
    return removed


def _drop_added_containers(text: str, before: str) -> str:
    """`text` without the empty `mcp` / `plugin` members that `before` did not have."""
    try:
        had = {m.key for m in jsonc.parse(before).members} if before.strip() else set()
    except jsonc.JsoncError:
        return text  # not what the install read: nothing can be told apart
    for key in ("mcp", "plugin"):
        root = _parse(text)
        found = jsonc.member(root, key)
        if key in had or found is None or found.value.kind == "scalar":
            continue
        if not found.value.members and not found.value.items:
            text = jsonc.remove_member(text, root, key)
    return text


def _value(text: str, node: jsonc.Node) -> Any:
    """The decoded value of a parsed node (comments inside it ignored)."""
    if node.kind == "object":
        return {m.key: _value(text, m.value) for m in node.members}
    if node.kind == "array":
        return [_value(text, i) for i in node.items]
    return node.value


def plugin_package_ready(folder: Path) -> bool:
    """Whether OpenCode will skip installing its plugin package into `folder` at start: it
    does when `node_modules/` exists and `package-lock.json` lists the package."""
    try:
        lock = json.loads((folder / "package-lock.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    root = lock.get("packages", {}).get("", {}) if isinstance(lock, dict) else {}
    deps = root.get("dependencies", {}) if isinstance(root, dict) else {}
    return (folder / "node_modules").is_dir() and isinstance(deps, dict) and PLUGIN_PACKAGE in deps


def install(options: InstallOptions) -> int:
    """Write (or with `uninstall` remove) todo-ls's entries; 0 on success, 1 when refused."""
    out = options.out
    path = config_file(options)
    after: str | None
    try:
        existed = path.exists()
        before = originals.read(path) if existed else ""
        original = originals.load(path, options.env)
        if options.uninstall:
            after = uninstalled(before, original) if existed else before
        else:
            command = [*shlex.split(options.command or todo_ls_command()), "mcp"]
            entry = {"type": "local", "command": command}
            after = edit(before, entry, plugin_path().as_uri())
    except (InstallError, OSError, UnicodeDecodeError) as err:
        out.write(f"todo-ls install opencode: {path}: {err}; nothing written\n")
        return 1
    if after == before:
        state = "not installed" if options.uninstall else "already installed"
        out.write(f"todo-ls is {state} in {path}; nothing to change\n")
        return 0
    if options.dry_run:
        out.writelines(originals.diff(path, before, after))
        out.write("(dry run: nothing written)\n")
        return 0
    folder_existed = path.parent.is_dir()
    try:
        originals.write(path, before, after)
    except (InstallError, OSError) as err:
        out.write(f"todo-ls install opencode: {path}: {err}; nothing written\n")
        return 1
    if options.uninstall:
        originals.forget(path, options.env)
        gone = "; the install had created the file: deleted" if after is None else ""
        out.write(f"Removed the todo MCP server and the todo-ls plugin from {path}{gone}\n")
        return 0
    assert after is not None  # an install always leaves a file
    _remember(path, options, before, after, existed=existed, folder_existed=folder_existed)
    out.write(
        f"Wrote the todo MCP server and the todo-ls plugin into {path}.\n"
        "Restart OpenCode; the agent then has todo_write / todo_read (shown as "
        "todo_todo_write, ...).\n"
    )
    global_dir = config_dir(options.env)
    if not plugin_package_ready(global_dir):
        out.write(
            f"Note: with any plugin configured, OpenCode installs {PLUGIN_PACKAGE} into "
            f"{global_dir} when it starts (todo-ls's plugin does not need it). Online that "
            "takes seconds; offline OpenCode waits about 70 s first. To start fast offline, "
            f"run once while online: npm install --prefix {shlex.quote(str(global_dir))} "
            f"{PLUGIN_PACKAGE}\n"
        )
    return 0


def _remember(
    path: Path,
    options: InstallOptions,
    before: str,
    after: str,
    *,
    existed: bool,
    folder_existed: bool,
) -> None:
    """Keep the file's text from before the first install, for the uninstall (`originals`)."""
    fresh = edit(before, None, None) == before if before.strip() else True
    kept = originals.Original(existed, before, after, folder_existed)
    note = originals.remember(path, options.env, kept, fresh)
    if note:
        options.out.write(note + "\n")
