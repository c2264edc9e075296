"""`reparse` (re-parse only the edited section) always equals a full parse, and takes the fast
path for the edits a user types most: characters inside an item or a paragraph."""

from __future__ import annotations

import random

import pytest
from corpus import make_corpus

from todo_ls.checklist import parse
from todo_ls.checklist.incremental import reparse
from todo_ls.checklist.lines import split_lines
from todo_ls.checklist.reference import reference_parse

TEXT = make_corpus(items=600, seed=3)
LINES = split_lines(TEXT)
OLD = parse(TEXT)
# Characters that can change block structure, and plain ones.
ALPHABET = "`~#->*+[]x /?<!1.)=_\t\\abc"


def edited(rng: random.Random) -> list[str]:
    lines = list(LINES)
    for _ in range(rng.choice((1, 1, 1, 2))):
        n = rng.randrange(len(lines))
        line = lines[n]
        col = rng.randint(0, len(line))
        op = rng.random()
        if op < 0.5:
            line = line[:col] + rng.choice(ALPHABET) + line[col:]
        elif op < 0.8:
            line = line[:col] + line[col + 1 :]
        else:
            line = line[:col] + rng.choice(ALPHABET) + line[col + 1 :]
        lines[n] = line
    return lines


@pytest.mark.parametrize("seed", range(6))
def test_random_edits_give_the_full_parse(seed: int) -> None:
    rng = random.Random(seed)
    fast = 0
    for _ in range(150):
        lines = edited(rng)
        result = reparse(OLD, LINES, lines)
        if result is not None:
            fast += 1
            assert result == parse("\n".join(lines))
    assert fast > 50  # most edits stay inside their section


def test_typing_in_an_item_takes_the_fast_path() -> None:
    item = OLD.items[len(OLD.items) // 2]
    lines = list(LINES)
    lines[item.line] += " more words"
    result = reparse(OLD, LINES, lines)
    assert result is not None
    assert result.items[item.index].text == item.text + " more words"
    assert result == parse("\n".join(lines))


def test_opening_a_fence_falls_back_to_a_full_parse() -> None:
    item = OLD.items[len(OLD.items) // 2]
    lines = list(LINES)
    lines[item.line] = "```"
    assert reparse(OLD, LINES, lines) is None


def test_edits_that_change_the_line_count_fall_back() -> None:
    assert reparse(OLD, LINES, [*LINES, "- [ ] new"]) is None
    assert reparse(OLD, LINES, list(LINES)) is OLD


@pytest.mark.parametrize(
    ("before", "line", "after"),
    [
        ("x\n# H\n- [ ] a\n---\n", 0, "---"),  # line 0 opens front matter up to line 3
        ("---\n# H\n- [ ] a\nz\n", 3, "---"),  # the closer is written
        ("---\n# H\n- [ ] a\nz\n", 3, "..."),
        ("---\nt: 1\n---\n# H\n- [ ] a\n", 2, "- [ ] b"),  # the closer goes
        ("---\nt: 1\n---\n# H\n- [ ] a\n", 0, "x"),  # so does the opener
        ("---\nt: 1\n---\n# H\n- [ ] a\n", 2, "  ---"),  # a closer moved
    ],
)
def test_edits_that_open_or_close_front_matter_give_the_full_parse(
    before: str, line: int, after: str
) -> None:
    old_lines = split_lines(before)
    new_lines = list(old_lines)
    new_lines[line] = after
    result = reparse(parse(before), old_lines, new_lines)
    assert result is None or result == parse("\n".join(new_lines))
    assert reference_parse("\n".join(new_lines)) == parse("\n".join(new_lines))


def test_edits_inside_or_below_front_matter_keep_the_fast_path() -> None:
    text = "---\ntitle: t\n---\n# H\n- [ ] a\n# I\n- [ ] b\n"
    lines = split_lines(text)
    for line, new in ((1, "title: u"), (6, "- [x] b"), (4, "- [ ] a ---")):
        edited = list(lines)
        edited[line] = new
        result = reparse(parse(text), lines, edited)
        assert result is not None, new
        assert result == parse("\n".join(edited))


@pytest.mark.parametrize("seed", range(3))
def test_random_edits_near_front_matter_give_the_full_parse(seed: int) -> None:
    rng = random.Random(seed)
    pieces = ["---", "...", "- [ ] a", "# H", "x", "", "  ---", "t: 1", "-----"]
    for _ in range(400):
        lines = [rng.choice(pieces) for _ in range(rng.randint(2, 9))]
        old = parse("\n".join(lines))
        edited = list(lines)
        edited[rng.randrange(len(lines))] = rng.choice(pieces)
        result = reparse(old, lines, edited)
        assert result is None or result == parse("\n".join(edited)), (lines, edited)
