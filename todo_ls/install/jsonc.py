"""Minimal text edits to a JSON-with-comments file (OpenCode's `opencode.json` / `.jsonc`).

Rewriting the file through a JSON library would drop the user's comments and formatting, and no
well-kept Python library edits JSONC in place, so this module parses the text just enough to
know where each value starts and ends (comments, trailing commas and strings with escapes
included), and changes only the spans it must: setting one member of an object, removing it,
adding or removing one string of an array. Everything else stays byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


class JsoncError(ValueError):
    """The text is not JSON with comments; the message names the place."""


@dataclass
class Node:
    """A parsed value: its span `[start, end)` in the text and, for containers, its parts."""

    start: int
    end: int
    kind: str  # "object" | "array" | "scalar"
    value: Any = None  # the decoded value of a scalar
    members: list[Member] = field(default_factory=list)  # objects
    items: list[Node] = field(default_factory=list)  # arrays


@dataclass
class Member:
    key: str
    key_start: int
    value: Node


def parse(text: str) -> Node:
    """The top-level value of `text`; JsoncError for anything that is not JSONC."""
    parser = _Parser(text)
    node = parser.value()
    parser.skip()
    if parser.pos != len(text):
        raise parser.error("unexpected text after the end of the document")
    return node


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def error(self, what: str) -> JsoncError:
        line = self.text.count("\n", 0, self.pos) + 1
        column = self.pos - (self.text.rfind("\n", 0, self.pos) + 1) + 1
        return JsoncError(f"line {line}, column {column}: {what}")

    def skip(self) -> None:
        """Whitespace and comments."""
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t\r\n\ufeff":
                self.pos += 1
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.error("unclosed /* comment")
                self.pos = end + 2
            else:
                return

    def value(self) -> Node:
        self.skip()
        if self.pos >= len(self.text):
            raise self.error("a value is missing")
        char = self.text[self.pos]
        if char == "{":
            return self.container("object", "}")
        if char == "[":
            return self.container("array", "]")
        if char == '"':
            start = self.pos
            self.pos = self.string_end()
            return Node(start, self.pos, "scalar", self.decode(start))
        return self.literal()

    def container(self, kind: str, close: str) -> Node:
        node = Node(self.pos, -1, kind)
        self.pos += 1
        while True:
            self.skip()
            if self.text.startswith(close, self.pos):
                self.pos += 1
                node.end = self.pos
                return node
            if kind == "object":
                if not self.text.startswith('"', self.pos):
                    raise self.error("expected a quoted key")
                key_start = self.pos
                self.pos = self.string_end()
                key = self.decode(key_start)
                self.skip()
                if not self.text.startswith(":", self.pos):
                    raise self.error("expected ':' after a key")
                self.pos += 1
                node.members.append(Member(str(key), key_start, self.value()))
            else:
                node.items.append(self.value())
            self.skip()
            if self.text.startswith(",", self.pos):
                self.pos += 1  # a trailing comma before the close is allowed (JSONC)
            elif not self.text.startswith(close, self.pos):
                raise self.error(f"expected ',' or '{close}'")

    def string_end(self) -> int:
        pos = self.pos + 1
        while pos < len(self.text):
            char = self.text[pos]
            if char == "\\":
                pos += 2
            elif char == '"':
                return pos + 1
            elif char == "\n":
                break
            else:
                pos += 1
        raise self.error("unterminated string")

    def decode(self, start: int) -> Any:
        try:
            return json.loads(self.text[start : self.pos])
        except ValueError as err:
            raise self.error(f"bad string: {err}") from None

    def literal(self) -> Node:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in ",]}: \t\r\n/":
            self.pos += 1
        raw = self.text[start : self.pos]
        try:
            value = json.loads(raw)
        except ValueError:
            self.pos = start
            raise self.error(f"unexpected {raw[:20]!r}") from None
        return Node(start, self.pos, "scalar", value)


def member(node: Node, key: str) -> Member | None:
    """The member `key` of an object node (the last one, as JSON parsers keep)."""
    found = [m for m in node.members if m.key == key]
    return found[-1] if found else None


def set_member(text: str, obj: Node, key: str, value: Any) -> str:
    """`text` with `key` of object `obj` set to `value` (replaced in place, else appended)."""
    existing = member(obj, key)
    indent = _child_indent(text, obj)
    rendered = _render(value, indent, _one_line(text, obj) and obj.members != [])
    if existing is not None:
        span = existing.value
        return text[: span.start] + rendered + text[span.end :]
    entry = f"{json.dumps(key)}: {rendered}"
    return _append(text, obj, [m.value for m in obj.members], entry, indent)


def append_item(text: str, array: Node, value: Any) -> str:
    """`text` with `value` appended to the array node."""
    indent = _child_indent(text, array)
    rendered = _render(value, indent, _one_line(text, array) and array.items != [])
    return _append(text, array, array.items, rendered, indent)


def remove_member(text: str, obj: Node, key: str) -> str:
    """`text` without member `key` of `obj` (unchanged when it has none)."""
    existing = member(obj, key)
    if existing is None:
        return text
    index = obj.members.index(existing)
    starts = [m.key_start for m in obj.members]
    return _remove(text, obj, starts, [m.value for m in obj.members], index)


def remove_item(text: str, array: Node, index: int) -> str:
    """`text` without item `index` of the array node."""
    return _remove(text, array, [i.start for i in array.items], array.items, index)


def _append(text: str, node: Node, values: list[Node], entry: str, indent: str) -> str:
    if values and _one_line(text, node):
        at = values[-1].end  # a one-line container stays on one line
        return text[:at] + f", {entry}" + text[at:]
    if values:
        at = values[-1].end
        pos = _skip_blank(text, at, newlines=False)
        comma = text.startswith(",", pos)
        pos = _skip_blank(text, pos + 1, newlines=False) if comma else pos
        if text.startswith("//", pos):
            pos = text.find("\n", pos) if "\n" in text[pos:] else len(text)
        if pos < len(text) and text[pos] in "\r\n":
            # After the last entry's line, its comment kept there; a trailing comma style
            # is kept too.
            lead = "" if comma else ","
            tail = "," if comma else ""
            return text[:at] + lead + text[at:pos] + f"\n{indent}{entry}{tail}" + text[pos:]
        return text[:at] + f",\n{indent}{entry}" + text[at:]
    close = node.end - 1  # an empty container: put the entry on a line of its own
    return (
        text[: node.start + 1]
        + f"\n{indent}{entry}\n{_line_indent(text, node.start)}"
        + (text[close:])
    )


def _remove(text: str, node: Node, starts: list[int], values: list[Node], index: int) -> str:
    start, end = starts[index], values[index].end
    after = _skip_blank(text, end)
    if after < len(text) and text[after] == ",":
        end = after + 1  # this entry's comma goes with it
    elif index > 0:
        start = values[index - 1].end  # the last entry: take the comma before it
        comma = _skip_blank(text, start)
        if text[comma] == ",":
            start = comma
        return text[:start] + text[end:]
    if len(values) == 1:
        return text[: node.start + 1] + text[node.end - 1 :]
    # Take the whole line when the entry had it alone.
    line_start = text.rfind("\n", 0, start) + 1
    if not text[line_start:start].strip():
        rest = _skip_blank(text, end, newlines=False)
        if rest >= len(text) or text[rest] == "\n":
            start, end = line_start, min(rest + 1, len(text))
    return text[:start] + text[end:]


def _skip_blank(text: str, pos: int, newlines: bool = True) -> int:
    blank = " \t\r\n" if newlines else " \t\r"
    while pos < len(text) and text[pos] in blank:
        pos += 1
    return pos


def _line_indent(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    prefix = text[line_start:pos]
    return prefix[: len(prefix) - len(prefix.lstrip())]


def _child_indent(text: str, node: Node) -> str:
    """The indentation of the container's entries: as its first entry has it, else one
    step (two spaces) more than the line the container opens on."""
    first = (
        node.members[0].key_start if node.members else (node.items[0].start if node.items else None)
    )
    if first is not None and "\n" in text[node.start : first]:
        return _line_indent(text, first)
    return _line_indent(text, node.start) + "  "


def _one_line(text: str, node: Node) -> bool:
    return "\n" not in text[node.start : node.end]


def _render(value: Any, indent: str, compact: bool = False) -> str:
    """`value` as JSON (on one line when `compact`); nested lines indented to sit under
    `indent`."""
    if compact or not isinstance(value, dict | list) or not value:
        return json.dumps(value)
    lines = json.dumps(value, indent=2).split("\n")
    return "\n".join([lines[0], *(indent + line for line in lines[1:])])
