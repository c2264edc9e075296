"""The few `todoLs` settings the hook and `todo-ls check` read, validated without pydantic.

They come from the project file (`todo-ls.toml`), the only settings a hook can see; it has no
`stateDir` (the project file may not choose where todo-ls writes: the state folder is the
environment's, `store.default_state_dir`). A bad value gets the same one-line warning as in
the editor, naming the key, and its default is used.
Keys these entry points do not use are left to the language server to validate.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from todo_ls.checklist.model import DEFAULT_STATES, merge_states


class LightSettings(NamedTuple):
    """What `todo-ls hook` and `todo-ls check` need of the `todoLs` settings."""

    markdown_files: tuple[str, ...] = ()
    states: Mapping[str, list[str]] = DEFAULT_STATES  # never changed in place
    enabled: bool = True
    pause_on_interrupt: bool = True
    max_no_progress_nudges: int = 5
    max_nudges_per_episode: int = 20
    # Read by the policy's protocol; a Stop hook has no settle delay or rate limit.
    settle_ms: int = 0
    min_nudge_interval_ms: int = 0
    stall_minutes: float = 5.0


def _warning(key: str, message: str) -> str:
    return f"Invalid setting todoLs.{key}: {message}; using the default."


def load(raw: Mapping[str, Any]) -> tuple[LightSettings, list[str]]:
    """Validate the keys this module knows; returns the settings and one warning per bad key."""
    warnings: list[str] = []
    values: dict[str, Any] = {}

    def take(key: str, value: object, check: Callable[[object], object], name: str) -> None:
        if value is None:
            return
        try:
            values[name] = check(value)
        except ValueError as exc:
            warnings.append(_warning(key, str(exc)))

    take("markdownFiles", raw.get("markdownFiles"), _paths, "markdown_files")
    take("states", raw.get("states"), _states, "states")
    supervisor = raw.get("supervisor")
    if supervisor is not None and not isinstance(supervisor, Mapping):
        warnings.append(_warning("supervisor", "must be a table"))
        supervisor = None
    sup: Mapping[str, Any] = supervisor or {}
    take("supervisor.enabled", sup.get("enabled"), _bool, "enabled")
    take("supervisor.pauseOnInterrupt", sup.get("pauseOnInterrupt"), _bool, "pause_on_interrupt")
    for key, name in (
        ("maxNoProgressNudges", "max_no_progress_nudges"),
        ("maxNudgesPerEpisode", "max_nudges_per_episode"),
    ):
        take(f"supervisor.{key}", sup.get(key), _positive_int, name)
    return LightSettings(**values), warnings


def _paths(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("must be a list of paths or globs (strings)")
    return tuple(value)


def _states(value: object) -> dict[str, list[str]]:
    if not isinstance(value, Mapping) or not all(isinstance(v, list) for v in value.values()):
        raise ValueError("must map state names to lists of marker characters")
    return merge_states(value)


def _bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def _positive_int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError("must be a whole number of at least 1")
    return value
