"""`textDocument/foldingRange` (sections, items with children, runs of finished items) and
`todoLs.foldDone {uri}` → `{ranges: [{startLine, endLine}]}`, the runs alone, for the
editors' "fold done items" actions (checklist.folding says what counts).
"""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from todo_ls import checklist  # its functions load on first use
from todo_ls.payloads import FOLD_DONE, FoldDoneResult
from todo_ls.server.commands import one_object, uri_of
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.document_cache import DocumentCache
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


_Part = tuple[list["Fold"], str]  # a heading's part: its item folds, and them as JSON


def encode_all(
    state: FileState, collapsed_text: bool, limit: int | None, previous: dict[Any, _Part]
) -> tuple[str, dict[Any, _Part]]:
    """The document's folding ranges as JSON, and each heading's part (its line and the lines
    up to the next heading: the item folds there, encoded) for the next version to reuse where
    the part's lines are unchanged; a part's item folds depend on its own lines only
    (checklist.folding.item_folds). A heading's own fold (its whole section, subsections
    included) is written directly: no fold object for it unless a range limit needs the list."""
    parsed, lines = state.checklist, state.lines
    headings = parsed.headings
    item_lines = [item.line for item in parsed.items]
    parts: dict[Any, _Part] = {}
    pieces: list[str] = []
    every: list[Fold] = []  # every fold in order, kept only to cut at `limit`
    starts = [0, *(h.line for h in headings), len(lines)]
    for n in range(len(headings) + 1):
        heading = headings[n - 1] if n else None
        if heading is not None:  # the heading's section first: it starts before its items
            end = checklist.section_end(lines, heading)
            if end > heading.line:
                pieces.append(f'{{"startLine":{heading.line},"endLine":{end},"kind":"{REGION}"}}')
                if limit:
                    every.append(checklist.Fold(heading.line, end))
        key = (starts[n], tuple(lines[starts[n] : starts[n + 1]]))
        part = previous.get(key)
        if part is None:
            first = bisect_right(item_lines, heading.line) if heading is not None else 0
            owned = range(first, bisect_left(item_lines, starts[n + 1]))
            folds = checklist.one_per_line(checklist.item_folds(parsed, lines, owned))
            part = (folds, encode_folds(folds, collapsed_text)[1:-1])
        parts[key] = part
        if limit:
            every += part[0]
        if part[1]:
            pieces.append(part[1])
    if limit and len(every) > limit:
        return encode_folds(every[:limit], collapsed_text), parts
    return "[" + ",".join(pieces) + "]", parts


def register(server: TodoLanguageServer) -> None:
    # Per document: what the answer depends on, the answer, and its parts' item folds.
    cache: DocumentCache[tuple[tuple[Any, ...], RawJson, dict[Any, _Part]]] = DocumentCache()
    server.document_caches.append(cache)

    @server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
    async def on_folding_range(
        ls: TodoLanguageServer, params: types.FoldingRangeParams
    ) -> RawJson | None:
        await ls.configuration.ready()  # the subscriptions come with the settings
        uri = params.text_document.uri
        state = subscribed_state(ls, uri)
        if state is None:
            cache.drop(uri)
            return None  # other markdown is another server's
        limit = ls.client_features.folding_range_limit
        collapsed = ls.client_features.folding_collapsed_text
        key = (state, ls.registry)
        cached = cache.get(uri)
        if cached is None or cached[0] != key:
            same_markers = cached is not None and cached[0][1] == key[1]
            text, parts = encode_all(
                state, collapsed, limit, cached[2] if cached and same_markers else {}
            )
            cached = (key, RawJson(text), parts)
            cache.put(uri, cached, 3 * len(text))  # the parts: about twice the JSON
        return cached[1]

    @server.command(FOLD_DONE)
    async def fold_done(ls: TodoLanguageServer, *args: Any) -> FoldDoneResult:
        obj = one_object(FOLD_DONE, args)
        uri: str = uri_of(FOLD_DONE, obj)
        await ls.configuration.ready()
        state = subscribed_state(ls, uri)
        runs = checklist.closed_runs(state.checklist, state.lines) if state is not None else []
        return {"ranges": [{"startLine": r.start, "endLine": r.end} for r in runs]}
