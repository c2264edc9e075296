"""Code actions on a checklist line.

On an item: Mark done / Cancel / Reopen (whichever apply), `Set state: <state>` for each state
none of those sets, and on an item with open children "Mark done with N children" (one edit).
On a heading: "Mark section done (N items)". On a plain list item: "Convert to task". In a
markdown file that is not subscribed: "Subscribe this file". The edits ride in the action
(`changes`), so the editor applies them directly; quick fixes that close an item link its
diagnostic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from todo_ls import checklist  # its functions load on first use
from todo_ls.checklist import STATES, StateRegistry, TaskItem
from todo_ls.payloads import SUBSCRIBE
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.edits import workspace_edit
from todo_ls.server.positions import Encoding
from todo_ls.workspace import FileState, uri_to_path

if TYPE_CHECKING:
    from todo_ls.checklist import MarkerEdit

QUICK_FIX = types.CodeActionKind.QuickFix


def _action(
    title: str,
    state: FileState,
    edits: Sequence[MarkerEdit],
    encoding: Encoding,
    diagnostics: Sequence[types.Diagnostic] = (),
    preferred: bool = False,
) -> types.CodeAction:
    return types.CodeAction(
        title=title,
        kind=QUICK_FIX,
        edit=workspace_edit(state, edits, encoding),
        diagnostics=list(diagnostics) or None,
        is_preferred=preferred or None,
    )


def item_actions(
    state: FileState,
    item: TaskItem,
    registry: StateRegistry,
    encoding: Encoding,
    diagnostics: Sequence[types.Diagnostic] = (),
) -> list[types.CodeAction]:
    """The actions for one task item; `diagnostics` are the item's own diagnostics."""
    parsed = state.checklist

    def to(state_name: str, indices: Sequence[int] = (item.index,)) -> list[MarkerEdit]:
        return checklist.set_state_edits(parsed, indices, state_name, registry)

    closing = diagnostics if item.is_open else ()
    actions = []
    if item.state != "done":
        actions.append(_action("Mark done", state, to("done"), encoding, closing, True))
    children = checklist.descendants(parsed, item.index)
    open_children = [i for i in children if parsed.items[i].is_open]
    if open_children:
        edits = to("done", [item.index, *open_children])
        count = len(open_children)
        title = f"Mark done with {count} {'child' if count == 1 else 'children'}"
        actions.append(_action(title, state, edits, encoding, closing))
    if item.state != "canceled":
        actions.append(_action("Cancel", state, to("canceled"), encoding, closing))
    if not item.is_open:
        actions.append(_action("Reopen", state, to("open"), encoding))
    # One action per state: the states Mark done / Cancel / Reopen set are not offered again.
    offered = {item.state, "done", "canceled"} | (set() if item.is_open else {"open"})
    for other in STATES:
        if other not in offered and other in registry.markers:
            actions.append(_action(f"Set state: {other}", state, to(other), encoding))
    return actions


def line_actions(
    state: FileState,
    line: int,
    registry: StateRegistry,
    encoding: Encoding,
    diagnostics: Sequence[types.Diagnostic] = (),
) -> list[types.CodeAction]:
    """Every action for `line` of a subscribed document."""
    parsed = state.checklist
    item = next((i for i in parsed.items if i.line == line), None)
    if item is not None:
        return item_actions(state, item, registry, encoding, diagnostics)
    heading = next((h for h in parsed.headings if h.line == line), None)
    if heading is not None:
        open_items = [i.index for i in checklist.section_items(parsed, heading.index) if i.is_open]
        if not open_items:
            return []
        edits = checklist.set_state_edits(parsed, open_items, "done", registry)
        title = f"Mark section done ({len(open_items)} items)"
        return [_action(title, state, edits, encoding)]
    plain = next((p for p in parsed.plain_items if p.line == line), None)
    if plain is not None:
        return [
            _action("Convert to task", state, [checklist.convert_to_task_edit(plain)], encoding)
        ]
    return []


def subscribe_action(uri: str) -> types.CodeAction:
    return types.CodeAction(
        title="Subscribe this file",
        kind=QUICK_FIX,
        command=types.Command(
            title="Subscribe this file", command=SUBSCRIBE, arguments=[{"uri": uri}]
        ),
    )


def _wanted(only: Sequence[str] | None) -> bool:
    # `only` filters by kind prefix: quickfix matches "quickfix" and "" (all kinds).
    return only is None or any(QUICK_FIX.value.startswith(k) for k in only)


def register(server: TodoLanguageServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[QUICK_FIX], resolve_provider=False),
    )
    def on_code_action(
        ls: TodoLanguageServer, params: types.CodeActionParams
    ) -> list[types.CodeAction]:
        uri = params.text_document.uri
        path = uri_to_path(uri)
        if path is None or not _wanted(params.context.only):
            return []
        if not ls.workspace_index.is_subscribed(path):
            doc = ls.workspace.text_documents.get(uri)
            is_markdown = (doc is not None and doc.language_id == "markdown") or (
                path.suffix.lower() in (".md", ".markdown")
            )
            return [subscribe_action(uri)] if is_markdown else []
        state = ls.workspace_index.state(path)
        line = params.range.start.line
        own = [
            d
            for d in params.context.diagnostics
            if d.source == "todo-ls" and d.range.start.line == line
        ]
        return line_actions(state, line, ls.registry, ls.encoding, own)
