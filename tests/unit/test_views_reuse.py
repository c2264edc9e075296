"""The outline and the folds the server re-encodes only in part after an edit are exactly what a
fresh encoding of the new version gives (no stale section survives an edit)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from todo_ls.checklist import StateRegistry, parse
from todo_ls.checklist.lines import split_lines
from todo_ls.server.document_symbols import SymbolEncoder
from todo_ls.server.folding import encode_all
from todo_ls.server.positions import Encoding
from todo_ls.workspace import FileState

PLAN = """\
# Plan 🚀

- [ ] before the first section

## One

- [x] a
- [x] b
  - [ ] b1

## Two — zwei

- [ ] c
  - [x] c1
  - [x] c2
- [~] d

### Two and a half

1. [x] e
2. [x] f

## Three

- [?] g
"""
EDITS = [
    ("tick an item in one section", lambda t: t.replace("- [ ] b1", "- [x] b1")),
    ("a line inserted: later sections move", lambda t: t.replace("- [x] a", "- [x] a\n- [ ] a2")),
    ("a new heading splits a section", lambda t: t.replace("- [~] d", "## Split\n\n- [~] d")),
    ("text changed in a subsection", lambda t: t.replace("2. [x] f", "2. [x] f ünï")),
    ("a section removed", lambda t: t.replace("## Three\n\n- [?] g\n", "")),
    ("blank lines at a section's end", lambda t: t.replace("- [~] d", "- [~] d\n\n\n")),
]  # fmt: skip


def state(text: str) -> FileState:
    lines = split_lines(text)
    checklist = parse(text, StateRegistry.default())
    return FileState(Path("/plan.md"), "file:///plan.md", text, checklist, lines=lines)


@pytest.mark.parametrize("encoding", [Encoding.UTF8, Encoding.UTF16])
def test_reused_outline_and_folds_equal_fresh_ones(encoding: Encoding) -> None:
    text = PLAN
    previous = state(text)
    symbols = SymbolEncoder(previous, encoding, True)
    symbols.encode(True)
    sections = symbols.sections
    _, parts = encode_all(previous, True, None, {})
    for what, edit in EDITS:
        text = edit(text)
        current = state(text)
        reused = SymbolEncoder(current, encoding, True, sections)
        fresh = SymbolEncoder(current, encoding, True).encode(True)
        assert reused.encode(True) == fresh, what
        sections = reused.sections
        folds, parts = encode_all(current, True, None, parts)
        assert folds == encode_all(current, True, None, {})[0], what
    names: list[Any] = []

    def walk(found: list[dict[str, Any]]) -> None:
        for symbol in found:
            names.append(symbol["name"])
            walk(symbol.get("children", []))

    walk(json.loads(fresh))
    assert "a2" in names and "Split" in names and "Three" not in names
