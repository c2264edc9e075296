"""`parse`: markdown text -> `Checklist`."""

from __future__ import annotations

from todo_ls.checklist.model import Checklist, StateRegistry
from todo_ls.checklist.reference import reference_parse


def parse(text: str, registry: StateRegistry | None = None) -> Checklist:
    """Find the task items, plain list items and headings of a markdown document.

    `registry` None means the default states of DESIGN.md.
    """
    return reference_parse(text, registry)
