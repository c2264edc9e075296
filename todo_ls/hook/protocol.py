"""A hook's input as todo-ls reads it, for any host. Pure.

Every host sends one JSON object on stdin with a session id, its folder and the event's name,
and reads a decision from the answer. `parse` turns that object into a `HookInput`
(hosts/base.py, the type every host's methods read): the host's module (todo_ls/hook/hosts/)
maps its field names onto Claude Code's and its event names onto todo-ls's own events.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from todo_ls.hook import hosts
from todo_ls.hook.hosts.base import HookHost, HookInput


class HookInputError(ValueError):
    """The hook's input cannot be used; the message says why in one line."""


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
