"""The command ids are the same everywhere: the server's declarations, the commands the server
registers, the docs, the VS Code extension (its constants and package.json) and the Neovim
plugin's protocol.lua.

A command renamed or added on one side only would reach the server as an unknown command (or a
palette entry that runs nothing), which no other test notices until a user clicks it.
"""

from __future__ import annotations

import json
import re

from support.client_sources import PROTOCOL_LUA, ROOT, VSCODE_SRC, lua_table, ts_const_object

from todo_ls import payloads
from todo_ls.server.app import create_server

PREFIX = "todoLs."
# The ids declared in todo_ls/payloads.py, each a module constant.
DECLARED = {
    value
    for name, value in vars(payloads).items()
    if name.isupper() and isinstance(value, str) and value.startswith(PREFIX)
}
CONSTANTS_TS = (VSCODE_SRC / "constants.ts").read_text(encoding="utf-8")
TS_SERVER = ts_const_object(CONSTANTS_TS, "ServerCommand")
TS_PALETTE = ts_const_object(CONSTANTS_TS, "PaletteCommand")
TS_PANEL = ts_const_object(
    (VSCODE_SRC / "panelView.ts").read_text(encoding="utf-8"), "PanelCommand"
)
LUA_SOURCE = PROTOCOL_LUA.read_text(encoding="utf-8")
LUA = lua_table(LUA_SOURCE, "M.command")
PACKAGE = json.loads((ROOT / "editors/vscode/package.json").read_text(encoding="utf-8"))
CONTRIBUTED = {c["command"] for c in PACKAGE["contributes"]["commands"]}


def test_every_declared_command_has_its_answer_declared() -> None:
    assert set(payloads.ANSWERS) == DECLARED


def test_the_server_registers_exactly_the_declared_commands() -> None:
    assert set(create_server().protocol.fm.commands) == DECLARED


def test_the_docs_describe_exactly_the_declared_commands() -> None:
    page = (ROOT / "docs/status-and-commands.md").read_text(encoding="utf-8")
    commands = page.split("## Commands", 1)[1].split("\n## ", 1)[0]
    headings = [line for line in commands.splitlines() if line.startswith("### ")]
    assert {m for h in headings for m in re.findall(r"`(todoLs\.\w+)`", h)} == DECLARED


def test_vscode_and_neovim_name_the_same_commands_by_the_same_keys() -> None:
    by_suffix = {command.removeprefix(PREFIX): command for command in DECLARED}
    assert by_suffix == TS_SERVER == LUA


def test_package_json_contributes_a_palette_entry_per_server_command_and_no_server_id() -> None:
    """vscode-languageclient registers each server command under its own id: a contributed
    server id would clash with it, so the palette runs each through `todoLs.palette.<name>`."""
    assert not CONTRIBUTED & DECLARED
    assert {f"{PREFIX}palette.{key}" for key in TS_SERVER} <= set(TS_PALETTE.values())
    assert set(TS_PALETTE.values()) | set(TS_PANEL.values()) == CONTRIBUTED
    menus = PACKAGE["contributes"]["menus"].values()
    assert {entry["command"] for entries in menus for entry in entries} <= CONTRIBUTED


def test_the_clients_spell_server_ids_only_in_their_constants() -> None:
    """Everywhere else they name `ServerCommand.x` / `protocol.command.x`, so the tables above
    are the only place an id can drift."""
    ids = "|".join(re.escape(command) for command in DECLARED)
    quoted = re.compile(rf"""["']({ids})["']""")
    sources = [p for p in VSCODE_SRC.glob("*.ts") if p.name != "constants.ts"]
    sources += [p for p in (ROOT / "lua").rglob("*.lua") if p != PROTOCOL_LUA]
    sources += list((ROOT / "plugin").glob("*"))
    spelled = {
        f"{path.relative_to(ROOT)}: {match}"
        for path in sources
        for match in quoted.findall(path.read_text(encoding="utf-8"))
    }
    assert not spelled
