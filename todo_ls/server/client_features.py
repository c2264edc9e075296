"""`ClientFeatures`: what the client said it can do, resolved once at `initialize`.

Feature modules read named fields (`ls.client_features.apply_edit`) instead of walking
`ClientCapabilities` by dotted strings, where a misspelt path is silently False. A capability
the client did not send is False (or None), so the server keeps to what every client takes.
"""

from __future__ import annotations

import dataclasses

from lsprotocol import types
from pygls.capabilities import ServerCapabilitiesBuilder

from todo_ls.server.positions import Encoding


@dataclasses.dataclass(frozen=True)
class ClientFeatures:
    """The client capabilities todo-ls acts on, one field per decision."""

    # The position encoding: pygls's own choice from the same capabilities, so that the
    # columns written here agree with the ones pygls applies to document changes.
    encoding: Encoding = Encoding.UTF16
    # Diagnostics are pulled (`textDocument/diagnostic`): never push them.
    pull_diagnostics: bool = False
    diagnostic_refresh: bool = False  # `workspace/diagnostic/refresh`
    inlay_hint_refresh: bool = False  # `workspace/inlayHint/refresh`
    code_lens_refresh: bool = False  # `workspace/codeLens/refresh`
    apply_edit: bool = False  # `workspace/applyEdit`
    configuration: bool = False  # `workspace/configuration`
    # `workspace/didChangeWatchedFiles` can be registered at run time (else the server polls).
    file_watcher_registration: bool = False
    work_done_progress: bool = False  # `window/workDoneProgress/create`
    # Document symbols as a tree (`DocumentSymbol[]`) rather than a flat list.
    hierarchical_symbols: bool = False
    symbol_tags: bool = False  # symbols may carry tags (Deprecated marks a closed item)
    folding_collapsed_text: bool = False  # folding ranges may carry `collapsedText`
    folding_range_limit: int | None = None  # at most this many folding ranges; None: no limit

    @classmethod
    def from_capabilities(cls, capabilities: types.ClientCapabilities) -> ClientFeatures:
        """The features `capabilities` (from `InitializeParams`) advertise."""
        workspace = capabilities.workspace or types.WorkspaceClientCapabilities()
        text = capabilities.text_document or types.TextDocumentClientCapabilities()
        window = capabilities.window or types.WindowClientCapabilities()
        symbols = text.document_symbol or types.DocumentSymbolClientCapabilities()
        folding = text.folding_range or types.FoldingRangeClientCapabilities()
        watched = workspace.did_change_watched_files
        diagnostics = workspace.diagnostics
        return cls(
            encoding=Encoding.of(ServerCapabilitiesBuilder.choose_position_encoding(capabilities)),
            pull_diagnostics=text.diagnostic is not None,
            diagnostic_refresh=bool(diagnostics and diagnostics.refresh_support),
            inlay_hint_refresh=bool(workspace.inlay_hint and workspace.inlay_hint.refresh_support),
            code_lens_refresh=bool(workspace.code_lens and workspace.code_lens.refresh_support),
            apply_edit=bool(workspace.apply_edit),
            configuration=bool(workspace.configuration),
            file_watcher_registration=bool(watched and watched.dynamic_registration),
            work_done_progress=bool(window.work_done_progress),
            hierarchical_symbols=bool(symbols.hierarchical_document_symbol_support),
            symbol_tags=symbols.tag_support is not None,
            folding_collapsed_text=bool(
                folding.folding_range and folding.folding_range.collapsed_text
            ),
            folding_range_limit=folding.range_limit,
        )
