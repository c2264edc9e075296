"""Fuzzy search over the open items of a checklist, for `workspace/symbol`.

A query matches an item when every character of the query appears in the item's text in the
same order, ignoring case (`wrp` matches "write the parser"). A workspace holds about a hundred
thousand items and an editor asks again at every keystroke, so each file's open items are kept
as one lower-cased text, one item per line, searched by one regular expression in C rather than
item by item in Python.

Ranking (`match_rank`): a match where the query is the start of the name beats one where it
starts a word of it, which beats the query anywhere as one run, which beats letters scattered
in order (docs/performance.md "`workspace/symbol` ranked").
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Iterator

from todo_ls.checklist.inline_text import plain_texts
from todo_ls.checklist.model import OPEN_STATES, Checklist, TaskItem


def fuzzy_pattern(query: str, backward: bool = False) -> re.Pattern[str] | None:
    """The pattern that finds `query`'s characters in order within one line of lower-cased
    text (`backward`: in a line read backward, `OpenItems.backward`); None for an empty
    query (everything matches)."""
    chars = [c for c in query.lower() if not c.isspace()]
    if not chars:
        return None
    if backward:
        chars.reverse()
    # After the first character (which the regex engine finds by a fast scan), each gap skips
    # what is not the next character nor a line end: the leftmost match of each character,
    # found without backtracking within a line.
    first, rest = re.escape(chars[0]), chars[1:]
    return re.compile(first + "".join(f"[^{re.escape(c)}\n]*{re.escape(c)}" for c in rest))


def scans_backward(query: str) -> bool:
    """Whether `query`'s characters are found faster in lines read backward: when its last
    character is rarer than its first. The regex engine tries a match at each occurrence of
    the pattern's first character, reading the rest of the line each time: "srv" tries at
    each `s`, read backward at each `v`, a sixth as many (docs/performance.md,
    "`workspace/symbol`: searching from a rare character")."""
    chars = [c for c in query.lower() if not c.isspace()]
    return bool(chars) and _rarity(chars[-1]) > _rarity(chars[0])


def fuzzy_match(query: str, text: str) -> bool:
    """Whether every character of `query` (spaces ignored) appears in `text` in order,
    ignoring case."""
    pattern = fuzzy_pattern(query)
    return pattern is None or pattern.search(text.lower().replace("\n", " ")) is not None


PREFIX, WORD, SUBSTRING, SCATTERED = range(4)


def substring_needle(query: str) -> str:
    """What a contiguous match of `query` looks for: its lower-cased text, spaces at its ends
    dropped (those inside kept: "fix parse" is one run)."""
    return query.lower().strip()


# Characters by how often they occur in English prose, most often first; from `_RARE` on
# (and any character not listed) they are rare enough to scan for (`rare_run`).
_BY_FREQUENCY = " etaoinshrdlcumwfgypbvkjxqz"
_RARE = _BY_FREQUENCY.index("b")


def _rarity(c: str) -> int:
    found = _BY_FREQUENCY.find(c)
    return len(_BY_FREQUENCY) if found < 0 else found


def rare_run(needle: str) -> tuple[str, int] | None:
    """A regular expression whose matches are where `needle` occurs, found by a scan for its
    rarest character, and that character's offset in `needle` (a match starts that far past
    where `needle` starts); None when every character of it is common. The regex engine's
    scan for one rare character passes the text faster than `str.find` passes it for a run
    of common letters; for a common character it stops too often to (docs/performance.md,
    "`workspace/symbol`: searching from a rare character")."""
    at = max(range(len(needle)), key=lambda i: _rarity(needle[i]))
    if _rarity(needle[at]) < _RARE:
        return None
    before, rare, after = needle[:at], needle[at], needle[at + 1 :]
    behind = f"(?<={re.escape(before + rare)})" if before else ""
    return re.escape(rare) + behind + re.escape(after), at


def match_rank(needle: str, name: str) -> int:
    """How well `name` (lower-cased) holds `needle` (`substring_needle`): `PREFIX`, `WORD`
    (a word of it starts with the needle), `SUBSTRING`, else `SCATTERED` (the caller knows it
    matches fuzzily)."""
    at = name.find(needle) if needle else -1
    if at < 0:
        return SCATTERED
    if at == 0:
        return PREFIX
    while at > 0:
        if not name[at - 1].isalnum():
            return WORD
        at = name.find(needle, at + 1)
    return SUBSTRING


def open_task_items(checklist: Checklist) -> list[TaskItem]:
    """The open items of `checklist`, in document order (what `OpenItems` indexes)."""
    return [i for i in checklist.items if i.state in OPEN_STATES]


class OpenItems:
    """The open items of one parsed document, searchable by `fuzzy_pattern` on their names as
    the outline shows them (checklist.inline_text: "fix `parse()`" is found by "fix parse")."""

    def __init__(self, checklist: Checklist) -> None:
        # Not the items themselves: a workspace keeps this of files whose parse it dropped
        # (`open_task_items` of a parse of the same text gives them back, in this order).
        items = open_task_items(checklist)
        self.count = len(items)
        texts = plain_texts([i.text for i in items])
        self._text = "\n".join(texts).lower()
        self._backward: str | None = None
        # An array, not a list of ints: a workspace keeps one per file.
        self._starts = array("l")
        at = 0
        for text in texts:
            self._starts.append(at)
            at += len(text) + 1

    @property
    def text(self) -> str:
        """The searched text: each open item's lower-cased name, one a line."""
        return self._text

    @property
    def backward(self) -> str:
        """`text` with each line read backward (each as long as it was), for a query that
        `scans_backward`; made at the first such query."""
        if self._backward is None:
            self._backward = "\n".join(line[::-1] for line in self._text.split("\n"))
        return self._backward

    @property
    def starts(self) -> array[int]:
        """Where each open item's name starts in `text`."""
        return self._starts

    def runs(self, needle: str) -> Iterator[tuple[int, int, int]]:
        """(index, `match_rank`, length) of each open item whose searched text holds
        `needle` (non-empty) as one run, in document order (`str.find`: in C)."""
        text, starts, at, size, last = self._text, self._starts, 0, len(needle), len(self._starts)
        find = text.find
        while True:
            found = find(needle, at)
            if found < 0:
                return
            n = bisect_right(starts, found) - 1
            start = starts[n]
            end = starts[n + 1] - 1 if n + 1 < last else len(text)
            if found + size <= end:  # not across a line end
                if found == start:
                    rank = PREFIX
                elif not text[found - 1].isalnum():
                    rank = WORD
                else:  # a later run may start a word
                    rank = match_rank(needle, text[start:end])
                yield n, rank, end - start
            at = end + 1

    def scattered(self, pattern: re.Pattern[str], needle: str) -> Iterator[tuple[int, int]]:
        """(index, length) of each open item that `pattern` matches but does not hold
        `needle` as one run (those `runs` gives), in document order."""
        text, starts, at, last = self._text, self._starts, 0, len(self._starts)
        search = pattern.search
        while True:
            found = search(text, at)
            if found is None:
                return
            n = bisect_right(starts, found.start()) - 1
            start = starts[n]
            end = starts[n + 1] - 1 if n + 1 < last else len(text)
            if needle not in text[start:end]:
                yield n, end - start
            at = end + 1

    def matches(self, pattern: re.Pattern[str] | None) -> Iterator[int]:
        """The indices (in `items`) of the open items that match, in document order (all of
        them for None)."""
        if pattern is None:
            yield from range(self.count)
            return
        text, starts, at = self._text, self._starts, 0
        while True:
            found = pattern.search(text, at)
            if found is None:
                return
            n = bisect_right(starts, found.start()) - 1
            yield n
            at = starts[n + 1] if n + 1 < len(starts) else len(text) + 1
