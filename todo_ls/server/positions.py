"""Columns in the negotiated position encoding.

The checklist engine counts columns in code points (Python `str` indices); LSP clients count
UTF-16 code units (VS Code) or UTF-8 bytes (Neovim). Conversion happens only here, at the edge.
"""

from __future__ import annotations

import enum

from lsprotocol import types


class Encoding(enum.Enum):
    UTF8 = "utf-8"
    UTF16 = "utf-16"
    UTF32 = "utf-32"

    @classmethod
    def of(cls, kind: object) -> Encoding:
        """The encoding pygls negotiated (a `PositionEncodingKind`, a string or None)."""
        value = getattr(kind, "value", kind)
        return next((e for e in cls if e.value == value), cls.UTF16)

    def column(self, line: str, col: int) -> int:
        """The client column of code-point column `col` in `line`."""
        if self is Encoding.UTF32 or line.isascii():
            return col
        prefix = line[:col]
        if self is Encoding.UTF8:
            return len(prefix.encode("utf-8"))
        return len(prefix.encode("utf-16-le")) // 2

    def code_point(self, line: str, character: int) -> int:
        """The code-point column of client column `character` in `line`: the end of the line
        for a column past it (LSP), the next character for one inside a character."""
        if self is Encoding.UTF32 or line.isascii():
            return min(character, len(line))
        units = 0
        for col, char in enumerate(line):
            if units >= character:
                return col
            if self is Encoding.UTF8:
                units += len(char.encode("utf-8"))
            else:
                units += 2 if ord(char) > 0xFFFF else 1
        return len(line)

    def position(self, lines: list[str], line: int, col: int) -> types.Position:
        """A client `Position` for code-point (`line`, `col`)."""
        text = lines[line] if line < len(lines) else ""
        return types.Position(line=line, character=self.column(text, col))

    def range(self, lines: list[str], line: int, start: int, end: int) -> types.Range:
        """A client `Range` on one line between code-point columns `start` and `end`."""
        text = lines[line] if line < len(lines) else ""
        return types.Range(
            start=types.Position(line=line, character=self.column(text, start)),
            end=types.Position(line=line, character=self.column(text, end)),
        )
