"""The checklist model: what a parsed markdown document holds.

Lines are 0-based; columns are indices into the Python `str` of that line (code points),
so the language server converts them to the client's position encoding at the edge.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

STATES: tuple[str, ...] = ("open", "inProgress", "blocked", "done", "canceled")
OPEN_STATES: frozenset[str] = frozenset({"open", "inProgress", "blocked"})
CLOSED_STATES: frozenset[str] = frozenset({"done", "canceled"})
# The default marker characters of each state (the `states` setting's default).
DEFAULT_STATES: dict[str, list[str]] = {
    "open": [" "],
    "inProgress": ["/"],
    "blocked": ["?"],
    "done": ["x", "X"],
    "canceled": ["~", "-"],
}


def merge_states(value: Mapping[str, Iterable[str]]) -> dict[str, list[str]]:
    """The `states` setting merged over the defaults; `ValueError` says what is wrong (an
    unknown state, a state without markers, a marker that is not one character or is used by
    two states)."""
    unknown = set(value) - set(DEFAULT_STATES)
    if unknown:
        raise ValueError(f"unknown state(s) {sorted(unknown)}; known: {list(DEFAULT_STATES)}")
    merged = {**DEFAULT_STATES, **{state: list(markers) for state, markers in value.items()}}
    seen: dict[str, str] = {}
    for state, markers in merged.items():
        if not markers:
            raise ValueError(f"state {state!r} needs at least one marker")
        for marker in markers:
            if not isinstance(marker, str) or len(marker) != 1 or marker in "[]\n\r":
                raise ValueError(f"marker {marker!r} of {state!r} must be one character")
            if marker in seen and seen[marker] != state:
                raise ValueError(f"marker {marker!r} is used by {seen[marker]!r} and {state!r}")
            seen[marker] = state
    return merged


@dataclass(frozen=True)
class StateRegistry:
    """Which marker character means which state (the `states` setting)."""

    markers: Mapping[str, tuple[str, ...]]  # state -> markers, the first one is canonical
    _by_marker: Mapping[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_marker = {m: state for state, ms in self.markers.items() for m in ms}
        object.__setattr__(self, "_by_marker", by_marker)

    @classmethod
    def from_settings(cls, states: Mapping[str, Iterable[str]]) -> StateRegistry:
        """Build from the validated `states` setting (state name -> marker list)."""
        return cls({state: tuple(markers) for state, markers in states.items()})

    @classmethod
    def default(cls) -> StateRegistry:
        """The default registry of DESIGN.md."""
        return cls.from_settings(DEFAULT_STATES)

    def state_of(self, marker: str) -> str | None:
        """The state a marker means, or None for an unregistered marker (not an item)."""
        return self._by_marker.get(marker)

    def marker_for(self, state: str) -> str:
        """The canonical marker written for `state`."""
        return self.markers[state][0]

    @staticmethod
    def is_open(state: str) -> bool:
        """open, inProgress and blocked count as open."""
        return state in OPEN_STATES


@dataclass(frozen=True, slots=True)
class TaskItem:
    """One GFM task item (`- [ ] text`)."""

    index: int  # position in Checklist.items (document order)
    line: int  # 0-based line of the `[c]`
    bullet_col: int  # column of the list marker (`-`, `*`, `+`, `1.`, `1)`)
    marker_col: int  # column of the character between the brackets
    marker: str
    state: str
    text: str  # the item's first-line text after `[c] `, stripped
    depth: int  # number of enclosing task items
    parent: int | None  # index of the nearest enclosing task item
    heading: int | None  # index into Checklist.headings of the owning heading
    end_line: int  # last line (inclusive) of the item including its nested content

    @property
    def is_open(self) -> bool:
        return self.state in OPEN_STATES


@dataclass(frozen=True)
class PlainListItem:
    """A list item that is not a task: the target of "Convert to task"."""

    line: int
    content_col: int  # where `[ ] ` would be inserted


@dataclass(frozen=True)
class Heading:
    """An ATX or setext heading; it owns the items up to the next heading of level <= its own."""

    index: int
    line: int  # for a setext heading, the line of its text
    level: int
    text: str
    end_line: int  # last line (inclusive) of the section


@dataclass(frozen=True)
class Progress:
    """Counts of items per state plus the open / closed roll-up."""

    by_state: Mapping[str, int]

    @property
    def open(self) -> int:
        return sum(n for s, n in self.by_state.items() if s in OPEN_STATES)

    @property
    def done(self) -> int:
        return self.by_state.get("done", 0)

    @property
    def canceled(self) -> int:
        return self.by_state.get("canceled", 0)

    @property
    def total(self) -> int:
        return sum(self.by_state.values())

    @classmethod
    def of(cls, items: Iterable[TaskItem]) -> Progress:
        counts: dict[str, int] = {}
        for item in items:
            counts[item.state] = counts.get(item.state, 0) + 1
        return cls(counts)


@dataclass(frozen=True)
class Checklist:
    """Everything the engine found in one document."""

    items: tuple[TaskItem, ...]
    headings: tuple[Heading, ...]
    plain_items: tuple[PlainListItem, ...]


@dataclass(frozen=True)
class FileItem:
    """An item of a subscribed file as the supervisor and `todo-ls check` report it."""

    path: str  # relative to the workspace folder, `/` separators
    line: int  # 1-based
    text: str
    state: str

    @property
    def ref(self) -> str:
        return f"{self.path}:{self.line}"
