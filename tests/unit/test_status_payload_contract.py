"""The clients declare the status payload and every command answer exactly as the server does.

The server declares what it sends in `todo_ls.payloads` (and builds each object as that type, so
mypy checks the building); the VS Code extension declares the same objects as TypeScript
interfaces of the same names (editors/vscode/src/status.ts, answers.ts) and the Neovim plugin
as LuaCATS classes (lua/todo_ls/protocol.lua). This test reads both sources and fails when a
field is added on one side only, may be null on one side only, is sent only sometimes on one
side only, or has another type; and when a command's answer is another declaration.
tests/lsp check that what the real server sends conforms to the same declarations.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin

import pytest
from support.client_sources import (
    PROTOCOL_LUA,
    VSCODE_SRC,
    Field,
    array,
    lua_classes,
    ts_const_object,
    ts_interfaces,
)

from todo_ls import payloads
from todo_ls.supervisor.session_record import SessionDetail, SupervisedSession, TodoCount

TS_SOURCES = [VSCODE_SRC / "status.ts", VSCODE_SRC / "answers.ts"]

DECLARATIONS: dict[str, type] = {
    name: value
    for name, value in vars(payloads).items()
    if not name.startswith("_") and typing.is_typeddict(value)
}


# --- the Python side ----------------------------------------------------------------------

# How each language spells a Python scalar, JSON null, `Literal[True]` and a declared object.
TS_NAMES = {str: "string", int: "number", bool: "boolean", type(None): "null", True: "true"}
LUA_NAMES = {str: "string", int: "integer", bool: "boolean", type(None): "vim.NIL", True: "true"}


def _spelled(tp: Any, names: dict[Any, str], prefix: str) -> frozenset[str]:
    """The alternatives of Python type `tp` as the client language spells them."""
    if get_origin(tp) in (Union, types.UnionType):
        return frozenset().union(*(_spelled(arg, names, prefix) for arg in get_args(tp)))
    if get_origin(tp) is list:
        (inner,) = get_args(tp)
        return frozenset({array(_spelled(inner, names, prefix))})
    if get_origin(tp) is Literal:
        return frozenset(names[value] for value in get_args(tp))
    if typing.is_typeddict(tp):
        return frozenset({prefix + tp.__name__})
    return frozenset({names[tp]})


def declared(cls: type, names: dict[Any, str], prefix: str = "") -> dict[str, Field]:
    """The fields of a `payloads` declaration in one client language's terms."""
    hints = typing.get_type_hints(cls)
    optional: frozenset[str] = cls.__optional_keys__
    return {key: (key in optional, _spelled(tp, names, prefix)) for key, tp in hints.items()}


TS = {
    name: members
    for path in TS_SOURCES
    for name, members in ts_interfaces(path.read_text(encoding="utf-8")).items()
}
LUA = lua_classes(PROTOCOL_LUA.read_text(encoding="utf-8"))


# --- the tests ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(DECLARATIONS))
def test_vscode_declares_each_object_as_the_server(name: str) -> None:
    assert name in TS, f"no `export interface {name}` in {[p.name for p in TS_SOURCES]}"
    assert TS[name] == declared(DECLARATIONS[name], TS_NAMES)


@pytest.mark.parametrize("name", sorted(DECLARATIONS))
def test_neovim_declares_each_object_as_the_server(name: str) -> None:
    assert name in LUA, f"no `---@class todo_ls.{name}` in {PROTOCOL_LUA.name}"
    assert LUA[name] == declared(DECLARATIONS[name], LUA_NAMES, "todo_ls.")


def test_neovim_declares_no_object_the_server_does_not_send() -> None:
    assert set(LUA) == set(DECLARATIONS)


def test_every_command_answers_the_same_declaration_on_both_sides() -> None:
    ids = ts_const_object(
        (VSCODE_SRC / "constants.ts").read_text(encoding="utf-8"), "ServerCommand"
    )
    table = TS["CommandAnswers"]
    client = {}
    for key, (optional, answer) in table.items():
        command = re.fullmatch(r"\[ServerCommand\.(\w+)\]", key)
        assert command and not optional, key
        client[ids[command.group(1)]] = answer
    assert client == {
        command: frozenset({answer.__name__}) for command, answer in payloads.ANSWERS.items()
    }


def test_a_drifted_declaration_is_seen() -> None:
    """A member added on one side, made optional, or made nullable reads as a difference (so
    the tests above can fail)."""
    source = TS_SOURCES[0].read_text(encoding="utf-8")
    expected = declared(payloads.SessionStatus, TS_NAMES)
    strict = "  open: number;\n  nudges"  # SessionStatus's, not FileStatus's
    for drifted in ("  open?: number;\n  nudges", "  open: number | null;\n  nudges"):
        assert ts_interfaces(source.replace(strict, drifted))["SessionStatus"] != expected
    added = source.replace(strict, strict.replace("  nudges", "  extra: string;\n  nudges"))
    assert set(ts_interfaces(added)["SessionStatus"]) - set(expected) == {"extra"}
    lua = PROTOCOL_LUA.read_text(encoding="utf-8")
    nullable = lua.replace("---@field workspace string", "---@field workspace string|vim.NIL")
    status = declared(payloads.StatusPayload, LUA_NAMES, "todo_ls.")
    assert lua_classes(nullable)["StatusPayload"]["workspace"] != status["workspace"]


# The session entry is written by one record, `SupervisedSession.to_wire`: every field set,
# and every field that may be left out left out.
FULL = SupervisedSession(
    id="ses_1",
    host="opencode-v1",
    title="Build the parser",
    state="working",
    detail=SessionDetail(("1 tool",), ("quiet 4s",)),
    open=5,
    nudges=2,
    paused_reason="no-progress",
    todos=TodoCount(open=2, total=5),
)
BARE = dataclasses.replace(FULL, title=None, detail=None, paused_reason=None, todos=None)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def test_the_session_record_sends_every_declared_field() -> None:
    entry = payloads.SessionStatus
    fields = {_camel(f.name) for f in dataclasses.fields(SupervisedSession)}
    assert set(FULL.to_wire()) == fields == entry.__required_keys__ | entry.__optional_keys__
    assert set(BARE.to_wire()) == entry.__required_keys__
    assert [k for k, v in BARE.to_wire().items() if v is None] == [
        "title",
        "detail",
        "pausedReason",
    ]
