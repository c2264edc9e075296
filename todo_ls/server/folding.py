"""`textDocument/foldingRange` (sections, items with children, runs of finished items) and
`todoLs.foldDone {uri}` → `{ranges: [{startLine, endLine}]}`, the runs alone, for the
editors' "fold done items" actions (checklist.folding says what counts).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from todo_ls import checklist as engine  # engine functions load on first use
from todo_ls.server.commands import field_of, one_object
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.document_symbols import CACHED_DOCUMENTS
from todo_ls.server.wire import RawJson
from todo_ls.workspace import FileState, uri_to_path

if TYPE_CHECKING:
    from todo_ls.checklist import Fold

REGION = types.FoldingRangeKind.Region.value


def subscribed_state(ls: TodoLanguageServer, uri: str) -> FileState | None:
    """The parsed state of `uri` when it is a subscribed file, else None."""
    path = uri_to_path(uri)
    if path is None or not ls.workspace_index.is_subscribed(path):
        return None
    return ls.workspace_index.state(path)


def encode_folds(folds: list[Fold], collapsed_text: bool) -> str:
    """Folding ranges as a JSON array (line folding only: no characters)."""
    out = []
    for fold in folds:
        text = f',"collapsedText":{json.dumps(fold.collapsed)}' if fold.collapsed else ""
        out.append(
            f'{{"startLine":{fold.start},"endLine":{fold.end},"kind":"{REGION}"'
            f"{text if collapsed_text else ''}}}"
        )
    return "[" + ",".join(out) + "]"


def register(server: TodoLanguageServer) -> None:
    # The last answer per document, while its state and the client's limits are the same.
    cache: dict[str, tuple[tuple[Any, ...], str]] = {}

    @server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
    async def on_folding_range(
        ls: TodoLanguageServer, params: types.FoldingRangeParams
    ) -> RawJson | None:
        await ls.configuration.ready()  # the subscriptions come with the settings
        uri = params.text_document.uri
        state = subscribed_state(ls, uri)
        if state is None:
            cache.pop(uri, None)
            return None  # other markdown is another server's
        limit = getattr(
            getattr(ls.client_capabilities.text_document, "folding_range", None),
            "range_limit",
            None,
        )
        collapsed = ls.supports("text_document.folding_range.folding_range.collapsed_text")
        key = (state, limit, collapsed)
        cached = cache.get(uri)
        if cached is None or cached[0] != key:
            folds = engine.folding_ranges(state.checklist, state.lines)
            cache.pop(uri, None)
            while len(cache) >= CACHED_DOCUMENTS:  # the oldest first (dicts keep order)
                del cache[next(iter(cache))]
            cached = cache[uri] = (key, encode_folds(folds[:limit] if limit else folds, collapsed))
        return RawJson(cached[1])

    @server.command("todoLs.foldDone")
    async def fold_done(ls: TodoLanguageServer, *args: Any) -> dict[str, Any]:
        obj = one_object("todoLs.foldDone", args)
        uri: str = field_of("todoLs.foldDone", obj, "uri", str)
        await ls.configuration.ready()
        state = subscribed_state(ls, uri)
        runs = engine.closed_runs(state.checklist, state.lines) if state is not None else []
        return {"ranges": [{"startLine": r.start, "endLine": r.end} for r in runs]}
