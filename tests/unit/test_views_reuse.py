"""The outline and the folds the server re-encodes only in part after an edit are exactly what a
fresh encoding of the new version gives (no stale section survives an edit)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from corpus import make_corpus

from todo_ls.checklist import StateRegistry, Symbol, document_symbols, parse
from todo_ls.checklist.incremental import reparse
from todo_ls.checklist.lines import split_lines
from todo_ls.server.document_symbols import OutlineParts, SymbolEncoder
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
    ("a percent sign in a section", lambda t: t.replace("- [~] d", "- [~] d at 50%")),
    ("a line inserted above it", lambda t: t.replace("- [x] a\n", "- [x] a\n- [ ] a3\n")),
    ("that line removed: it moves back up", lambda t: t.replace("- [ ] a3\n", "")),
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
    sections = symbols.parts
    _, parts = encode_all(previous, True, None, {})
    for what, edit in EDITS:
        text = edit(text)
        current = state(text)
        reused = SymbolEncoder(current, encoding, True, sections)
        fresh = SymbolEncoder(current, encoding, True).encode(True)
        assert reused.encode(True) == fresh, what
        sections = reused.parts
        folds, parts = encode_all(current, True, None, parts)
        assert folds == encode_all(current, True, None, {})[0], what
    names: list[Any] = []

    def walk(found: list[dict[str, Any]]) -> None:
        for symbol in found:
            names.append(symbol["name"])
            walk(symbol.get("children", []))

    walk(json.loads(fresh))
    assert "a2" in names and "Split" in names and "Three" not in names


def reference_outline(current: FileState, encoding: Encoding) -> list[dict[str, Any]]:
    """The engine's outline (checklist.document_symbols) as `DocumentSymbol` objects, built
    field by field: what the server's hand-written JSON must equal."""
    lines = current.lines

    def position(line: int, col: int) -> dict[str, int]:
        text = lines[line] if line < len(lines) else ""
        return {"line": line, "character": encoding.column(text, col)}

    def convert(symbol: Symbol) -> dict[str, Any]:
        found: dict[str, Any] = {
            "name": symbol.name,
            "kind": 15 if symbol.kind == "heading" else 17,
        }
        if symbol.closed:
            found["tags"] = [1]
        if symbol.detail:
            found["detail"] = symbol.detail
        found["range"] = {"start": position(*symbol.start), "end": position(*symbol.end)}
        found["selectionRange"] = {
            "start": position(symbol.line, symbol.text_start),
            "end": position(symbol.line, symbol.text_end),
        }
        if symbol.children:
            found["children"] = [convert(child) for child in symbol.children]
        return found

    return [convert(s) for s in document_symbols(current.checklist, lines)]


@pytest.mark.parametrize("encoding", [Encoding.UTF8, Encoding.UTF16])
def test_encoded_outline_is_the_engines_outline(encoding: Encoding) -> None:
    # An item nested under an item of another section, and headings skipping levels.
    text = (
        PLAN + "- [ ] under Three\n  # Inside ☕\n  - [x] nested past a heading\n#### Deep\n- [ ]\n"
    )
    for version in (text, *(edit(text) for _, edit in EDITS)):
        current = state(version)
        encoded = SymbolEncoder(current, encoding, True).encode(True)
        assert json.loads(encoded) == reference_outline(current, encoding)


# Lines a random edit writes: headings (ATX, setext), items at every depth and state, items in a
# block quote, fences that hide what follows, blank lines, prose and non-ASCII text.
RANDOM_LINES = [
    *("# Plan", "## Part ☕", "### Deeper", "#### Deepest", "Setext", "===", "---"),
    *("- [ ] open", "- [x] done", "  - [ ] child", "    - [~] grandchild é", "* [?] asked"),
    *("1. [ ] first", "2) [/] going", "   - [-] under a number", "> - [ ] quoted", "> ## In"),
    *("```", "~~~", "    code", "", "", "prose line", "  lazy continuation", "- plain", "漢字"),
]  # fmt: skip


def random_edit(rng: random.Random, lines: list[str]) -> list[str]:
    """`lines` after one random edit: a line written, inserted, removed or typed into, or a
    box ticked."""
    lines = list(lines)
    n = rng.randrange(len(lines))
    op = rng.random()
    if op < 0.25:
        lines[n] = rng.choice(RANDOM_LINES)
    elif op < 0.45:
        lines.insert(n, rng.choice(RANDOM_LINES))
    elif op < 0.55 and len(lines) > 1:
        del lines[n]
    elif op < 0.8:
        lines[n] += rng.choice("xyz é漢")
    else:
        lines[n] = lines[n].replace("[ ]", "[x]", 1) if "[ ]" in lines[n] else lines[n]
    return lines


@pytest.mark.parametrize("seed", range(8))
def test_random_edit_chains_reuse_nothing_stale(seed: int) -> None:
    # Each version is parsed as the server parses it (only the edited section when it can),
    # encoded reusing the previous version's parts, and compared with a fresh encoding.
    rng = random.Random(seed)
    lines = split_lines(make_corpus(items=120, seed=seed))[:150]
    parsed = parse("\n".join(lines), StateRegistry.default())
    sections = {encoding: OutlineParts() for encoding in Encoding}
    parts: dict[Any, Any] = {}
    reused_sections = 0
    for step in range(80):
        new_lines = random_edit(rng, lines)
        text = "\n".join(new_lines)
        parsed = reparse(parsed, lines, new_lines) or parse(text, StateRegistry.default())
        lines = new_lines
        current = FileState(Path("/plan.md"), "file:///plan.md", text, parsed, lines=lines)
        for encoding in Encoding:
            reused = SymbolEncoder(current, encoding, True, sections[encoding])
            fresh = SymbolEncoder(current, encoding, True).encode(True)
            assert reused.encode(True) == fresh, (seed, step, encoding)
            reused_sections += sum(
                1 for key in reused.parts.sections if key in sections[encoding].sections and key
            )
            sections[encoding] = reused.parts
        folds, parts = encode_all(current, True, None, parts)
        assert folds == encode_all(current, True, None, {})[0], (seed, step)
    assert reused_sections > 80  # the test exercised the reuse, not only fresh encodings
