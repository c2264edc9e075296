"""Every `todoLs` setting once: its key, its kind of value, its default and its bounds.

Both readers take their defaults and bounds from here: the full pydantic model (`model`, for
the language server and `todo-ls supervise`) and the fast reader (`quick`, for the Stop hook
and `todo-ls check`, which must not load pydantic). tests/unit/test_settings_agree.py fails
when the two answer differently for a key. Plain data with no pydantic: the hook imports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Generic, Literal, TypeVar
from urllib.parse import urlsplit

from todo_ls.checklist.model import DEFAULT_STATES

T_co = TypeVar("T_co", covariant=True)
# What a value must be: `paths` a list of strings, `states` the marker table, `url` a string
# without credentials, `choice` one of `choices`, `number` an int or a float.
Kind = Literal["bool", "int", "number", "str", "url", "choice", "paths", "states"]

# A password in the URL would show wherever the URL does (the status, the log, errors).
CREDENTIALS_IN_URL = (
    "must not hold a user name or password (they would show wherever the URL does); "
    "put the password in the environment variable supervisor.passwordEnv names"
)


def url_has_credentials(url: str) -> bool:
    """`url` carries `user:password@` (or just `user@`) before its host."""
    return "@" in urlsplit(url).netloc


class Key(Generic[T_co]):
    """One setting: where it is (camelCase, as a user writes it), what it holds, its default.

    A plain class, not a dataclass: the hook imports this module, and `dataclasses` (with
    `inspect`) would cost it more than the rest of its settings."""

    __slots__ = ("above", "at_least", "choices", "default", "kind", "nullable", "path")

    def __init__(
        self,
        path: tuple[str, ...],
        kind: Kind,
        default: T_co,
        *,
        nullable: bool = False,  # null (JSON) is a value: "not set", when the default is None
        at_least: int | None = None,  # value >= at_least
        above: float | None = None,  # value > above
        choices: tuple[str, ...] = (),
    ) -> None:
        self.path = path
        self.kind = kind
        self.default = default
        self.nullable = nullable
        self.at_least = at_least
        self.above = above
        self.choices = choices

    def __repr__(self) -> str:
        return f"Key({self.name!r})"

    @property
    def name(self) -> str:
        """The dotted key under `todoLs`, as warnings name it."""
        return ".".join(self.path)


SEVERITIES = ("error", "warning", "information", "hint", "off")
# The HTTP-watched hosts (hook hosts need no setting); `kilo` serves the 1.x API.
HOST_KINDS = ("auto", "opencode-v1", "opencode-v2", "kilo")
SCOPES = ("project", "all")

MARKDOWN_FILES: Key[tuple[str, ...]] = Key(("markdownFiles",), "paths", ())
STATES: Key[Mapping[str, list[str]]] = Key(("states",), "states", DEFAULT_STATES)
DIAGNOSTICS_SEVERITY = Key(("diagnostics", "severity"), "choice", "information", choices=SEVERITIES)
# Diagnostics one document gets at most (plus one note saying how many were left out): a
# document of 250,000 open items would otherwise flood the client on every keystroke.
DIAGNOSTICS_MAX_PER_DOCUMENT = Key(("diagnostics", "maxPerDocument"), "int", 1000, at_least=1)
INLAY_HINTS_ENABLED = Key(("inlayHints", "enabled"), "bool", True)
CODE_LENS_ENABLED = Key(("codeLens", "enabled"), "bool", True)
SUPERVISOR_ENABLED = Key(("supervisor", "enabled"), "bool", True)
SUPERVISOR_HOST = Key(("supervisor", "host"), "choice", "auto", choices=HOST_KINDS)
SUPERVISOR_URL: Key[str | None] = Key(("supervisor", "url"), "url", None, nullable=True)
PASSWORD_ENV: Key[str | None] = Key(("supervisor", "passwordEnv"), "str", None, nullable=True)
SCOPE = Key(("supervisor", "scope"), "choice", "project", choices=SCOPES)
SETTLE_MS = Key(("supervisor", "settleMs"), "int", 5000, at_least=0)
MIN_NUDGE_INTERVAL_MS = Key(("supervisor", "minNudgeIntervalMs"), "int", 45000, at_least=0)
STALL_MINUTES = Key(("supervisor", "stallMinutes"), "number", 5.0, above=0)
MAX_NO_PROGRESS_NUDGES = Key(("supervisor", "maxNoProgressNudges"), "int", 5, at_least=1)
MAX_NUDGES_PER_EPISODE = Key(("supervisor", "maxNudgesPerEpisode"), "int", 20, at_least=1)
PAUSE_ON_INTERRUPT = Key(("supervisor", "pauseOnInterrupt"), "bool", True)
TOASTS = Key(("supervisor", "toasts"), "bool", True)
STATE_DIR: Key[str | None] = Key(("stateDir",), "str", None, nullable=True)

KEYS: tuple[Key[object], ...] = (
    MARKDOWN_FILES,
    STATES,
    DIAGNOSTICS_SEVERITY,
    DIAGNOSTICS_MAX_PER_DOCUMENT,
    INLAY_HINTS_ENABLED,
    CODE_LENS_ENABLED,
    SUPERVISOR_ENABLED,
    SUPERVISOR_HOST,
    SUPERVISOR_URL,
    PASSWORD_ENV,
    SCOPE,
    SETTLE_MS,
    MIN_NUDGE_INTERVAL_MS,
    STALL_MINUTES,
    MAX_NO_PROGRESS_NUDGES,
    MAX_NUDGES_PER_EPISODE,
    PAUSE_ON_INTERRUPT,
    TOASTS,
    STATE_DIR,
)
