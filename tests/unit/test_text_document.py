"""Applying an editor's changes by LSP's rules: three line ends, a column past a line's end
means its end, and the document's lines stay what `split_lines` of its text gives."""

from __future__ import annotations

import random
from typing import Any

import pytest
from lsprotocol import types
from pygls.workspace import Workspace

from todo_ls.checklist.lines import line_start, replace_range, split_lines
from todo_ls.server.positions import Encoding
from todo_ls.server.text_document import LspTextDocument, LspWorkspace

# Characters that end lines in LSP, that str.splitlines also takes for line ends, and others.
ALPHABET = ["a", "é", "😀", "\t", "\r", "\n", "\r\n", "\u2028", "\u2029", "\x85", "\f", "\v"]


def lsp_offset(text: str, line: int, col: int) -> int:
    """The offset of (line, code-point column), written out character by character."""
    starts = [0]
    i = 0
    while i < len(text):
        if text.startswith("\r\n", i):
            i += 2
            starts.append(i)
            continue
        if text[i] in "\r\n":
            starts.append(i + 1)
        i += 1
    if line >= len(starts):
        return len(text)
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    content = text[starts[line] : end].rstrip("\r\n")
    return starts[line] + min(col, len(content))


def random_text(rng: random.Random, most: int) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, most)))


@pytest.mark.parametrize("seed", range(4))
def test_replace_range_splices_like_lsp_and_keeps_the_lines(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(5000):
        text = random_text(rng, 10)
        lines = split_lines(text)
        start, end = ((rng.randint(0, len(lines)), rng.randint(0, 5)) for _ in range(2))
        new = random_text(rng, 4)
        a, b = sorted((lsp_offset(text, *start), lsp_offset(text, *end)))
        expected = text[:a] + new + text[b:]
        assert replace_range(text, lines, start, end, new) == (
            expected,
            split_lines(expected),
        ), (text, start, end, new)


def test_line_start_counts_each_line_end_once() -> None:
    text = "a\r\nb\rc\nd\u2028e\n"
    lines = split_lines(text)
    assert [line_start(text, lines, n) for n in range(len(lines))] == [0, 3, 5, 7, 11]


@pytest.mark.parametrize(
    ("encoding", "character", "col"),
    [
        ("utf-8", 0, 0),
        ("utf-8", 1, 1),
        ("utf-8", 2, 2),  # inside é (2 bytes): the next character
        ("utf-8", 3, 2),
        ("utf-8", 7, 3),  # 😀 is 4 bytes
        ("utf-8", 99, 3),  # past the end: the end
        ("utf-16", 2, 2),
        ("utf-16", 3, 3),  # inside 😀 (2 units)
        ("utf-16", 4, 3),
        ("utf-16", 5, 3),
        ("utf-32", 2, 2),
    ],
)
def test_code_point_of_a_client_column(encoding: str, character: int, col: int) -> None:
    assert Encoding(encoding).code_point("aé😀", character) == col
    if character <= {"utf-8": 7, "utf-16": 4, "utf-32": 3}[encoding]:
        assert Encoding(encoding).column("aé😀", col) >= character


def change(line: int, start: int, end_line: int, end: int, text: str) -> Any:
    return types.TextDocumentContentChangePartial(
        range=types.Range(
            start=types.Position(line=line, character=start),
            end=types.Position(line=end_line, character=end),
        ),
        text=text,
    )


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_document_applies_the_issue_repros(encoding: str) -> None:
    workspace = LspWorkspace.like(Workspace(None, position_encoding=encoding))
    workspace.put_text_document(
        types.TextDocumentItem(uri="file:///a.md", language_id="markdown", version=1, text="")
    )
    doc = workspace.get_text_document("file:///a.md")
    assert isinstance(doc, LspTextDocument)
    doc.apply_change(types.TextDocumentContentChangeWholeDocument(text="x\u2028y\n- [ ] a\n"))
    doc.apply_change(change(1, 0, 1, 0, "z"))
    assert doc.source == "x\u2028y\nz- [ ] a\n"
    assert doc.text_lines == ["x\u2028y", "z- [ ] a", ""]
    assert doc.lines == ("x\u2028y\n", "z- [ ] a\n")
    doc.apply_change(types.TextDocumentContentChangeWholeDocument(text="- [ ] one\n- [ ] two\n"))
    doc.apply_change(change(0, 0, 0, 10, "- [x] one"))
    assert doc.source == "- [x] one\n- [ ] two\n"
    doc.apply_change(change(1, 6, 1, 6, "é😀 "))
    doc.apply_change(change(1, 6 + Encoding(encoding).column("é😀 ", 3), 1, 99, "!"))
    assert doc.source == "- [x] one\n- [ ] é😀 !\n"
    doc.apply_change(change(5, 0, 9, 9, "end"))  # past the last line: the end of the text
    assert doc.text_lines == ["- [x] one", "- [ ] é😀 !", "end"]
