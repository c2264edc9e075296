"""Open documents with LSP's lines: the editor's text, kept in step with its changes.

pygls's `TextDocument` splits its text with `str.splitlines`, which also ends a line at
U+2028, U+2029, NEL, form feed and vertical tab, and it lets a column past the end of a line
eat that line's line end. LSP has three line ends (`\\n`, `\\r\\n`, `\\r`) and says a column
past the end of a line means its end. Every incremental edit below such a character, or with
such a column, would land elsewhere in the server's copy than in the editor's, and a toggle
would then rewrite the wrong characters. `LspTextDocument` applies changes by LSP's rules
(`checklist.lines.replace_range`) and keeps its lines, which the workspace index reuses;
`LspWorkspace` makes every open document one (server/protocol.py installs it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

from todo_ls.checklist.lines import replace_range, split_lines
from todo_ls.server.positions import Encoding

# A line with its line end, as pygls's `TextDocument.lines` gives them.
_LINE_WITH_END = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


class LspTextDocument(TextDocument):
    """A `TextDocument` whose lines and changes follow LSP (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._text_lines: list[str] | None = None

    @property
    def text_lines(self) -> list[str]:
        """The lines without their line ends (`checklist.lines.split_lines`)."""
        if self._text_lines is None:
            self._text_lines = split_lines(self.source)
        return self._text_lines

    @property
    def lines(self) -> Sequence[str]:
        """The lines with their line ends (pygls's shape), split by LSP's rule."""
        return tuple(_LINE_WITH_END.findall(self.source))

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        lines = self.text_lines
        encoding = Encoding.of(self.position_codec.encoding)

        def point(position: types.Position) -> tuple[int, int]:
            if position.line >= len(lines):
                return len(lines), 0  # past the last line: the end of the text
            text = lines[position.line]
            return position.line, encoding.code_point(text, position.character)

        self._source, self._text_lines = replace_range(
            self.source, lines, point(change.range.start), point(change.range.end), change.text
        )

    def _apply_full_change(self, change: types.TextDocumentContentChangeEvent) -> None:
        super()._apply_full_change(change)
        self._text_lines = None


class LspWorkspace(Workspace):
    """pygls's `Workspace` holding `LspTextDocument`s."""

    @classmethod
    def like(cls, workspace: Workspace) -> LspWorkspace:
        """An empty `LspWorkspace` with the root, folders, sync kind and position encoding of
        `workspace` (the one pygls builds on `initialize`, before any document is open)."""
        return cls(
            workspace.root_uri,
            workspace._sync_kind,
            list(workspace.folders.values()),
            workspace.position_encoding,
        )

    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return LspTextDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self.position_codec,
        )
