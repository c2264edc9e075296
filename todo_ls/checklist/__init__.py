"""The checklist engine: pure parsing, states, progress and marker edits (no pygls, no I/O).

The model (`model.py`: states, items, the registry) loads with the package. The engine
functions (parse, edits, progress, incremental re-parse) load on their first use, so that a
language server answers `initialize` without them (a cold start the user waits for): name them as
attributes of the package (`checklist.parse(...)`) where that matters.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from todo_ls.checklist.model import (
    CLOSED_STATES,
    DEFAULT_STATES,
    OPEN_STATES,
    STATES,
    Checklist,
    FileItem,
    Heading,
    PlainListItem,
    Progress,
    StateRegistry,
    TaskItem,
)

if TYPE_CHECKING:
    from todo_ls.checklist.edits import (
        MarkerEdit,
        apply_edits,
        convert_to_task_edit,
        locate_item,
        set_state_edits,
        toggle_state,
    )
    from todo_ls.checklist.folding import (
        Fold,
        closed_runs,
        folding_ranges,
        heading_folds,
        item_folds,
        one_per_line,
    )
    from todo_ls.checklist.fuzzy import (
        OpenItems,
        fuzzy_match,
        fuzzy_pattern,
        match_rank,
        open_task_items,
        rare_run,
        scans_backward,
        substring_needle,
    )
    from todo_ls.checklist.incremental import reparse
    from todo_ls.checklist.inline_text import plain_text, plain_texts
    from todo_ls.checklist.parse import parse
    from todo_ls.checklist.progress import (
        descendants,
        document_progress,
        file_items,
        heading_progress,
        item_progress,
        section_items,
    )
    from todo_ls.checklist.symbols import (
        NO_TEXT,
        Node,
        Outline,
        Symbol,
        document_symbols,
        node_symbol,
        progress_label,
        section_end,
        symbol_name,
        text_span,
    )

_ENGINE = {
    "todo_ls.checklist.edits": (
        "MarkerEdit",
        "apply_edits",
        "convert_to_task_edit",
        "locate_item",
        "set_state_edits",
        "toggle_state",
    ),
    "todo_ls.checklist.folding": (
        "Fold",
        "closed_runs",
        "folding_ranges",
        "heading_folds",
        "item_folds",
        "one_per_line",
    ),
    "todo_ls.checklist.fuzzy": (
        "OpenItems",
        "fuzzy_match",
        "fuzzy_pattern",
        "match_rank",
        "open_task_items",
        "rare_run",
        "scans_backward",
        "substring_needle",
    ),
    "todo_ls.checklist.incremental": ("reparse",),
    "todo_ls.checklist.inline_text": ("plain_text", "plain_texts"),
    "todo_ls.checklist.parse": ("parse",),
    "todo_ls.checklist.progress": (
        "descendants",
        "document_progress",
        "file_items",
        "heading_progress",
        "item_progress",
        "section_items",
    ),
    "todo_ls.checklist.symbols": (
        "NO_TEXT",
        "Node",
        "Symbol",
        "document_symbols",
        "Outline",
        "node_symbol",
        "progress_label",
        "section_end",
        "symbol_name",
        "text_span",
    ),
}
_MODULE_OF = {name: module for module, names in _ENGINE.items() for name in names}


def __getattr__(name: str) -> object:
    """Load an engine function's module on first use (PEP 562)."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


__all__ = [
    "CLOSED_STATES",
    "DEFAULT_STATES",
    "NO_TEXT",
    "OPEN_STATES",
    "STATES",
    "Checklist",
    "FileItem",
    "Fold",
    "Heading",
    "MarkerEdit",
    "Node",
    "OpenItems",
    "Outline",
    "PlainListItem",
    "Progress",
    "StateRegistry",
    "Symbol",
    "TaskItem",
    "apply_edits",
    "closed_runs",
    "convert_to_task_edit",
    "descendants",
    "document_progress",
    "document_symbols",
    "file_items",
    "folding_ranges",
    "fuzzy_match",
    "fuzzy_pattern",
    "heading_folds",
    "heading_progress",
    "item_folds",
    "item_progress",
    "locate_item",
    "match_rank",
    "node_symbol",
    "one_per_line",
    "open_task_items",
    "parse",
    "plain_text",
    "plain_texts",
    "progress_label",
    "rare_run",
    "reparse",
    "scans_backward",
    "section_end",
    "section_items",
    "set_state_edits",
    "substring_needle",
    "symbol_name",
    "text_span",
    "toggle_state",
]
