"""`workspace/executeCommand` handlers: every command takes one JSON object and returns one,
the type `todo_ls.payloads` declares for it (`ANSWERS`; docs/status-and-commands.md).

Malformed arguments raise `JsonRpcInvalidParams`; a well-formed request that cannot be done
(unknown or unsubscribed file, a line that is not an item, a line changed since it was read)
answers `{applied: false, reason}`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from pygls.exceptions import JsonRpcInvalidParams, JsonRpcServerNotInitialized

from todo_ls import checklist  # its functions load on first use
from todo_ls.checklist import STATES
from todo_ls.path_checks import target_problem
from todo_ls.payloads import (
    LIST,
    NUDGE,
    PAUSE,
    REFRESH,
    RESUME,
    SET_STATE,
    SUBSCRIBE,
    TOGGLE,
    UNSUBSCRIBE,
    EditResult,
    FilesResult,
    ListResult,
    NudgeResult,
    OpenItem,
    RefreshResult,
    SessionItem,
    SessionsResult,
)
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.edits import apply_marker_edits
from todo_ls.server.status import (
    file_open_items,
    files_by_path,
    open_items_page,
    status_payload,
)
from todo_ls.workspace import Folder, SubscriptionError, path_to_uri, uri_to_path

_Answer = TypeVar("_Answer")


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


def uri_of(command: str, obj: Mapping[str, Any], name: str = "uri", optional: bool = False) -> Any:
    """The URI (or path) argument `name`, checked at the edge: no NUL byte, raw or `%00`, and
    a sane length (docs/security.md); the scheme is judged where a file is needed."""
    value = field_of(command, obj, name, str, optional)
    problem = target_problem(value) if value is not None else None
    if problem is not None:
        raise _invalid(f"{command}: `{name}` {problem}")
    return value


def _workspace(ls: TodoLanguageServer, command: str, obj: Mapping[str, Any]) -> Folder | None:
    """The workspace folder named by the optional `workspace` URI (None: every folder)."""
    uri: str | None = uri_of(command, obj, "workspace", optional=True)
    if uri is None:
        return None
    path = uri_to_path(uri)
    for folder in ls.workspace_index.folders:
        if folder.uri == uri or folder.path == path:
            return folder
    raise _invalid(f"{command}: {uri} is not a workspace folder of this server")


LIST_LIMIT = 1000  # items of one `todoLs.list` answer unless it asks for another `limit`
FILES_PAGE = 50  # files of a `todoLs.list` page by path unless it asks for another `filesLimit`
FILES_PAGE_MAX = 1000  # the most files one answer lists: a panel asks page after page


def _count_field(
    obj: Mapping[str, Any], name: str, default: int, minimum: int, maximum: int | None = None
) -> int:
    """An optional whole-number argument of `todoLs.list` (`offset`, `limit`, `filesOffset`,
    `filesLimit`)."""
    value: int | None = field_of(LIST, obj, name, int, optional=True)
    if value is None:
        return default
    if value < minimum:
        raise _invalid(f"{LIST}: `{name}` must be >= {minimum}")
    if maximum is not None and value > maximum:
        raise _invalid(f"{LIST}: `{name}` must be <= {maximum}")
    return value


def _line(command: str, obj: Mapping[str, Any]) -> int:
    line: int = field_of(command, obj, "line", int)
    if line < 0:
        raise _invalid(f"{command}: `line` must be >= 0 (0-based)")
    return line


async def set_item_state(
    ls: TodoLanguageServer, uri: str, line: int, state: str | None, text: str | None = None
) -> EditResult:
    """Put the item the client named into `state` (None: toggle).

    The item is the one at `line` holding `text`, or the one item with that text wherever it
    moved (docs/status-and-commands.md, "Which item a toggle changes"). Without `text`, the
    text is that of the item at `line` in the parse the server last served, so an unopened
    file that shifted since is still seen. Result `{applied, state[, line][, reason]}`;
    `line` when the item was found on another line."""
    path = uri_to_path(uri)
    if path is None:
        return {"applied": False, "state": None, "reason": f"{uri} is not a file URI"}
    if not ls.workspace_index.is_subscribed(path):
        return {"applied": False, "state": None, "reason": f"{path} is not subscribed"}
    served = ls.workspace_index.last_parsed(path)
    current = ls.workspace_index.state(path)
    if current.missing or current.error:
        missing = current.error or f"{path} does not exist"
        return {"applied": False, "state": None, "reason": missing}
    if text is None and served is not None and not current.is_open:
        seen = checklist.locate_item(served.checklist, line, None)
        text = seen.text if not isinstance(seen, str) else None
    item = checklist.locate_item(current.checklist, line, text)
    if isinstance(item, str):
        return {"applied": False, "state": None, "reason": item}
    target = state or checklist.toggle_state(item)
    edits = checklist.set_state_edits(current.checklist, [item.index], target, ls.registry)
    applied, reason = await apply_marker_edits(ls, current, edits)
    result: EditResult = {"applied": applied, "state": target if applied else item.state}
    if item.line != line:
        result["line"] = item.line
    if reason:
        result["reason"] = reason
    return result


def _subscription_result(ls: TodoLanguageServer) -> FilesResult:
    index = ls.workspace_index
    files = []
    for _, path in index.all_subscribed():
        files.append(index.state(path).uri if index.is_open(path) else path_to_uri(path))
    return {"files": files}


def register(server: TodoLanguageServer) -> None:
    @server.command(TOGGLE)
    async def toggle(ls: TodoLanguageServer, *args: Any) -> EditResult:
        obj = one_object(TOGGLE, args)
        if "sessionID" in obj:
            session = field_of(TOGGLE, obj, "sessionID", str)
            index: int = field_of(TOGGLE, obj, "index", int)
            content: str | None = field_of(TOGGLE, obj, "content", str, optional=True)
            return ls.supervision.toggle_todo(session, index, content)
        uri = uri_of(TOGGLE, obj)
        text: str | None = field_of(TOGGLE, obj, "text", str, optional=True)
        return await set_item_state(ls, uri, _line(TOGGLE, obj), None, text)

    @server.command(SET_STATE)
    async def set_state(ls: TodoLanguageServer, *args: Any) -> EditResult:
        obj = one_object(SET_STATE, args)
        uri = uri_of(SET_STATE, obj)
        state = field_of(SET_STATE, obj, "state", str)
        if state not in STATES:
            raise _invalid(f"{SET_STATE}: unknown state {state!r}; one of {list(STATES)}")
        text: str | None = field_of(SET_STATE, obj, "text", str, optional=True)
        return await set_item_state(ls, uri, _line(SET_STATE, obj), state, text)

    def change_subscription(
        ls: TodoLanguageServer, command: str, args: tuple[Any, ...]
    ) -> FilesResult:
        obj = one_object(command, args)
        target = uri_of(command, obj)
        index = ls.workspace_index
        try:
            path = index.resolve_target(target)
            if command == SUBSCRIBE:
                index.subscribe(path)
            else:
                index.unsubscribe(path)
        except SubscriptionError as exc:
            raise _invalid(f"{command}: {exc}") from None
        ls.subscriptions_changed()
        return _subscription_result(ls)

    @server.command(SUBSCRIBE)
    def subscribe(ls: TodoLanguageServer, *args: Any) -> FilesResult:
        return change_subscription(ls, SUBSCRIBE, args)

    @server.command(UNSUBSCRIBE)
    def unsubscribe(ls: TodoLanguageServer, *args: Any) -> FilesResult:
        return change_subscription(ls, UNSUBSCRIBE, args)

    @server.command(LIST)
    def list_items(ls: TodoLanguageServer, *args: Any) -> ListResult:
        obj = one_object(LIST, args, required=False)
        if not ls.workspace_index.folders:  # its payload names a folder: none before `initialize`
            raise JsonRpcServerNotInitialized()
        folder = _workspace(ls, LIST, obj)
        uri: str | None = uri_of(LIST, obj, optional=True)
        session: str | None = field_of(LIST, obj, "sessionID", str, optional=True)
        if uri is not None and session is not None:
            raise _invalid(f"{LIST}: `uri` and `sessionID` name different lists; give one")
        offset = _count_field(obj, "offset", 0, minimum=0)
        limit = _count_field(obj, "limit", LIST_LIMIT, minimum=0)  # 0: the counts only
        by_path = "filesOffset" in obj or "filesLimit" in obj
        files_offset = _count_field(obj, "filesOffset", 0, minimum=0)
        files_limit = _count_field(obj, "filesLimit", FILES_PAGE, 0, FILES_PAGE_MAX)
        key = folder.key if folder is not None else None
        items: list[OpenItem | SessionItem]
        if uri is not None:
            path = uri_to_path(uri)
            listed = file_open_items(ls, path) if path is not None else []
            items, total = [*listed[offset : offset + limit]], len(listed)
        elif session is not None:
            own = [i for i in ls.supervision.session_items(key) if i["sessionID"] == session]
            items, total = [*own[offset : offset + limit]], len(own)
        else:
            files, total = open_items_page(ls, folder, offset, limit)
            sessions = ls.supervision.session_items(key)
            start = max(0, offset - total)
            items = [*files, *sessions[start : start + limit - len(files)]]
            total += len(sessions)
        # The payload after the items: a file read for them counts as it is now.
        payload = status_payload(ls, folder)
        if by_path:
            payload["files"] = files_by_path(ls, folder, files_offset, files_limit)
        return {**payload, "items": items, "itemsTotal": total}

    @server.command(REFRESH)
    def refresh(ls: TodoLanguageServer, *args: Any) -> RefreshResult:
        one_object(REFRESH, args, required=False)
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

    @server.command(NUDGE)
    async def nudge(ls: TodoLanguageServer, *args: Any) -> NudgeResult:
        session, folder = session_args(ls, NUDGE, args)

        def refused(why: str) -> NudgeResult:
            return {"sent": [], "skipped": [{"sessionID": session, "reason": why}]}

        return await _stored(ls.supervision.nudge(session, folder), refused)

    @server.command(PAUSE)
    async def pause(ls: TodoLanguageServer, *args: Any) -> SessionsResult:
        answer = ls.supervision.pause(*session_args(ls, PAUSE, args))
        return await _stored(answer, _no_sessions)

    @server.command(RESUME)
    async def resume(ls: TodoLanguageServer, *args: Any) -> SessionsResult:
        answer = ls.supervision.resume(*session_args(ls, RESUME, args))
        return await _stored(answer, _no_sessions)


def _no_sessions(why: str) -> SessionsResult:
    return {"sessions": [], "reason": why}


async def _stored(answer: Awaitable[_Answer], refused: Callable[[str], _Answer]) -> _Answer:
    """The command's answer; when the state store could not take its write (held by another
    process, damaged: docs/store.md), `refused(reason)`, so the user knows it was not done and
    can try again, rather than an internal error."""
    from todo_ls.store import StoreError  # sqlite3: loaded after the `initialize` answer

    try:
        return await answer
    except StoreError as err:
        return refused(f"{err}; not done, try again")
