"""`parse`: markdown text -> `Checklist`."""

from __future__ import annotations

from collections.abc import Callable

from todo_ls.checklist.model import Checklist, StateRegistry
from todo_ls.checklist.scan_loader import SCANNER

# The scanner's `scan`, compiled or pure (`scan_loader.py` chooses).
_scan: Callable[[str, StateRegistry | None], Checklist] = SCANNER.scan


def parse(text: str, registry: StateRegistry | None = None) -> Checklist:
    """Find the task items, plain list items and headings of a markdown document.

    `registry` None means the default states (docs/checklists.md). The result equals what the
    markdown-it-py reference (`todo_ls.checklist.reference.reference_parse`) finds.
    """
    return _scan(text, registry)
