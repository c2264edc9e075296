"""`workspace/executeCommand` handlers: every command takes one JSON object and returns one.

Malformed arguments raise `JsonRpcInvalidParams`; a well-formed request that cannot be done
(unknown or unsubscribed file, a line that is not an item, a line changed since it was read)
answers `{applied: false, reason}`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from todo_ls import checklist  # its functions load on first use
from todo_ls.checklist import STATES
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.edits import apply_marker_edits
from todo_ls.server.status import file_open_items, open_items_page, status_payload
from todo_ls.workspace import Folder, SubscriptionError, path_to_uri, uri_to_path


def _invalid(message: str) -> JsonRpcInvalidParams:
    return JsonRpcInvalidParams(message)


def one_object(command: str, args: tuple[Any, ...], required: bool = True) -> Mapping[str, Any]:
    """The single JSON-object argument of `command` (`{}` when optional and omitted)."""
    if not args and not required:
        return {}
    if len(args) != 1 or not isinstance(args[0], Mapping):
        raise _invalid(f"{command} takes exactly one argument, a JSON object")
    return args[0]


def field_of(
    command: str, obj: Mapping[str, Any], name: str, kind: type, optional: bool = False
) -> Any:
    value = obj.get(name)
    if value is None and optional:
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise _invalid(f"{command}: `{name}` must be a {kind.__name__}")
    return value


def _workspace(ls: TodoLanguageServer, command: str, obj: Mapping[str, Any]) -> Folder | None:
    """The workspace folder named by the optional `workspace` URI (None: every folder)."""
    uri: str | None = field_of(command, obj, "workspace", str, optional=True)
    if uri is None:
        return None
    path = uri_to_path(uri)
    for folder in ls.workspace_index.folders:
        if folder.uri == uri or folder.path == path:
            return folder
    raise _invalid(f"{command}: {uri} is not a workspace folder of this server")


LIST_LIMIT = 1000  # items of one `todoLs.list` answer unless it asks for another `limit`


def _count_field(obj: Mapping[str, Any], name: str, default: int, minimum: int) -> int:
    """An optional whole-number argument of `todoLs.list` (`offset`, `limit`)."""
    value: int | None = field_of("todoLs.list", obj, name, int, optional=True)
    if value is None:
        return default
    if value < minimum:
        raise _invalid(f"todoLs.list: `{name}` must be >= {minimum}")
    return value


def _line(command: str, obj: Mapping[str, Any]) -> int:
    line: int = field_of(command, obj, "line", int)
    if line < 0:
        raise _invalid(f"{command}: `line` must be >= 0 (0-based)")
    return line


async def set_item_state(
    ls: TodoLanguageServer, uri: str, line: int, state: str | None
) -> dict[str, Any]:
    """Put the item at `line` into `state` (None: toggle). Result `{applied, state[, reason]}`."""
    path = uri_to_path(uri)
    if path is None:
        return {"applied": False, "state": None, "reason": f"{uri} is not a file URI"}
    if not ls.workspace_index.is_subscribed(path):
        return {"applied": False, "state": None, "reason": f"{path} is not subscribed"}
    current = ls.workspace_index.state(path)
    if current.missing or current.error:
        missing = current.error or f"{path} does not exist"
        return {"applied": False, "state": None, "reason": missing}
    item = next((i for i in current.checklist.items if i.line == line), None)
    if item is None:
        return {"applied": False, "state": None, "reason": f"line {line + 1} is not a task item"}
    target = state or checklist.toggle_state(item)
    edits = checklist.set_state_edits(current.checklist, [item.index], target, ls.registry)
    applied, reason = await apply_marker_edits(ls, current, edits)
    result: dict[str, Any] = {"applied": applied, "state": target if applied else item.state}
    if reason:
        result["reason"] = reason
    return result


def _subscription_result(ls: TodoLanguageServer) -> dict[str, Any]:
    index = ls.workspace_index
    files = []
    for _, path in index.all_subscribed():
        files.append(index.state(path).uri if index.is_open(path) else path_to_uri(path))
    return {"files": files}


def register(server: TodoLanguageServer) -> None:
    @server.command("todoLs.toggle")
    async def toggle(ls: TodoLanguageServer, *args: Any) -> dict[str, Any]:
        obj = one_object("todoLs.toggle", args)
        if "sessionID" in obj:
            session = field_of("todoLs.toggle", obj, "sessionID", str)
            index: int = field_of("todoLs.toggle", obj, "index", int)
            content: str | None = field_of("todoLs.toggle", obj, "content", str, optional=True)
            return ls.supervision.toggle_todo(session, index, content)
        uri = field_of("todoLs.toggle", obj, "uri", str)
        return await set_item_state(ls, uri, _line("todoLs.toggle", obj), None)

    @server.command("todoLs.setState")
    async def set_state(ls: TodoLanguageServer, *args: Any) -> dict[str, Any]:
        obj = one_object("todoLs.setState", args)
        uri = field_of("todoLs.setState", obj, "uri", str)
        state = field_of("todoLs.setState", obj, "state", str)
        if state not in STATES:
            raise _invalid(f"todoLs.setState: unknown state {state!r}; one of {list(STATES)}")
        return await set_item_state(ls, uri, _line("todoLs.setState", obj), state)

    def change_subscription(
        ls: TodoLanguageServer, command: str, args: tuple[Any, ...]
    ) -> dict[str, Any]:
        obj = one_object(command, args)
        target = field_of(command, obj, "uri", str)
        index = ls.workspace_index
        try:
            path = index.resolve_target(target)
            if command == "todoLs.subscribe":
                index.subscribe(path)
            else:
                index.unsubscribe(path)
        except SubscriptionError as exc:
            raise _invalid(f"{command}: {exc}") from None
        ls.subscriptions_changed()
        return _subscription_result(ls)

    @server.command("todoLs.subscribe")
    def subscribe(ls: TodoLanguageServer, *args: Any) -> dict[str, Any]:
        return change_subscription(ls, "todoLs.subscribe", args)

    @server.command("todoLs.unsubscribe")
    def unsubscribe(ls: TodoLanguageServer, *args: Any) -> dict[str, Any]:
        return change_subscription(ls, "todoLs.unsubscribe", args)

    @server.command("todoLs.list")
    def list_items(ls: TodoLanguageServer, *args: Any) -> dict[str, Any]:
        obj = one_object("todoLs.list", args, required=False)
        folder = _workspace(ls, "todoLs.list", obj)
        uri: str | None = field_of("todoLs.list", obj, "uri", str, optional=True)
        offset = _count_field(obj, "offset", 0, minimum=0)
        limit = _count_field(obj, "limit", LIST_LIMIT, minimum=1)
        if uri is not None:
            path = uri_to_path(uri)
            listed = file_open_items(ls, path) if path is not None else []
            items, total = listed[offset : offset + limit], len(listed)
        else:
            key = folder.key if folder is not None else None
            items, total = open_items_page(ls, folder, offset, limit)
            sessions = ls.supervision.session_items(key)
            start = max(0, offset - total)
            items += sessions[start : start + limit - len(items)]
            total += len(sessions)
        # The payload after the items: a file read for them counts as it is now.
        return {**status_payload(ls, folder), "items": items, "itemsTotal": total}

    @server.command("todoLs.refresh")
    def refresh(ls: TodoLanguageServer, *args: Any) -> dict[str, Any]:
        one_object("todoLs.refresh", args, required=False)
        index = ls.workspace_index
        index.reload_overrides()
        index.invalidate_globs()
        index.clear_cache()
        files = index.all_subscribed()
        for _, path in files:
            index.state(path)
        ls.subscriptions_changed()
        return {"files": len(files)}

    def session_args(
        ls: TodoLanguageServer, command: str, args: tuple[Any, ...]
    ) -> tuple[str | None, str | None]:
        """`{sessionID?, workspace?}`: one session, or every session (of one folder)."""
        obj = one_object(command, args, required=False)
        session: str | None = field_of(command, obj, "sessionID", str, optional=True)
        folder = _workspace(ls, command, obj)
        return session, folder.key if folder is not None else None

    @server.command("todoLs.nudge")
    async def nudge(ls: TodoLanguageServer, *args: Any) -> dict[str, Any]:
        return await ls.supervision.nudge(*session_args(ls, "todoLs.nudge", args))

    @server.command("todoLs.pause")
    async def pause(ls: TodoLanguageServer, *args: Any) -> dict[str, Any]:
        return await ls.supervision.pause(*session_args(ls, "todoLs.pause", args))

    @server.command("todoLs.resume")
    async def resume(ls: TodoLanguageServer, *args: Any) -> dict[str, Any]:
        return await ls.supervision.resume(*session_args(ls, "todoLs.resume", args))
