"""The two readers of the settings give every key the same default and the same verdict.

The language server validates with the pydantic model (`settings.model`); the Stop hook and
`todo-ls check` with the fast reader (`settings.quick`), so that they never load pydantic.
Both take defaults and bounds from `settings.table`; this test fails when a key answers
differently in the two: a default, a bound, a type the model coerces and the hook refuses.
"""

from __future__ import annotations

import math
import random
from typing import Any, get_args

import pytest
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from todo_ls.settings import quick, table
from todo_ls.settings.model import Settings, load_settings
from todo_ls.settings.table import Key

SEED = 21
RANDOM_VALUES_PER_KEY = 300


def _nested(path: tuple[str, ...], value: object) -> dict[str, Any]:
    raw: dict[str, Any] = {path[-1]: value}
    for part in reversed(path[:-1]):
        raw = {part: raw}
    return raw


def _plain(value: object) -> object:
    """Lists and tuples alike, so the two readers' containers compare by content."""
    if isinstance(value, (list, tuple)):
        return tuple(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _model_value(settings: Settings, key: Key[object]) -> object:
    node: Any = settings.model_dump(by_alias=True)
    for part in key.path:
        node = node[part]
    return _plain(node)


def _model_field(key: Key[object]) -> FieldInfo:
    model: type[BaseModel] = Settings
    info: FieldInfo | None = None
    for part in key.path:
        info = next(f for f in model.model_fields.values() if f.alias == part)
        if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel):
            model = info.annotation
    assert info is not None
    return info


def _model_verdict(key: Key[object], value: object) -> tuple[bool, object]:
    loaded = load_settings(_nested(key.path, value))
    assert loaded.unknown_keys == []
    return not loaded.warnings, _model_value(loaded.settings, key)


def _quick_verdict(key: Key[object], value: object) -> tuple[bool, object]:
    checked, warning = quick.read(_nested(key.path, value), key)
    return warning is None, _plain(checked)


def _same_verdict(key: Key[object], value: object) -> None:
    full, full_value = _model_verdict(key, value)
    fast, fast_value = _quick_verdict(key, value)
    assert full == fast, f"todoLs.{key.name} = {value!r}: model {full}, hook reader {fast}"
    if full:
        assert fast_value == full_value, f"todoLs.{key.name} = {value!r}"
    else:  # both fall back to the default
        assert fast_value == _plain(key.default) == full_value


def _boundaries(key: Key[object]) -> list[object]:
    """The values at the edges of `key`'s kind and bounds, and the wrong types next to it."""
    wrong: list[object] = [None, "", "5", "true", 1, 0, 1.0, True, False, [], {}, ["a"]]
    if key.kind in ("int", "number"):
        edge = key.at_least if key.at_least is not None else key.above
        assert edge is not None, key.name  # every number setting has a bound
        near = [edge - 1, edge, edge + 1, edge - 0.5, edge + 0.5, edge + 1e-9, float(edge)]
        return [*wrong, *near, str(edge), 10**30, math.inf, -math.inf, math.nan]
    if key.kind == "choice":
        model_choices = get_args(_model_field(key).annotation)
        choices = [*key.choices, *model_choices]
        return [*wrong, *choices, *(c.upper() for c in choices), f" {key.default}"]
    if key.kind == "url":
        urls = ["http://127.0.0.1:4096", "http://user:secret@127.0.0.1:1", "http://u@h/", "x"]
        return [*wrong, *urls]
    if key.kind == "paths":
        return [*wrong, ["PLAN.md", "docs/**/*.md"], ["a", 1], [None], "PLAN.md", ("a",)]
    if key.kind == "states":
        states = [{"done": ["x"]}, {"done": ["xx"]}, {"nope": ["x"]}, {"done": "x"}]
        clash = {"done": ["x"], "open": ["x"]}
        return [*wrong, *states, clash, {"done": []}, {"done": [1]}, {"blocked": ["!", "?"]}]
    return [*wrong, "x", "TODO_LS_PASSWORD", 5.5, ["x"]]


def _random_value(rng: random.Random, key: Key[object], depth: int = 0) -> object:
    """A JSON or TOML value, biased towards `key`'s own kind and the edges of its bounds."""
    pick = rng.randrange(9 if depth < 2 else 6)
    if pick == 0:
        return rng.choice([None, True, False])
    if pick == 1:
        edge = key.at_least if key.at_least is not None else (key.above or 0)
        return (
            rng.randint(int(edge) - 3, int(edge) + 3)
            if rng.random() < 0.5
            else rng.randint(-(10**6), 10**6)
        )
    if pick == 2:
        return rng.choice([rng.uniform(-2, 2), rng.uniform(-1e6, 1e6), float(rng.randint(-3, 3))])
    if pick == 3:
        return rng.choice([*key.choices, "", "x", "off", "all", "http://h:1", "http://a@h:1"])
    if pick == 4:
        return "".join(rng.choice("xX -!✓[]") for _ in range(rng.randrange(3)))
    if pick == 5:
        return rng.choice([*table.STATES.default, "nope"])
    if pick == 6:
        return [_random_value(rng, key, depth + 1) for _ in range(rng.randrange(3))]
    names = [*table.STATES.default, "nope"]
    return {rng.choice(names): _random_value(rng, key, depth + 1) for _ in range(rng.randrange(3))}


KEY_IDS = [key.name for key in table.KEYS]


@pytest.mark.parametrize("key", table.KEYS, ids=KEY_IDS)
def test_both_readers_give_the_tables_default(key: Key[object]) -> None:
    assert _plain(quick.read({}, key)[0]) == _model_value(Settings(), key) == _plain(key.default)


def test_the_hooks_settings_default_to_the_models() -> None:
    light, warnings = quick.load({})
    supervisor = Settings().supervisor
    assert warnings == []
    assert list(light.markdown_files) == Settings().markdown_files
    assert dict(light.states) == Settings().states
    assert (light.enabled, light.pause_on_interrupt) == (
        supervisor.enabled,
        supervisor.pause_on_interrupt,
    )
    assert (light.max_no_progress_nudges, light.max_nudges_per_episode) == (
        supervisor.max_no_progress_nudges,
        supervisor.max_nudges_per_episode,
    )
    assert light.stall_minutes == supervisor.stall_minutes


@pytest.mark.parametrize("key", table.KEYS, ids=KEY_IDS)
def test_both_readers_accept_and_refuse_the_same_boundary_values(key: Key[object]) -> None:
    for value in _boundaries(key):
        _same_verdict(key, value)


@pytest.mark.parametrize("key", table.KEYS, ids=KEY_IDS)
def test_both_readers_accept_and_refuse_the_same_random_values(key: Key[object]) -> None:
    rng = random.Random(f"{SEED}:{key.name}")
    verdicts = set()
    for _ in range(RANDOM_VALUES_PER_KEY):
        value = _random_value(rng, key)
        _same_verdict(key, value)
        verdicts.add(_quick_verdict(key, value)[0])
    assert verdicts == {True, False}, "the random values never reached one side of the bound"


def test_the_table_lists_every_setting_of_the_model() -> None:
    def leaves(model: type[BaseModel], prefix: tuple[str, ...]) -> set[tuple[str, ...]]:
        found: set[tuple[str, ...]] = set()
        for info in model.model_fields.values():
            assert info.alias is not None
            path = (*prefix, info.alias)
            sub = info.annotation
            if isinstance(sub, type) and issubclass(sub, BaseModel):
                found |= leaves(sub, path)
            else:
                found.add(path)
        return found

    assert leaves(Settings, ()) == {key.path for key in table.KEYS}


def test_a_section_that_is_not_a_table_is_refused_by_both() -> None:
    _, warnings = quick.load({"supervisor": 5})
    assert warnings == ["Invalid setting todoLs.supervisor: must be a table; using the default."]
    full = load_settings({"supervisor": 5})
    assert [w.split(":")[0] for w in full.warnings] == ["Invalid setting todoLs.supervisor"]
