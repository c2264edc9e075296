"""Settings (section `todoLs`), validated by pydantic.

Each key's default and bounds come from the one table (`table`), shared with the hook's fast
reader (`quick`); values are checked strictly (no `"yes"` for true, no `"5"` for 5), as that
reader checks them. A bad value never stops the server: `load_settings` drops each invalid
key, uses its default and returns one warning per key, naming it. Unknown keys are reported
separately so the caller can log them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from todo_ls.checklist.model import merge_states
from todo_ls.settings import table
from todo_ls.settings.table import CREDENTIALS_IN_URL, url_has_credentials

# The choices of `table.SEVERITIES` and `table.HOST_KINDS`, spelled out for the type checker.
Severity = Literal["error", "warning", "information", "hint", "off"]
HostKind = Literal["auto", "opencode-v1", "opencode-v2", "kilo"]


def _field(key: table.Key[Any]) -> Any:
    """The pydantic field of `key`: its default and bounds from the table, strict types."""
    default = key.default
    if isinstance(default, (tuple, Mapping)):  # a fresh list or dict for each instance
        factory: Callable[[], object] = (
            (lambda: list(default)) if isinstance(default, tuple) else (lambda: dict(default))
        )
        return Field(default_factory=factory, strict=True)
    # A `Literal` takes no `strict`; it compares the value exactly anyway.
    strict = None if key.kind == "choice" else True
    return Field(default=default, ge=key.at_least, gt=key.above, strict=strict)


class _Model(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True
    )


class DiagnosticsSettings(_Model):
    severity: Severity = _field(table.DIAGNOSTICS_SEVERITY)
    max_per_document: int = _field(table.DIAGNOSTICS_MAX_PER_DOCUMENT)


class InlayHintsSettings(_Model):
    enabled: bool = _field(table.INLAY_HINTS_ENABLED)


class CodeLensSettings(_Model):
    enabled: bool = _field(table.CODE_LENS_ENABLED)


class SupervisorSettings(_Model):
    enabled: bool = _field(table.SUPERVISOR_ENABLED)
    host: HostKind = _field(table.SUPERVISOR_HOST)
    url: str | None = _field(table.SUPERVISOR_URL)
    password_env: str | None = _field(table.PASSWORD_ENV)
    scope: Literal["project", "all"] = _field(table.SCOPE)
    settle_ms: int = _field(table.SETTLE_MS)
    min_nudge_interval_ms: int = _field(table.MIN_NUDGE_INTERVAL_MS)
    stall_minutes: float = _field(table.STALL_MINUTES)
    max_no_progress_nudges: int = _field(table.MAX_NO_PROGRESS_NUDGES)
    max_nudges_per_episode: int = _field(table.MAX_NUDGES_PER_EPISODE)
    pause_on_interrupt: bool = _field(table.PAUSE_ON_INTERRUPT)
    toasts: bool = _field(table.TOASTS)

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        if value is not None and url_has_credentials(value):
            raise ValueError(CREDENTIALS_IN_URL)
        return value


class Settings(_Model):
    """Every `todoLs.*` setting with its default (docs/settings.md)."""

    markdown_files: list[str] = _field(table.MARKDOWN_FILES)
    states: dict[str, list[str]] = _field(table.STATES)
    diagnostics: DiagnosticsSettings = Field(default_factory=DiagnosticsSettings)
    inlay_hints: InlayHintsSettings = Field(default_factory=InlayHintsSettings)
    code_lens: CodeLensSettings = Field(default_factory=CodeLensSettings)
    supervisor: SupervisorSettings = Field(default_factory=SupervisorSettings)
    state_dir: str | None = _field(table.STATE_DIR)

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
