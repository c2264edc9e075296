"""Turning marker edits into editor edits or disk writes.

An open document belongs to the editor: its edits go through `workspace/applyEdit`. A
subscribed file that is not open is rewritten by the server (`todo_ls.disk.write_markers`:
atomic, only the marker characters, refused when a line changed since it was read).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from todo_ls.disk import write_markers
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.positions import Encoding
from todo_ls.workspace import FileState

if TYPE_CHECKING:
    from todo_ls.checklist import MarkerEdit


def text_edits(
    state: FileState, edits: Sequence[MarkerEdit], encoding: Encoding
) -> list[types.TextEdit]:
    """The LSP text edits of `edits` in the client's position encoding."""
    return [
        types.TextEdit(
            range=encoding.range(state.lines, e.line, e.col, e.col + len(e.old)), new_text=e.new
        )
        for e in edits
    ]


def workspace_edit(
    state: FileState, edits: Sequence[MarkerEdit], encoding: Encoding
) -> types.WorkspaceEdit:
    """A `changes` workspace edit (every client supports that form; Neovim lacks
    `documentChanges`)."""
    return types.WorkspaceEdit(changes={state.uri: text_edits(state, edits, encoding)})


async def apply_marker_edits(
    ls: TodoLanguageServer, state: FileState, edits: Sequence[MarkerEdit]
) -> tuple[bool, str | None]:
    """Apply `edits` to the file of `state`; returns (applied, reason when not).

    The edit carries no label: Neovim prints any label after every edit ("Workspace edit
    todo-ls: done"), and the changed marker is what the user sees anyway."""
    if not edits:
        return True, None
    if state.is_open:
        if not ls.client_features.apply_edit:
            return False, "the editor does not accept edits from the server (no applyEdit)"
        result = await ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=workspace_edit(state, edits, ls.encoding))
        )
        if result.applied:
            return True, None
        return False, result.failure_reason or "the editor did not apply the edit"
    expected = {e.line: state.lines[e.line] for e in edits if e.line < len(state.lines)}
    written = write_markers(state.path, edits, expected)
    ls.workspace_index.forget(state.path)
    if written.applied:
        ls.files_changed()
    return written.applied, written.reason
