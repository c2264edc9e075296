"""The few `todoLs` settings the hook and `todo-ls check` read, validated without pydantic.

They come from the project file (`todo-ls.toml`), the only settings a hook can see; it has no
`stateDir` (the project file may not choose where todo-ls writes: the state folder is the
environment's, `store.default_state_dir`). Defaults and bounds are the table's (`table`), so
each value gets the answer the full model gives it: a bad one gets a one-line warning naming
the key, as in the editor, and its default is used. `read` judges any key of the table;
`load` reads only those these entry points use and leaves the rest to the language server.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple, TypeVar, cast

from todo_ls.checklist.model import merge_states
from todo_ls.settings import table
from todo_ls.settings.table import Key

T = TypeVar("T")


class LightSettings(NamedTuple):
    """What `todo-ls hook` and `todo-ls check` need of the `todoLs` settings."""

    markdown_files: tuple[str, ...] = table.MARKDOWN_FILES.default
    states: Mapping[str, list[str]] = table.STATES.default  # never changed in place
    enabled: bool = table.SUPERVISOR_ENABLED.default
    pause_on_interrupt: bool = table.PAUSE_ON_INTERRUPT.default
    max_no_progress_nudges: int = table.MAX_NO_PROGRESS_NUDGES.default
    max_nudges_per_episode: int = table.MAX_NUDGES_PER_EPISODE.default
    # Read by the policy's protocol; a Stop hook has no settle delay or rate limit.
    settle_ms: int = 0
    min_nudge_interval_ms: int = 0
    stall_minutes: float = table.STALL_MINUTES.default


def _warning(key: str, message: str) -> str:
    return f"Invalid setting todoLs.{key}: {message}; using the default."


def check(key: Key[T], value: object) -> T:
    """`value` as the setting `key` holds it; `ValueError` says in a few words what is wrong."""
    if value is None and key.nullable:  # None is a nullable key's "not set"
        return cast(T, value)
    if key.kind == "paths":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError("must be a list of paths or globs (strings)")
        return cast(T, tuple(value))
    if key.kind == "states":
        return cast(T, _states(value))
    if key.kind in ("int", "number"):
        return cast(T, _number(key, value))
    if key.kind == "choice":
        if value not in key.choices:
            raise ValueError("must be one of " + ", ".join(key.choices))
    elif key.kind == "bool":
        if not isinstance(value, bool):
            raise ValueError("must be true or false")
    elif not isinstance(value, str):  # str, url
        raise ValueError("must be a string")
    elif key.kind == "url" and table.url_has_credentials(value):
        raise ValueError(table.CREDENTIALS_IN_URL)
    return cast(T, value)


def _number(key: Key[object], value: object) -> int | float:
    whole = key.kind == "int"
    rule = "a whole number" if whole else "a number"
    if key.at_least is not None:
        rule += f" of at least {key.at_least}"
    if key.above is not None:
        rule += f" above {key.above:g}"
    if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)):
        raise ValueError(f"must be {rule}")
    # `not >=` and `not >` also refuse NaN, as the full model does.
    if key.at_least is not None and not value >= key.at_least:
        raise ValueError(f"must be {rule}")
    if key.above is not None and not value > key.above:
        raise ValueError(f"must be {rule}")
    return value if whole else float(value)


def _states(value: object) -> dict[str, list[str]]:
    if (
        not isinstance(value, Mapping)
        or not all(isinstance(k, str) for k in value)
        or not all(isinstance(v, list) for v in value.values())
    ):
        raise ValueError("must map state names to lists of marker characters")
    return merge_states(value)


def read(raw: Mapping[str, Any], key: Key[T]) -> tuple[T, str | None]:
    """The value of `key` in `raw` (its default when absent) and, for a bad value, the
    default and the warning naming the key. A section that is not a table is `load`'s to
    report."""
    node: object = raw
    for part in key.path:
        if not isinstance(node, Mapping) or part not in node:
            return key.default, None
        node = node[part]
    try:
        return check(key, node), None
    except ValueError as exc:
        return key.default, _warning(key.name, str(exc))


# The keys `load` reads, by the `LightSettings` field each one fills.
_READ: tuple[tuple[str, Key[object]], ...] = (
    ("markdown_files", table.MARKDOWN_FILES),
    ("states", table.STATES),
    ("enabled", table.SUPERVISOR_ENABLED),
    ("pause_on_interrupt", table.PAUSE_ON_INTERRUPT),
    ("max_no_progress_nudges", table.MAX_NO_PROGRESS_NUDGES),
    ("max_nudges_per_episode", table.MAX_NUDGES_PER_EPISODE),
)


def load(raw: Mapping[str, Any]) -> tuple[LightSettings, list[str]]:
    """Validate the keys this module reads; returns the settings and one warning per bad key."""
    warnings: list[str] = []
    values: dict[str, Any] = {}
    sections: set[str] = set()
    for name, key in _READ:
        section = key.path[0]
        if len(key.path) > 1 and section not in sections:
            sections.add(section)
            if section in raw and not isinstance(raw[section], Mapping):
                warnings.append(_warning(section, "must be a table"))
        values[name], warning = read(raw, key)
        if warning is not None:
            warnings.append(warning)
    return LightSettings(**values), warnings
