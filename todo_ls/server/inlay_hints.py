"""Inlay hints: `3/7 done` (plus `· 1 canceled`) after each heading and parent item."""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from lsprotocol import types

from todo_ls import checklist  # its functions load on first use
from todo_ls.checklist import Progress
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.positions import Encoding
from todo_ls.workspace import FileState, uri_to_path


def progress_hints(
    state: FileState, first_line: int, last_line: int, encoding: Encoding
) -> list[types.InlayHint]:
    """Hints for the headings and parent items on lines `first_line..last_line` (inclusive)
    that own at least one item, placed at the end of their line."""
    parsed = state.checklist
    found: list[tuple[int, Progress]] = []
    heading_lines = [h.line for h in parsed.headings]
    for heading in parsed.headings[
        bisect_left(heading_lines, first_line) : bisect_right(heading_lines, last_line)
    ]:
        found.append((heading.line, checklist.heading_progress(parsed, heading.index)))
    item_lines = [i.line for i in parsed.items]
    for item in parsed.items[
        bisect_left(item_lines, first_line) : bisect_right(item_lines, last_line)
    ]:
        found.append((item.line, checklist.item_progress(parsed, item.index)))
    lines = state.lines
    return [
        types.InlayHint(
            position=encoding.position(lines, line, len(lines[line]) if line < len(lines) else 0),
            label=checklist.progress_label(progress),
            padding_left=True,
        )
        for line, progress in sorted(found, key=lambda f: f[0])
        if progress.total
    ]


def register(server: TodoLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT)
    async def on_inlay_hint(
        ls: TodoLanguageServer, params: types.InlayHintParams
    ) -> list[types.InlayHint]:
        await ls.configuration.ready()  # settings being fetched decide what to show
        path = uri_to_path(params.text_document.uri)
        if (
            not ls.settings_for(path).inlay_hints.enabled
            or path is None
            or not ls.workspace_index.is_subscribed(path)
        ):
            return []
        state = ls.workspace_index.state(path)
        return progress_hints(state, params.range.start.line, params.range.end.line, ls.encoding)
