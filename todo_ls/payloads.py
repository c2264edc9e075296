"""The wire between the server and its editors beyond LSP itself: the ids of the `todoLs.*`
commands, the `todoLs/status` payload and each command's answer (docs/status-and-commands.md).

Every place that builds one of these objects builds it as the type declared here, so mypy checks
its shape where it is written. The clients declare the same objects: the VS Code extension in
editors/vscode/src/status.ts (the status, `todoLs.list`) and answers.ts (the other answers),
the Neovim plugin in lua/todo_ls/protocol.lua; tests/unit/test_status_payload_contract.py and
test_command_ids_agree.py fail when a side differs, and the LSP tests check every payload and
answer the real server sends against these declarations.

How to read a declaration: a key the server sometimes leaves out is declared in a `total=False`
class (Python 3.10 has no `NotRequired`); a value that may be JSON null is `X | None`. Names are
the clients' interface names, keys are the wire's (camelCase). No imports beyond `typing`: every
layer (the checklist views, the supervisor, the server) may use it.
"""

from __future__ import annotations

from typing import Literal, TypedDict

# --- command ids (`workspace/executeCommand`), each taking one JSON object ------------------

TOGGLE = "todoLs.toggle"
SET_STATE = "todoLs.setState"
SUBSCRIBE = "todoLs.subscribe"
UNSUBSCRIBE = "todoLs.unsubscribe"
NUDGE = "todoLs.nudge"
PAUSE = "todoLs.pause"
RESUME = "todoLs.resume"
LIST = "todoLs.list"
REFRESH = "todoLs.refresh"
FOLD_DONE = "todoLs.foldDone"

STATUS_NOTIFICATION = "todoLs/status"

# --- `todoLs/status` -------------------------------------------------------------------------


class _FileStatus(TypedDict):
    uri: str
    open: int
    total: int
    missing: bool  # subscribed but not on disk


class FileStatus(_FileStatus, total=False):
    """One entry of `files`."""

    error: str  # why the file could not be read, only then


class _HostStatus(TypedDict):
    kind: str
    url: str | None
    connected: bool
    version: str | None


class HostStatus(_HostStatus, total=False):
    """`supervisor.host`: the watched agent server."""

    error: str  # why the last connection attempt failed, only while that stands


class SessionTodos(TypedDict):
    """A session's own todo list: how many of its items are open (pending, in progress)."""

    open: int
    total: int


class _SessionStatus(TypedDict):
    id: str
    host: str
    title: str | None
    state: str
    detail: str | None
    open: int
    nudges: int
    pausedReason: str | None


class SessionStatus(_SessionStatus, total=False):
    """One supervised session (`SupervisedSession.to_wire`)."""

    todos: SessionTodos  # only when the session keeps a list of its own


class SupervisorStatus(TypedDict):
    """`supervisor`: the setting, the watched host (None while the supervisor does not run)
    and the folder's sessions."""

    enabled: bool
    host: HostStatus | None
    sessions: list[SessionStatus]


class StatusPayload(TypedDict):
    """One `todoLs/status` notification: one workspace folder's counts, files and sessions."""

    workspace: str
    open: int
    done: int
    canceled: int
    total: int
    text: str
    files: list[FileStatus]
    filesTotal: int
    supervisor: SupervisorStatus


# --- command answers -------------------------------------------------------------------------


class OpenItem(TypedDict):
    """A file item of `todoLs.list`: one open item (`line` 1-based, `ref` is `path:line`).
    `text` is its markdown as written (what a toggle names it by), `name` the text a reader
    sees, as the outline names it."""

    uri: str
    path: str
    line: int
    state: str
    text: str
    name: str
    ref: str


class _SessionItem(TypedDict):
    sessionID: str
    index: int
    content: str  # as the agent wrote it: what a toggle compares
    name: str  # `content` as a reader sees it (inline markdown as plain text)
    status: str
    priority: str | None


class SessionItem(_SessionItem, total=False):
    """A session item of `todoLs.list`: one item of a session's own list, closed ones too."""

    readOnly: Literal[True]  # only on an item that only the agent may change


class ListResult(StatusPayload):
    """`todoLs.list`: the status payload plus one page of items and how many there are."""

    items: list[OpenItem | SessionItem]
    itemsTotal: int


class _EditResult(TypedDict):
    applied: bool
    state: str | None  # the item's state after the command; None when no item was found


class EditResult(_EditResult, total=False):
    """`todoLs.toggle`, `todoLs.setState`."""

    line: int  # the item's line when it was found on another one
    reason: str  # why it was not applied


class FilesResult(TypedDict):
    """`todoLs.subscribe`, `todoLs.unsubscribe`: the subscribed files afterwards."""

    files: list[str]


class NudgeSkip(TypedDict):
    """A session `todoLs.nudge` did not nudge (None: no session to name) and why."""

    sessionID: str | None
    reason: str


class NudgeResult(TypedDict):
    """`todoLs.nudge`."""

    sent: list[str]
    skipped: list[NudgeSkip]


class SessionChange(TypedDict):
    """A session `todoLs.pause` / `todoLs.resume` changed, and its state afterwards (None:
    no state known yet)."""

    id: str
    state: str | None


class _SessionsResult(TypedDict):
    sessions: list[SessionChange]


class SessionsResult(_SessionsResult, total=False):
    """`todoLs.pause`, `todoLs.resume`."""

    reason: str  # why nothing was done (the supervisor does not run, the store refused)


class RefreshResult(TypedDict):
    """`todoLs.refresh`: how many subscribed files were read again."""

    files: int


class LineRange(TypedDict):
    """0-based lines, both inclusive."""

    startLine: int
    endLine: int


class FoldDoneResult(TypedDict):
    """`todoLs.foldDone`: the runs of two or more consecutive finished items."""

    ranges: list[LineRange]


# What each command answers: the clients declare the same table (answers.ts `CommandAnswers`).
ANSWERS: dict[str, type] = {
    TOGGLE: EditResult,
    SET_STATE: EditResult,
    SUBSCRIBE: FilesResult,
    UNSUBSCRIBE: FilesResult,
    NUDGE: NudgeResult,
    PAUSE: SessionsResult,
    RESUME: SessionsResult,
    LIST: ListResult,
    REFRESH: RefreshResult,
    FOLD_DONE: FoldDoneResult,
}
