"""The checklist engine as its users see it: items, states, exclusions, nesting, progress, edits."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from todo_ls.checklist import (
    MarkerEdit,
    StateRegistry,
    apply_edits,
    convert_to_task_edit,
    descendants,
    document_progress,
    file_items,
    heading_progress,
    item_progress,
    parse,
    section_items,
    set_state_edits,
    toggle_state,
)

REGISTRY = StateRegistry.default()


def states(text: str) -> list[tuple[int, str, str]]:
    return [(i.line, i.state, i.text) for i in parse(text).items]


@pytest.mark.parametrize(
    ("marker", "state"),
    [
        (" ", "open"),
        ("/", "inProgress"),
        ("?", "blocked"),
        ("x", "done"),
        ("X", "done"),
        ("~", "canceled"),
        ("-", "canceled"),
    ],
)
def test_every_state_and_alias(marker: str, state: str) -> None:
    (item,) = parse(f"- [{marker}] thing\n").items
    assert (item.marker, item.state, item.text) == (marker, state, "thing")
    assert item.is_open == (state in {"open", "inProgress", "blocked"})


def test_unknown_marker_is_a_plain_item_not_a_task() -> None:
    checklist = parse("- [!] alarm\n- [ ] real\n")
    assert states("- [!] alarm\n- [ ] real\n") == [(1, "open", "real")]
    assert [(p.line, p.content_col) for p in checklist.plain_items] == [(0, 2)]


def test_custom_registry() -> None:
    registry = StateRegistry.from_settings({"inProgress": ["!"], "blocked": ["b"]})
    items = parse("- [!] busy\n- [b] wait\n- [/] slash\n", registry).items
    assert [(i.line, i.state) for i in items] == [(0, "inProgress"), (1, "blocked")]


@pytest.mark.parametrize("bullet", ["-", "*", "+", "1.", "7)", "  -", "   10."])
def test_every_list_kind(bullet: str) -> None:
    (item,) = parse(f"{bullet} [ ] a\n").items
    assert item.bullet_col == len(bullet) - len(bullet.lstrip()) and item.text == "a"


@pytest.mark.parametrize(
    "text",
    [
        "```\n- [ ] fenced\n```\n",
        "~~~md\n- [ ] fenced\n~~~\n",
        "- a\n\n  ```\n  - [ ] fenced in an item\n  ```\n",
        "> ```\n> - [ ] fenced in a quote\n> ```\n",
        "    - [ ] indented code\n",
        "<div>\n- [ ] html block\n</div>\n",
        "<!--\n- [ ] comment\n-->\n",
        "---\ntitle: x\n- [ ] front matter\n---\n",
        "- [ ]\n",
        "- [ ]   \n",
        "- [ ]x no space\n",
        "-[ ] no space after bullet\n",
        "[ ] not in a list\n",
        "- # [ ] a heading\n",
    ],
)
def test_exclusions(text: str) -> None:
    assert parse(text).items == ()


def test_items_after_exclusions_still_count() -> None:
    text = "---\na: 1\n---\n```\n- [ ] no\n```\n<div>\n- [ ] no\n</div>\n\n- [ ] yes\n"
    assert states(text) == [(10, "open", "yes")]


def test_block_quotes_and_lazy_lines() -> None:
    text = "> - [x] quoted\n> > 1. [ ] deeper\n"
    assert [(i.line, i.marker_col, i.state) for i in parse(text).items] == [
        (0, 5, "done"),
        (1, 8, "open"),
    ]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_line_ends(newline: str) -> None:
    text = newline.join(["# T", "- [ ] a", "  - [x] b", "", "- [~] c", ""])
    checklist = parse(text)
    assert [(i.line, i.state, i.parent) for i in checklist.items] == [
        (1, "open", None),
        (2, "done", 0),
        (4, "canceled", None),
    ]
    assert checklist.items[0].end_line == 2


def test_non_ascii_columns_are_code_points() -> None:
    text = "# Ünïcödé 漢字\n  - [ ] 🎉 party\n> - [x] é\n"
    a, b = parse(text).items
    assert (a.bullet_col, a.marker_col, a.text) == (2, 5, "🎉 party")
    assert (b.bullet_col, b.marker_col, b.text) == (2, 5, "é")


def test_tabs_follow_commonmark_tab_stops() -> None:
    (item,) = parse("-\t[ ] tab\n").items
    assert (item.bullet_col, item.marker_col) == (0, 3)
    assert parse("\t- [ ] code\n").items == ()  # a tab is 4 columns: indented code


def test_nesting_parents_and_depth() -> None:
    text = "- [ ] a\n  - plain\n    - [ ] b\n      > - [x] c\n- [ ] d\n"
    items = parse(text).items
    assert [(i.text, i.parent, i.depth) for i in items] == [
        ("a", None, 0),
        ("b", 0, 1),
        ("c", 1, 2),
        ("d", None, 0),
    ]
    assert descendants(parse(text), 0) == (1, 2)
    assert items[0].end_line == 3


def test_headings_own_items_until_same_or_higher_level() -> None:
    text = (
        "# A\n- [ ] a1\n## B\n- [x] b1\n### C\n- [ ] c1\n## D\n- [~] d1\n\nSetext\n===\n- [ ] e1\n"
    )
    checklist = parse(text)
    assert [(h.line, h.level, h.text, h.end_line) for h in checklist.headings] == [
        (0, 1, "A", 8),
        (2, 2, "B", 5),
        (4, 3, "C", 5),
        (6, 2, "D", 8),
        (9, 1, "Setext", 11),
    ]
    assert [i.heading for i in checklist.items] == [0, 1, 2, 3, 4]
    assert [i.text for i in section_items(checklist, 0)] == ["a1", "b1", "c1", "d1"]
    progress = heading_progress(checklist, 1)
    assert (progress.open, progress.done, progress.total) == (1, 1, 2)


def test_progress_rollups() -> None:
    text = "- [ ] parent\n  - [x] a\n  - [~] b\n    - [/] c\n- [?] other\n"
    checklist = parse(text)
    below = item_progress(checklist, 0)
    assert (below.open, below.done, below.canceled, below.total) == (1, 1, 1, 3)
    whole = document_progress(checklist)
    assert (whole.open, whole.done, whole.canceled, whole.total) == (3, 1, 1, 5)
    refs = [(f.ref, f.state) for f in file_items(checklist, "docs/PLAN.md")]
    assert refs[0] == ("docs/PLAN.md:1", "open") and refs[-1] == ("docs/PLAN.md:5", "blocked")


def test_set_state_edits_skip_items_already_there() -> None:
    text = "- [ ] a\r\n- [x] b\r\n  - [/] c\r\n"
    checklist = parse(text)
    edits = set_state_edits(checklist, [0, 1, 2], "done", REGISTRY)
    assert edits == [MarkerEdit(0, 3, " ", "x"), MarkerEdit(2, 5, "/", "x")]
    assert apply_edits(text, edits) == "- [x] a\r\n- [x] b\r\n  - [x] c\r\n"


def test_toggle() -> None:
    a, b, c = parse("- [ ] a\n- [x] b\n- [?] c\n").items
    assert (toggle_state(a), toggle_state(b), toggle_state(c)) == ("done", "open", "open")


def test_convert_to_task() -> None:
    text = "> * plain é\n"
    (plain,) = parse(text).plain_items
    converted = apply_edits(text, [convert_to_task_edit(plain)])
    assert converted == "> * [ ] plain é\n"
    assert states(converted) == [(0, "open", "plain é")]


def test_stale_edit_is_refused() -> None:
    with pytest.raises(ValueError):
        apply_edits("- [x] a\n", [MarkerEdit(0, 3, " ", "x")])
    with pytest.raises(ValueError):
        apply_edits("- [ ] a\n", [MarkerEdit(3, 3, " ", "x")])


_LINES = st.lists(
    st.tuples(
        st.sampled_from(["", "  ", "> ", "    ", "\t"]),
        st.sampled_from(["- ", "1. ", "* ", ""]),
        st.sampled_from(["[ ] ", "[x] ", "[~] ", "[/] ", "[?] ", "", "```"]),
        st.text(alphabet="ab é漢\t#-*", max_size=8),
    ).map("".join),
    min_size=1,
    max_size=12,
)


@settings(max_examples=200, derandomize=True, deadline=None)
@given(_LINES, st.sampled_from(["\n", "\r\n", "\r"]), st.sampled_from(["open", "done", "canceled"]))
def test_edits_change_only_marker_characters(lines: list[str], nl: str, state: str) -> None:
    text = nl.join(lines) + nl
    checklist = parse(text)
    edits = set_state_edits(checklist, range(len(checklist.items)), state, REGISTRY)
    edited = apply_edits(text, edits)
    assert len(edited) == len(text)
    changed = [k for k, (x, y) in enumerate(zip(text, edited, strict=True)) if x != y]
    line_starts = [0] + [k + len(nl) for k in range(len(text)) if text.startswith(nl, k)]
    marker_offsets = {line_starts[i.line] + i.marker_col for i in checklist.items}
    assert set(changed) <= marker_offsets
    assert all(i.state == state for i in parse(edited).items)
