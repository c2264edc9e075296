"""The VS Code extension contributes exactly the server's settings, types and defaults.

VS Code validates and offers completions for `todoLs.*` from editors/vscode/package.json, while the
server validates with the pydantic `Settings` model; this test keeps the two from drifting.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from todo_ls.settings.model import Settings

PACKAGE_JSON = Path(__file__).resolve().parents[2] / "editors" / "vscode" / "package.json"
PREFIX = "todoLs."
# Read by the extension itself (how to start the server, LSP tracing); never sent to the server.
CLIENT_ONLY = {"server.command", "server.useInstalled", "trace.server"}


def _contributed() -> dict[str, dict[str, Any]]:
    package = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))
    properties: dict[str, dict[str, Any]] = package["contributes"]["configuration"]["properties"]
    assert all(key.startswith(PREFIX) for key in properties)
    return {key[len(PREFIX) :]: spec for key, spec in properties.items()}


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if ref is None:
        return schema
    return dict(root["$defs"][ref.rsplit("/", 1)[-1]])


def _server_leaves() -> dict[str, dict[str, Any]]:
    """Dotted camelCase key → JSON schema of each leaf setting (nested models are flattened)."""
    root = Settings.model_json_schema(by_alias=True)
    leaves: dict[str, dict[str, Any]] = {}

    def walk(schema: dict[str, Any], prefix: str) -> None:
        for name, prop in schema["properties"].items():
            resolved = _resolve(prop, root)
            if "properties" in resolved and resolved.get("type") == "object":
                walk(resolved, f"{prefix}{name}.")
            else:
                leaves[prefix + name] = resolved

    walk(root, "")
    return leaves


def _server_default(key: str) -> Any:
    value: Any = Settings().model_dump(by_alias=True, mode="json")
    for part in key.split("."):
        value = value[part]
    return value


def _json_types(schema: dict[str, Any]) -> set[str]:
    variants = schema.get("anyOf", [schema])
    types: set[str] = set()
    for variant in variants:
        kind = variant.get("type")
        if kind is None and "enum" in variant:
            kind = "string"  # a Literal of strings
        types.update([kind] if isinstance(kind, str) else kind)
    return types


def _enum(schema: dict[str, Any]) -> list[Any] | None:
    for variant in schema.get("anyOf", [schema]):
        if "enum" in variant:
            return list(variant["enum"])
        if "const" in variant:
            return [variant["const"]]
    return None


SERVER = _server_leaves()
CLIENT = _contributed()


def test_every_server_setting_is_contributed_and_nothing_else() -> None:
    assert set(CLIENT) - CLIENT_ONLY == set(SERVER)
    assert set(CLIENT) >= CLIENT_ONLY


@pytest.mark.parametrize("key", sorted(SERVER))
def test_type_default_and_bounds_agree(key: str) -> None:
    server, client = SERVER[key], CLIENT[key]
    client_types = client["type"] if isinstance(client["type"], list) else [client["type"]]
    assert set(client_types) == _json_types(server), key
    assert client["default"] == _server_default(key), key
    assert client.get("enum") == _enum(server), key
    for bound in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        assert client.get(bound) == server.get(bound), (key, bound)
    if "items" in server:
        assert client["items"] == {"type": server["items"]["type"]}, key
    assert client.get("description") or client.get("markdownDescription"), (
        f"{key} has no description"
    )


def test_states_lists_every_state_with_marker_lists() -> None:
    states = CLIENT["states"]
    assert set(states["properties"]) == set(_server_default("states"))
    assert all(p == SERVER["states"]["additionalProperties"] for p in states["properties"].values())


def test_client_only_settings_have_defaults_the_extension_handles() -> None:
    assert CLIENT["server.command"]["default"] == []
    assert CLIENT["trace.server"]["default"] == "off"


# What each setting picks, for the workspace-trust rule: a setting that picks an executable, a
# URL, an environment variable or a folder (or turns on what sends the password) must be a
# restricted configuration, so an untrusted workspace's `.vscode/settings.json` cannot set it.
# A new setting fails `test_every_setting_is_classified` until it is placed here.
PICKS_WHERE = {
    "server.command": "executable",
    "server.useInstalled": "executable",
    "stateDir": "folder",
    "supervisor.url": "URL",
    "supervisor.host": "which host (and so which URL and password)",
    "supervisor.passwordEnv": "environment variable",
    "supervisor.enabled": "whether the password is sent at all",
}
DESCRIBES_THE_CHECKLIST = {
    "trace.server",
    "markdownFiles",
    "states",
    "diagnostics.severity",
    "diagnostics.maxPerDocument",
    "inlayHints.enabled",
    "codeLens.enabled",
    "supervisor.scope",
    "supervisor.settleMs",
    "supervisor.minNudgeIntervalMs",
    "supervisor.stallMinutes",
    "supervisor.maxNoProgressNudges",
    "supervisor.maxNudgesPerEpisode",
    "supervisor.pauseOnInterrupt",
    "supervisor.toasts",
}
# Words in a setting's name that say it picks a place or a program.
_SENSITIVE_WORDS = ("command", "url", "host", "env", "dir", "path", "installed", "port")


def _restricted() -> set[str]:
    package = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))
    listed = package["capabilities"]["untrustedWorkspaces"]["restrictedConfigurations"]
    assert all(key.startswith(PREFIX) for key in listed)
    return {key[len(PREFIX) :] for key in listed}


def test_every_setting_is_classified() -> None:
    assert not set(PICKS_WHERE) & DESCRIBES_THE_CHECKLIST
    assert set(CLIENT) == set(PICKS_WHERE) | DESCRIBES_THE_CHECKLIST


def test_settings_that_pick_a_program_url_variable_or_folder_are_restricted() -> None:
    assert _restricted() == set(PICKS_WHERE)
    named = {k for k in CLIENT if any(w in k.lower() for w in _SENSITIVE_WORDS)}
    assert named <= _restricted(), f"restrict these too: {sorted(named - _restricted())}"


def test_what_a_project_file_may_not_set_is_restricted_in_vscode_too() -> None:
    from todo_ls.settings.project_file import USER_ONLY

    camel = {".".join(path) for path in USER_ONLY if ".".join(path) in CLIENT}
    assert camel == {"supervisor.url", "supervisor.host", "supervisor.passwordEnv", "stateDir"}
    assert camel <= _restricted()
