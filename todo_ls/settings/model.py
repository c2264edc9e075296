"""Settings (section `todoLs`), validated by pydantic.

A bad value never stops the server: `load_settings` drops each invalid key, uses its default
and returns one warning per key, naming it. Unknown keys are reported separately so the caller
can log them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from todo_ls.checklist.model import DEFAULT_STATES, merge_states

Severity = Literal["error", "warning", "information", "hint", "off"]
# A password in the URL would show wherever the URL does (the status, the log, errors).
CREDENTIALS_IN_URL = (
    "must not hold a user name or password (they would show wherever the URL does); "
    "put the password in the environment variable supervisor.passwordEnv names"
)


def url_has_credentials(url: str) -> bool:
    """`url` carries `user:password@` (or just `user@`) before its host."""
    return "@" in urlsplit(url).netloc


# The HTTP-watched hosts (hook hosts need no setting); `kilo` serves the 1.x API.
HostKind = Literal["auto", "opencode-v1", "opencode-v2", "kilo"]


class _Model(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True
    )


class DiagnosticsSettings(_Model):
    severity: Severity = "information"


class ToggleSettings(_Model):
    enabled: bool = True


class SupervisorSettings(_Model):
    enabled: bool = True
    host: HostKind = "auto"
    url: str | None = None
    password_env: str | None = None
    scope: Literal["project", "all"] = "project"
    settle_ms: int = Field(default=5000, ge=0)
    min_nudge_interval_ms: int = Field(default=45000, ge=0)
    stall_minutes: float = Field(default=5, gt=0)
    max_no_progress_nudges: int = Field(default=5, ge=1)
    max_nudges_per_episode: int = Field(default=20, ge=1)
    pause_on_interrupt: bool = True
    toasts: bool = True

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        if value is not None and url_has_credentials(value):
            raise ValueError(CREDENTIALS_IN_URL)
        return value


class Settings(_Model):
    """Every `todoLs.*` setting with its default (docs/settings.md)."""

    markdown_files: list[str] = Field(default_factory=list)
    states: dict[str, list[str]] = Field(default_factory=lambda: dict(DEFAULT_STATES))
    diagnostics: DiagnosticsSettings = Field(default_factory=DiagnosticsSettings)
    inlay_hints: ToggleSettings = Field(default_factory=ToggleSettings)
    code_lens: ToggleSettings = Field(default_factory=ToggleSettings)
    supervisor: SupervisorSettings = Field(default_factory=SupervisorSettings)
    state_dir: str | None = None

    @field_validator("states")
    @classmethod
    def _check_states(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        return merge_states(value)


@dataclass(frozen=True)
class LoadedSettings:
    """The validated settings plus what was wrong with the input."""

    settings: Settings
    warnings: list[str] = field(default_factory=list)  # one per invalid key, for the user
    unknown_keys: list[str] = field(default_factory=list)  # for the log only


def _sub_model(model: type[BaseModel], key: str) -> type[BaseModel] | None:
    """The nested settings model behind `key` (by name or alias), if it is one."""
    info = next((f for n, f in model.model_fields.items() if key in (n, f.alias)), None)
    annotation: object = info.annotation if info else None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _dotted(loc: tuple[int | str, ...]) -> tuple[str, ...]:
    # pydantic reports nested dict/list positions too; the setting is the first alias path.
    parts: list[str] = []
    node: type[BaseModel] | None = Settings
    for item in loc:
        if node is None or not isinstance(item, str):
            break
        parts.append(item)
        node = _sub_model(node, item)
    return tuple(parts)


def _drop(raw: dict[str, Any], path: tuple[str, ...]) -> None:
    node: Any = raw
    for key in path[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
    if isinstance(node, dict):
        node.pop(path[-1], None)


def _unknown(raw: Mapping[str, Any], model: type[BaseModel], prefix: str = "") -> list[str]:
    names = {f.alias or n for n, f in model.model_fields.items()} | set(model.model_fields)
    found = []
    for key, value in raw.items():
        if key not in names:
            found.append(prefix + key)
            continue
        sub = _sub_model(model, key)
        if isinstance(value, Mapping) and sub is not None:
            found += _unknown(value, sub, f"{prefix}{key}.")
    return found


def _deep_copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _deep_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_deep_copy(v) for v in value]
    return value


def load_settings(
    raw: object, origin: Callable[[tuple[str, ...]], str | None] | None = None
) -> LoadedSettings:
    """Validate a raw `todoLs` settings object; invalid keys fall back to their defaults.

    `origin` names where the value at a key path came from (a file), when that is not the
    editor: the warning then says so."""
    if raw is None:
        return LoadedSettings(Settings())
    if not isinstance(raw, Mapping):
        return LoadedSettings(
            Settings(), [f"todoLs settings must be an object, got {type(raw).__name__}"]
        )
    data: dict[str, Any] = _deep_copy(raw)
    warnings: list[str] = []
    for _ in range(64):  # each round removes at least one bad key
        try:
            settings = Settings.model_validate(data)
            return LoadedSettings(settings, warnings, _unknown(raw, Settings))
        except ValidationError as exc:
            for error in exc.errors():
                path = _dotted(error["loc"]) or ("",)
                key = "todoLs." + ".".join(path)
                source = origin(path) if origin is not None else None
                where = f" in {source}" if source else ""
                warnings.append(f"Invalid setting {key}{where}: {error['msg']}; using the default.")
                _drop(data, path)
    return LoadedSettings(Settings(), [*warnings, "todoLs settings invalid; using defaults."])
