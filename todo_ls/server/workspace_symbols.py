"""`workspace/symbol`: the open items of every subscribed file of every workspace folder that
fuzzy-match the query (checklist.fuzzy), the cross-file "all open todos" picker (VS Code
`Ctrl+T`, Telescope / fzf-lua / snacks `lsp_workspace_symbols`).

Each answer reads every subscribed file through the workspace index, which re-checks an
unopened file's size and mtime first: an item the agent ticked on disk is gone from the next
answer, as it is from the diagnostics. Each entry's `containerName` is `path › heading` (the
path relative to its workspace folder); at most `LIMIT` entries, in folder, file and document
order.
"""

from __future__ import annotations

import json
import weakref
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from todo_ls import checklist  # its functions load on first use
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.document_symbols import COMPACT, ITEM_KIND
from todo_ls.server.wire import RawJson
from todo_ls.workspace import FileState

if TYPE_CHECKING:
    from todo_ls.checklist import OpenItems

LIMIT = 1000
SEPARATOR = " › "

# The searchable open items of each parsed file, for as long as that parse is in use.
_open_items: weakref.WeakKeyDictionary[FileState, OpenItems] = weakref.WeakKeyDictionary()


def open_items_of(state: FileState) -> OpenItems:
    found = _open_items.get(state)
    if found is None:
        found = _open_items[state] = checklist.OpenItems(state.checklist)
    return found


def workspace_symbols(ls: TodoLanguageServer, query: str, limit: int = LIMIT) -> str:
    """The matching open items as a JSON array of `SymbolInformation`."""
    pattern = checklist.fuzzy_pattern(query)
    encoding = ls.encoding
    index = ls.workspace_index
    out: list[dict[str, Any]] = []
    for folder, path in index.all_subscribed():
        state = index.state(path)
        if not state.checklist.items:
            continue
        headings = state.checklist.headings
        rel = folder.relative(path)
        for item in open_items_of(state).search(pattern):
            line = state.lines[item.line] if item.line < len(state.lines) else ""
            start, end = checklist.text_span(line, item.text, item.marker_col + 2)
            heading = headings[item.heading].text if item.heading is not None else ""
            out.append(
                {
                    "name": item.text or checklist.NO_TEXT,
                    "kind": ITEM_KIND,
                    "location": {
                        "uri": state.uri,
                        "range": {
                            "start": {"line": item.line, "character": encoding.column(line, start)},
                            "end": {"line": item.line, "character": encoding.column(line, end)},
                        },
                    },
                    "containerName": rel + SEPARATOR + heading if heading else rel,
                }
            )
            if len(out) >= limit:
                return json.dumps(out, separators=COMPACT)
    return json.dumps(out, separators=COMPACT)


def register(server: TodoLanguageServer) -> None:
    @server.feature(types.WORKSPACE_SYMBOL)
    async def on_workspace_symbol(
        ls: TodoLanguageServer, params: types.WorkspaceSymbolParams
    ) -> RawJson:
        await ls.configuration.ready()  # the subscriptions come with the settings
        return RawJson(workspace_symbols(ls, params.query))
