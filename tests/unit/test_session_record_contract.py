"""The VS Code client declares the session entry of `todoLs/status` exactly as the server sends it.

The server writes every supervised session from one record
(`todo_ls.supervisor.session_record.SupervisedSession.to_wire`); the extension reads it as the
`SessionStatus` interface of editors/vscode/src/status.ts. This test keeps the two from
drifting, as tests/unit/test_vscode_settings.py does for the settings: a field added to one side
only, a field that may be null on one side only, or one sent only sometimes on one side only
makes it fail.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from todo_ls.core.counts import TodoCount
from todo_ls.supervisor.session_record import SessionDetail, SupervisedSession

STATUS_TS = Path(__file__).resolve().parents[2] / "editors" / "vscode" / "src" / "status.ts"

# Every field set, and every field that may be left out set to None: between them, each value
# a session entry can carry.
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
BARE = SupervisedSession(
    id="ses_2",
    host="claude-code",
    title=None,
    state="idle",
    detail=None,
    open=0,
    nudges=0,
    paused_reason=None,
    todos=None,
)


def _interface(source: str, name: str) -> dict[str, tuple[bool, set[str]]]:
    """The members of `export interface name` in TypeScript source: name → (optional, the
    set of types of the union)."""
    found = re.search(rf"^export interface {name} \{{\n(.*?)^\}}", source, re.M | re.S)
    assert found, f"no `export interface {name}` in {STATUS_TS.name}"
    body = re.sub(r"/\*.*?\*/", "", found.group(1), flags=re.S)
    body = re.sub(r"//[^\n]*", "", body)
    members: dict[str, tuple[bool, set[str]]] = {}
    for line in body.splitlines():
        line = line.strip()
        if not line:
            continue
        member = re.fullmatch(r"(\w+)(\??):\s*([^;]+);", line)
        assert member, f"{name}: cannot read the member {line!r}"
        types = {part.strip() for part in member.group(3).split("|")}
        members[member.group(1)] = (member.group(2) == "?", types)
    return members


def _ts_types(value: Any) -> str:
    """The TypeScript type a JSON value has, named as a plain interface member would be."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object"


def _sent(records: list[Any]) -> dict[str, tuple[bool, set[str]]]:
    """What the server sends, in `_interface`'s terms: for each key, whether some entry
    leaves it out, and the types its values have."""
    entries = [record.to_wire() for record in records]
    keys = {key for entry in entries for key in entry}
    return {
        key: (
            any(key not in entry for entry in entries),
            {_ts_types(entry[key]) for entry in entries if key in entry},
        )
        for key in keys
    }


SOURCE = STATUS_TS.read_text(encoding="utf-8")
CLIENT = _interface(SOURCE, "SessionStatus")
SERVER = _sent([FULL, BARE])
# Members typed by another interface of status.ts, and the record that writes that object.
NESTED = {"todos": ("SessionTodos", [TodoCount(open=1, total=3)])}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def test_every_field_of_the_record_is_sent() -> None:
    fields = {_camel(f.name) for f in dataclasses.fields(SupervisedSession)}
    assert set(FULL.to_wire()) == fields


def test_the_client_declares_exactly_the_fields_sent() -> None:
    assert set(CLIENT) == set(SERVER)


@pytest.mark.parametrize("key", sorted(SERVER))
def test_each_field_is_optional_and_nullable_on_both_sides_alike(key: str) -> None:
    optional, types = SERVER[key]
    client_optional, client_types = CLIENT[key]
    assert client_optional == optional, (key, "optional" if optional else "always sent")
    if key in NESTED:
        interface, _ = NESTED[key]
        assert client_types == {interface if t == "object" else t for t in types}, key
    else:
        assert client_types == types, key


@pytest.mark.parametrize("key", sorted(NESTED))
def test_nested_objects_agree(key: str) -> None:
    interface, records = NESTED[key]
    assert _interface(SOURCE, interface) == _sent(records)


def test_a_drifted_declaration_is_seen() -> None:
    """A member added to the client only, or one made optional and nullable there, reads as a
    difference (so the tests above can fail)."""
    extra = "  pausedReason: string | null;\n"
    added = _interface(SOURCE.replace(extra, extra + "  extra?: number;\n", 1), "SessionStatus")
    assert set(added) - set(SERVER) == {"extra"}
    strict = "  open: number;\n  nudges"  # SessionStatus's, not FileStatus's
    loose = _interface(SOURCE.replace(strict, "  open?: number | null;\n  nudges"), "SessionStatus")
    assert loose["open"] == (True, {"number", "null"}) != SERVER["open"]
