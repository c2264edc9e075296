"""A hook's input as todo-ls reads it, for any host. Pure.

Every host sends one JSON object on stdin with a session id, its folder and the event's name,
and reads a decision from the answer. `parse` turns that object into a `HookInput`: the host's
module (todo_ls/hook/hosts/) maps its field names onto Claude Code's and its event names onto
todo-ls's own events.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NamedTuple

from todo_ls.hook import hosts
from todo_ls.hook.hosts.base import Event, HookHost


class HookInputError(ValueError):
    """The hook's input cannot be used; the message says why in one line."""


class HookInput(NamedTuple):
    """One hook invocation, normalised."""

    host: str  # the host's kind
    event: Event
    host_event: str  # the host's own name, for the log
    session_id: str
    cwd: str
    turn: str | None  # the host's turn key (`prompt_id`, `turn_id`); None when absent
    transcript_path: str | None
    last_message: str
    background_tasks: int  # background work still running (Claude Code)
    raw: Mapping[str, Any]

    @property
    def tool_name(self) -> str:
        return self.text("tool_name")

    @property
    def tool_input(self) -> Mapping[str, Any]:
        value = self.raw.get("tool_input")
        return value if isinstance(value, Mapping) else {}

    @property
    def stop_hook_active(self) -> bool:
        """The host says this Stop continues a turn a Stop hook blocked."""
        return self.raw.get("stop_hook_active") is True

    def text(self, key: str) -> str:
        """A string field of the input, "" when absent or not a string."""
        value = self.raw.get(key)
        return value if isinstance(value, str) else ""


def parse(text: str, env: Mapping[str, str], host: HookHost | str | None = None) -> HookInput:
    """Read one hook input of `host` (a host or its kind; None: detect it). Raises
    `HookInputError` for anything todo-ls cannot act on."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise HookInputError(f"stdin is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise HookInputError(f"stdin is a JSON {type(data).__name__}, not an object")
    if isinstance(host, str):
        host = hosts.get(host)
    host = host or hosts.detect(data, env)
    data = host.normalize(data)
    name = data.get(host.event_field)
    event = host.event_of(name, data) if isinstance(name, str) else None
    if not isinstance(name, str) or event is None:
        raise HookInputError(f"unknown hook event {name!r} for {host.kind}")
    session_id = data.get("session_id")
    if not isinstance(session_id, str) or not session_id:
        raise HookInputError(f"{name}: no session_id")
    cwd = data.get("cwd")
    transcript = data.get("transcript_path")
    return HookInput(
        host=host.kind,
        event=event,
        host_event=name,
        session_id=session_id,
        cwd=cwd if isinstance(cwd, str) and cwd else "",
        turn=host.turn(data),
        transcript_path=transcript if isinstance(transcript, str) and transcript else None,
        last_message=host.last_message(data),
        background_tasks=host.background_tasks(data),
        raw=data,
    )


def project_dir(hook: HookInput, host: HookHost, env: Mapping[str, str]) -> str:
    """The agent's project folder: the host's own variable, else the hook's `cwd`."""
    name = host.project_dir_var
    return (env.get(name) if name else None) or hook.cwd
