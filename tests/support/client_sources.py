"""Readers of the clients' declarations of the wire, for the tests that hold them to the
server's (`todo_ls.payloads`): TypeScript interfaces and `as const` objects of
editors/vscode/src, LuaCATS classes and the tables of lua/todo_ls/protocol.lua. Small regex
readers of the forms those files use, failing loudly on a line they cannot read.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VSCODE_SRC = ROOT / "editors" / "vscode" / "src"
PROTOCOL_LUA = ROOT / "lua" / "todo_ls" / "protocol.lua"

# A field: (sometimes left out, the set of its type's alternatives in the client's language).
Field = tuple[bool, frozenset[str]]


def array(alternatives: frozenset[str]) -> str:
    """An array type, spelled one way whatever the source wrote: `(A | B)[]`."""
    return "(" + " | ".join(sorted(alternatives)) + ")[]"


def alternatives(text: str) -> frozenset[str]:
    """`A | (B | C)[]` → {A, (B | C)[]}, arrays spelled as `array` does."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "|" and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    found = set()
    for part in (p.strip() for p in parts):
        if part.endswith("[]"):
            inner = part[:-2]
            inner = inner[1:-1] if inner.startswith("(") else inner
            found.add(array(alternatives(inner)))
        else:
            found.add(part)
    return frozenset(found)


def _without_comments(source: str) -> str:
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    return re.sub(r"//[^\n]*", "", source)


def ts_interfaces(source: str) -> dict[str, dict[str, Field]]:
    """Every `export interface` of TypeScript source with its members (those of the interface
    it extends included): name → member → (optional, the alternatives of its type)."""
    found: dict[str, dict[str, Field]] = {}
    pattern = r"^export interface (\w+)(?: extends (\w+))? \{\n(.*?)^\}"
    for name, base, body in re.findall(pattern, _without_comments(source), re.M | re.S):
        members = dict(found[base]) if base else {}
        for line in filter(None, (line.strip() for line in body.splitlines())):
            member = re.fullmatch(r"(\w+|\[[\w.]+\])(\??):\s*([^;]+);", line)
            assert member, f"{name}: cannot read the member {line!r}"
            members[member.group(1)] = (member.group(2) == "?", alternatives(member.group(3)))
        found[name] = members
    return found


def ts_const_object(source: str, name: str) -> dict[str, str]:
    """`export const name = { key: "value", … } as const;` of TypeScript source."""
    found = re.search(rf"^export const {name} = \{{\n(.*?)^\}} as const;", source, re.M | re.S)
    assert found, f"no `export const {name} = {{…}} as const`"
    entries: dict[str, str] = {}
    for line in filter(
        None, (line.strip() for line in _without_comments(found.group(1)).splitlines())
    ):
        entry = re.fullmatch(r'(\w+): "([^"]+)",', line)
        assert entry, f"{name}: cannot read the entry {line!r}"
        entries[entry.group(1)] = entry.group(2)
    return entries


def lua_classes(source: str) -> dict[str, dict[str, Field]]:
    """Every `---@class todo_ls.Name` of Lua source with its `---@field`s (a parent class's
    included): name → field → (optional, the alternatives of its type)."""
    found: dict[str, dict[str, Field]] = {}
    current: dict[str, Field] | None = None
    for line in source.splitlines():
        if cls := re.match(r"---@class todo_ls\.(\w+)(?: : todo_ls\.(\w+))?\s*$", line):
            current = found[cls.group(1)] = dict(found[cls.group(2)]) if cls.group(2) else {}
        elif field := re.match(r"---@field (\w+)(\??) (\S+)", line):
            assert current is not None, f"a field outside a class: {line!r}"
            current[field.group(1)] = (field.group(2) == "?", alternatives(field.group(3)))
        else:
            current = None
    return found


def lua_table(source: str, name: str) -> dict[str, str]:
    """`name = { key = 'value', … }` of Lua source."""
    found = re.search(rf"^{re.escape(name)} = \{{\n(.*?)^\}}", source, re.M | re.S)
    assert found, f"no `{name} = {{…}}`"
    entries: dict[str, str] = {}
    for line in filter(None, (line.strip() for line in found.group(1).splitlines())):
        entry = re.fullmatch(r"(\w+) = '([^']+)',", line)
        assert entry, f"{name}: cannot read the entry {line!r}"
        entries[entry.group(1)] = entry.group(2)
    return entries
