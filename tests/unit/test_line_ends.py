"""Every line number todo-ls reports counts LSP's line ends only (`\\n`, `\\r\\n`, `\\r`): a
file with U+2028, U+2029, NEL, form feed or vertical tab in its text gets the same references
in `todo-ls check`, in the supervisor's nudges (`IndexWorkspace.file_items`), and in a marker
written to a file the editor does not have open, as in the editor."""

from __future__ import annotations

from pathlib import Path

import pytest

from todo_ls.checklist import StateRegistry, parse, set_state_edits
from todo_ls.checklist.reference import reference_parse
from todo_ls.commands.check import run_check
from todo_ls.disk import write_markers
from todo_ls.workspace import Folder, WorkspaceIndex

# Line 3 (1-based) holds the open item in LSP's count; str.splitlines would say 8.
TEXT = "# Plan \u2028 one\u2029two\r\n- [x] a\x85b\f c\v\r- [ ] d é\n"


def test_the_engine_and_its_judge_count_three_line_ends() -> None:
    items = parse(TEXT).items
    assert [(i.line, i.state, i.text) for i in items] == [
        (1, "done", "a\x85b\f c"),  # trailing whitespace trimmed, \v too
        (2, "open", "d é"),
    ]
    assert reference_parse(TEXT) == parse(TEXT)


def test_check_reports_lsp_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "PLAN.md").write_bytes(TEXT.encode("utf-8"))
    assert run_check([str(tmp_path / "PLAN.md")], "text") == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{tmp_path / 'PLAN.md'}:3: [open] d é"


def test_nudge_references_count_lsp_lines(tmp_path: Path) -> None:
    (tmp_path / "PLAN.md").write_bytes(TEXT.encode("utf-8"))
    index = WorkspaceIndex()
    folder = Folder.from_path(tmp_path)
    index.set_folders([folder])
    index.configure(["PLAN.md"], index.registry)
    assert [i.ref for i in index.open_items(folder)] == ["PLAN.md:3"]


def test_a_marker_written_to_disk_lands_on_its_line(tmp_path: Path) -> None:
    path = tmp_path / "PLAN.md"
    path.write_bytes(TEXT.encode("utf-8"))
    checklist = parse(TEXT)
    edits = set_state_edits(checklist, [1], "done", StateRegistry.default())
    assert write_markers(path, edits, {2: "- [ ] d é"}).applied
    assert path.read_bytes().decode("utf-8") == TEXT.replace("- [ ] d", "- [x] d")


@pytest.mark.parametrize(
    ("text", "content_col"),
    [("- \f\n", 3), ("1. \v\n", 4), ("- \u2028 \n", 4), ("> - \f\n", 5), ("- \f\n  more\n", 3)],
)
def test_an_item_of_only_separators_starts_at_its_line_end(text: str, content_col: int) -> None:
    # markdown-it-py trims these characters off the paragraph: its content starts at the end
    # of the line, where "Convert to task" inserts the box (never inside the list marker).
    assert [p.content_col for p in reference_parse(text).plain_items] == [content_col]
    assert reference_parse(text) == parse(text)


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("- [ ]\n\u2029\n", []),  # markdown-it-py trims the U+2029 line: `[ ]` alone, no task
        ("- [ ]\n  \v\n", []),
        ("> - [ ]\n> \f\n", []),
        ("- [ ]\n\u2029\nb\n", [(0, "")]),  # the paragraph goes on past the box
        ("- [~] a \f\n\u2029\n", [(0, "a")]),  # its trimmed last line leaves one line
    ],
)
def test_trailing_lines_of_only_separators_do_not_continue_a_paragraph(
    text: str, items: list[tuple[int, str]]
) -> None:
    assert [(i.line, i.text) for i in reference_parse(text).items] == items
    assert reference_parse(text) == parse(text)
