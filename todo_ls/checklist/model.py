"""The checklist model: what a parsed markdown document holds.

Lines are 0-based; columns are indices into the Python `str` of that line (code points),
so the language server converts them to the client's position encoding at the edge.

The value classes are named tuples, and the two that cannot be (the registry, which derives a
look-up table; the task item, which the scanner builds by switching a slotted object's class)
are small slotted classes: every `todo-ls hook` run loads this module, and `dataclasses` (with
the `inspect` it imports) plus making a dataclass took a tenth of the hook's start-up
(docs/performance.md, "The Stop hook's start-up"). They keep what the dataclasses had: fields,
immutability, equality and hashing by value, a `Class(field=...)` repr; `_replace` makes a
changed copy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from operator import attrgetter
from typing import Any, NamedTuple

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


def _refuse_assignment(self: object, name: str, value: object) -> None:
    """`__setattr__` of the immutable slotted classes (their `__init__` uses object's)."""
    raise AttributeError(f"cannot assign to field {name!r} of an immutable {type(self).__name__}")


def _refuse_deletion(self: object, name: str) -> None:
    """`__delattr__` of the immutable slotted classes."""
    raise AttributeError(f"cannot delete field {name!r} of an immutable {type(self).__name__}")


class StateRegistry:
    """Which marker character means which state (the `states` setting)."""

    __slots__ = ("_by_marker", "markers")
    markers: Mapping[str, tuple[str, ...]]  # state -> markers, the first one is canonical
    _by_marker: Mapping[str, str]

    def __init__(self, markers: Mapping[str, tuple[str, ...]]) -> None:
        by_marker = {m: state for state, ms in markers.items() for m in ms}
        object.__setattr__(self, "markers", markers)
        object.__setattr__(self, "_by_marker", by_marker)

    __setattr__ = _refuse_assignment
    __delattr__ = _refuse_deletion

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StateRegistry) or other.__class__ is not self.__class__:
            return NotImplemented
        return self.markers == other.markers

    def __hash__(self) -> int:
        return hash((self.markers,))

    def __repr__(self) -> str:
        return f"StateRegistry(markers={self.markers!r})"

    def __reduce__(self) -> tuple[type[StateRegistry], tuple[Mapping[str, tuple[str, ...]]]]:
        return StateRegistry, (self.markers,)  # copy and pickle: __setattr__ refuses

    @classmethod
    def from_settings(cls, states: Mapping[str, Iterable[str]]) -> StateRegistry:
        """Build from the validated `states` setting (state name -> marker list)."""
        return cls({state: tuple(markers) for state, markers in states.items()})

    @classmethod
    def default(cls) -> StateRegistry:
        """The default markers of each state (docs/checklists.md, "States")."""
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


_TASK_FIELDS = (
    "index",
    "line",
    "bullet_col",
    "marker_col",
    "marker",
    "state",
    "text",
    "depth",
    "parent",
    "heading",
    "end_line",
)
_task_values = attrgetter(*_TASK_FIELDS)


class TaskItem:
    """One GFM task item (`- [ ] text`).

    Not a named tuple: the scanner fills an object with the same slots and then switches its
    class to this one (`assemble.OpenTask`), the cheapest way it found to make items."""

    __slots__ = _TASK_FIELDS
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

    def __init__(
        self,
        index: int,
        line: int,
        bullet_col: int,
        marker_col: int,
        marker: str,
        state: str,
        text: str,
        depth: int,
        parent: int | None,
        heading: int | None,
        end_line: int,
    ) -> None:
        set_field = object.__setattr__
        set_field(self, "index", index)
        set_field(self, "line", line)
        set_field(self, "bullet_col", bullet_col)
        set_field(self, "marker_col", marker_col)
        set_field(self, "marker", marker)
        set_field(self, "state", state)
        set_field(self, "text", text)
        set_field(self, "depth", depth)
        set_field(self, "parent", parent)
        set_field(self, "heading", heading)
        set_field(self, "end_line", end_line)

    __setattr__ = _refuse_assignment
    __delattr__ = _refuse_deletion

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TaskItem) or other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_task_values(self) == _task_values(other))

    def __hash__(self) -> int:
        return hash(_task_values(self))

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{n}={v!r}" for n, v in zip(_TASK_FIELDS, _task_values(self), strict=True)
        )
        return f"TaskItem({fields})"

    def __reduce__(self) -> tuple[type[TaskItem], tuple[Any, ...]]:
        return TaskItem, _task_values(self)  # copy and pickle: __setattr__ refuses

    def _replace(self, **changes: Any) -> TaskItem:
        """A copy with `changes` (field name -> value), like a named tuple's `_replace`."""
        return TaskItem(**{**dict(zip(_TASK_FIELDS, _task_values(self), strict=True)), **changes})

    @property
    def is_open(self) -> bool:
        return self.state in OPEN_STATES


class PlainListItem(NamedTuple):
    """A list item that is not a task: the target of "Convert to task"."""

    line: int
    content_col: int  # where `[ ] ` would be inserted


class Heading(NamedTuple):
    """An ATX or setext heading; it owns the items up to the next heading of level <= its own."""

    # mypy: the field hides tuple.index (a method); a heading is never searched as a tuple.
    index: int  # type: ignore[assignment]
    line: int  # for a setext heading, the line of its text
    level: int
    text: str
    end_line: int  # last line (inclusive) of the section


class Progress(NamedTuple):
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


class Checklist(NamedTuple):
    """Everything the engine found in one document."""

    items: tuple[TaskItem, ...]
    headings: tuple[Heading, ...]
    plain_items: tuple[PlainListItem, ...]


class FileItem(NamedTuple):
    """An item of a subscribed file as the supervisor and `todo-ls check` report it."""

    path: str  # relative to the workspace folder, `/` separators
    line: int  # 1-based
    text: str
    state: str

    @property
    def ref(self) -> str:
        return f"{self.path}:{self.line}"
