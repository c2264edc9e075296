"""The hosts reached through hooks, one module each (docs/hosts-hooks.md, "Adding a host").

`KINDS` lists them without importing any; `get` imports the one a hook runs for. A new host
is a module here defining `HOST` (a `base.HookHost`), one line in `_MODULES`, and its
`todo-ls install` target in todo_ls/install/.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from todo_ls.hook.hosts.base import HookHost

# kind -> module; detection without `--host` tries them in this order (Claude Code, the
# shape the others copied, last).
_MODULES: dict[str, str] = {
    "gemini-cli": "todo_ls.hook.hosts.gemini_cli",
    "mistral-vibe": "todo_ls.hook.hosts.mistral_vibe",
    "openhands": "todo_ls.hook.hosts.openhands",
    "kimi-code": "todo_ls.hook.hosts.kimi_code",
    "codex": "todo_ls.hook.hosts.codex",
    "qwen-code": "todo_ls.hook.hosts.qwen_code",
    "copilot-cli": "todo_ls.hook.hosts.copilot_cli",
    "droid": "todo_ls.hook.hosts.droid",
    "pi": "todo_ls.hook.hosts.pi",
    "claude-code": "todo_ls.hook.hosts.claude_code",
}
KINDS: tuple[str, ...] = tuple(sorted(_MODULES))
FALLBACK = "claude-code"


def get(kind: str) -> HookHost:
    """The host of `kind` (KeyError for an unknown one)."""
    host: HookHost = importlib.import_module(_MODULES[kind]).HOST
    return host


def detect(data: Mapping[str, Any], env: Mapping[str, str]) -> HookHost:
    """The host that ran a hook installed without `--host`, from its input and environment."""
    for kind in _MODULES:
        host = get(kind)
        if kind != FALLBACK and host.detects(data, env):
            return host
    return get(FALLBACK)
