"""The pure outline, folding and fuzzy search of the checklist engine (no server)."""

from __future__ import annotations

import random
import re

import pytest

from todo_ls.checklist import Checklist, StateRegistry, parse
from todo_ls.checklist.folding import Fold, closed_runs, folding_ranges
from todo_ls.checklist.fuzzy import (
    OpenItems,
    fuzzy_match,
    fuzzy_pattern,
    open_task_items,
    rare_run,
    scans_backward,
)
from todo_ls.checklist.lines import split_lines
from todo_ls.checklist.symbols import Symbol, document_symbols

PLAN = """\
- [ ] before any heading

# Top

## First

- [x] a
- [x] b
  - [x] b1
- [ ] c
  - [x] c1
  - [~] c2

- [x] d
- [x] e

Paragraph between lists.

- [x] f

### Deeper

1. [x] g
2. [-] h

## Second

* [x] i
  - [ ] i1
* [x] j
"""


def checklist(text: str = PLAN) -> tuple[Checklist, list[str]]:
    return parse(text, StateRegistry.default()), split_lines(text)


def tree(symbols: list[Symbol], depth: int = 0) -> list[tuple[int, str, str]]:
    found: list[tuple[int, str, str]] = []
    for s in symbols:
        found.append((depth, s.name, s.detail))
        found += tree(s.children, depth + 1)
    return found


def test_outline_nests_headings_items_and_child_items() -> None:
    assert tree(document_symbols(*checklist())) == [
        (0, "before any heading", "open"),
        (0, "Top", "10/14 done · 2 canceled"),
        (1, "First", "8/11 done · 2 canceled"),
        (2, "a", "done"),
        (2, "b", "done · 1/1 done"),
        (3, "b1", "done"),
        (2, "c", "open · 1/2 done · 1 canceled"),
        (3, "c1", "done"),
        (3, "c2", "canceled"),
        (2, "d", "done"),
        (2, "e", "done"),
        (2, "f", "done"),
        (2, "Deeper", "1/2 done · 1 canceled"),
        (3, "g", "done"),
        (3, "h", "canceled"),
        (1, "Second", "2/3 done"),
        (2, "i", "done · 0/1 done"),
        (3, "i1", "open"),
        (2, "j", "done"),
    ]


def test_symbol_ranges_hold_their_selection_and_children() -> None:
    found = document_symbols(*checklist())

    def check(symbol: Symbol) -> None:
        assert symbol.start <= (symbol.line, symbol.text_start)
        assert (symbol.line, symbol.text_end) <= symbol.end
        for child in symbol.children:
            assert symbol.start <= child.start and child.end <= symbol.end
            check(child)

    for symbol in found:
        check(symbol)
    c = found[1].children[0].children[2]  # "c" with its two children
    assert (c.name, c.start, c.end, c.text_start, c.text_end) == ("c", (9, 0), (11, 10), 6, 7)


def test_an_empty_heading_gets_a_name() -> None:
    [heading] = document_symbols(*checklist("#\n\n- [ ] item\n"))
    assert (heading.name, heading.children[0].name) == ("(no text)", "item")


def test_closed_runs_are_finished_siblings_with_only_blank_lines_between() -> None:
    runs = closed_runs(*checklist())
    assert runs == [
        Fold(6, 8, "✓ 3 done"),  # a, b and b1
        Fold(10, 11, "✓ 1 done · 1 canceled"),  # c's children
        Fold(13, 14, "✓ 2 done"),  # d, e: after a blank line; not f (a paragraph between)
        Fold(22, 23, "✓ 1 done · 1 canceled"),  # g, h
    ]
    # i is closed but its child is open: neither it nor i + j is a run.
    assert all(run.start < 27 for run in runs)


def test_folding_ranges_sections_parents_and_runs() -> None:
    found = [(f.start, f.end, f.collapsed is not None) for f in folding_ranges(*checklist())]
    assert found == [
        (2, 29, False),  # # Top, the blank last line not folded
        (4, 23, False),  # ## First: the blank line before ## Second not folded
        (6, 8, True),  # the a..b run
        (7, 8, False),  # b and b1
        (9, 11, False),  # c and its children
        (10, 11, True),
        (13, 14, True),
        (20, 23, False),  # ### Deeper
        (22, 23, True),
        (25, 29, False),  # ## Second
        (27, 28, False),  # i and i1
    ]


def test_one_range_per_first_line_the_larger_kept() -> None:
    text = "- [x] a\n  - [x] a1\n- [x] b\n"
    assert folding_ranges(*checklist(text)) == [Fold(0, 2, "✓ 3 done")]


def test_fuzzy_match_every_character_in_order_ignoring_case() -> None:
    assert fuzzy_match("wrp", "Write the Parser")
    assert fuzzy_match("WTP", "write the parser")
    assert fuzzy_match("the p", "write the parser")  # spaces in the query are ignored
    assert not fuzzy_match("pw", "write the parser")  # order matters
    assert not fuzzy_match("wrpz", "write the parser")
    assert fuzzy_match("", "anything")
    assert fuzzy_match("ünï", "blocks ÜNÏ")
    assert fuzzy_match(".*", "a .* regex")
    assert not fuzzy_match(".*", "no regex here")


def test_open_items_search_finds_each_matching_open_item_once() -> None:
    text = "- [ ] aaa bbb aaa\n- [x] abc closed\n- [/] xaxbxc\n- [ ] cba\n- [?] a\n  b c\n"
    parsed = parse(text, StateRegistry.default())
    items = OpenItems(parsed)
    # The index keeps no items: its indices are those of `open_task_items` of the same parse.
    found = open_task_items(parsed)
    assert items.count == len(found) == 4

    def search(query: str | None) -> list[str]:
        pattern = fuzzy_pattern(query) if query is not None else None
        return [found[n].text for n in items.matches(pattern)]

    assert search("abc") == ["xaxbxc"]
    assert search("a") == ["aaa bbb aaa", "xaxbxc", "cba", "a"]
    assert search(None) == ["aaa bbb aaa", "xaxbxc", "cba", "a"]
    assert search("q") == []


def test_open_items_are_searched_by_the_names_the_outline_shows() -> None:
    text = "- [ ] fix `parse()` in *scan*\n- [ ] see [docs](u.md)\n"
    items = OpenItems(parse(text, StateRegistry.default()))
    assert list(items.matches(fuzzy_pattern("parse() in scan"))) == [0]
    assert list(items.matches(fuzzy_pattern("u.md"))) == []  # a link's address is not shown


RUN_ALPHABET = "etasrvxz.&é"


@pytest.mark.parametrize("seed", range(60))
def test_a_rare_run_is_found_where_str_find_finds_it(seed: int) -> None:
    rng = random.Random(seed)
    text = "".join(rng.choices(RUN_ALPHABET + "\n ", k=400))
    needle = "".join(rng.choices(RUN_ALPHABET + " ", k=rng.randint(1, 4))).strip() or "v"
    rare = rare_run(needle)
    if rare is None:  # only common characters: searched with `str.find` itself
        assert set(needle) <= set("etasr ")
        return
    pattern, back = re.compile(rare[0]), rare[1]
    # The run pass searches from line starts (a lookbehind never reaches a line before).
    for at in [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]:
        match = pattern.search(text, at)
        assert (match.start() - back if match else -1) == text.find(needle, at), (needle, at)


@pytest.mark.parametrize("seed", range(60))
def test_a_query_read_backward_matches_the_lines_it_matches_forward(seed: int) -> None:
    rng = random.Random(seed)
    query = "".join(rng.choices(RUN_ALPHABET + " ", k=rng.randint(1, 4)))
    lines = ["".join(rng.choices(RUN_ALPHABET + " ", k=rng.randint(0, 30))) for _ in range(40)]
    backward = fuzzy_pattern(query, backward=True)
    if backward is None:
        assert not query.strip()
        return
    for line in lines:
        assert (backward.search(line[::-1]) is not None) == fuzzy_match(query, line), (query, line)


def test_a_query_is_read_backward_when_its_last_letter_is_the_rarer() -> None:
    assert scans_backward("srv")  # tried at each `v`, not at each `s`
    assert not scans_backward("par")
    assert not scans_backward("e")
    assert not scans_backward("  ")
