"""What the real server sends, checked against what todo_ls/payloads.py declares.

The harness passes every `todoLs/status` a test editor receives and every command answer it
gets through `problems`, so each LSP test (and each test of a real agent or host that drives
the server through the harness) also asserts that the wire is as declared: a key the
declaration does not have, a missing one, a null where none may be, a value of another type.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, Union, get_args, get_origin


def plain(value: Any) -> Any:
    """A value as JSON decoded it: pygls hands a client the params of a notification it has no
    type for as nested named tuples."""
    if hasattr(value, "_asdict"):
        return {key: plain(v) for key, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {key: plain(v) for key, v in value.items()}
    return value


def problems(value: Any, declared: Any, where: str = "") -> list[str]:
    """How `value` differs from the type `declared` (a `payloads` TypedDict or a part of
    one); empty when it conforms. Each problem names the path to the value."""
    origin = get_origin(declared)
    if origin in (Union, types.UnionType):
        found = [problems(value, alternative, where) for alternative in get_args(declared)]
        return [] if any(not f for f in found) else [f"{where}: {value!r} is not {declared}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: {value!r} is not a list"]
        (element,) = get_args(declared)
        return [p for i, v in enumerate(value) for p in problems(v, element, f"{where}[{i}]")]
    if origin is Literal:
        allowed = get_args(declared)
        same = any(type(value) is type(a) and value == a for a in allowed)
        return [] if same else [f"{where}: {value!r} is not one of {allowed}"]
    if typing.is_typeddict(declared):
        return _object_problems(value, declared, where)
    if declared is type(None):
        return [] if value is None else [f"{where}: {value!r} is not null"]
    # bool is an int in Python, never on the wire.
    if (type(value) is bool and declared is not bool) or not isinstance(value, declared):
        return [f"{where}: {value!r} is not a {declared.__name__}"]
    return []


def _object_problems(value: Any, declared: Any, where: str) -> list[str]:
    name = f"{where or declared.__name__}"
    if not isinstance(value, dict):
        return [f"{name}: {value!r} is not an object"]
    hints = typing.get_type_hints(declared)
    found = [f"{name}: `{key}` is missing" for key in declared.__required_keys__ - set(value)]
    found += [f"{name}: `{key}` is not declared" for key in set(value) - set(hints)]
    for key in hints.keys() & set(value):
        found += problems(value[key], hints[key], f"{name}.{key}")
    return found
