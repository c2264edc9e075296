"""The checklist engine: pure parsing, states, progress and marker edits (no pygls, no I/O)."""

from todo_ls.checklist.edits import (
    MarkerEdit,
    apply_edits,
    convert_to_task_edit,
    set_state_edits,
    toggle_state,
)
from todo_ls.checklist.model import (
    CLOSED_STATES,
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
from todo_ls.checklist.parse import parse
from todo_ls.checklist.progress import (
    descendants,
    document_progress,
    file_items,
    heading_progress,
    item_progress,
    section_items,
)

__all__ = [
    "CLOSED_STATES",
    "OPEN_STATES",
    "STATES",
    "Checklist",
    "FileItem",
    "Heading",
    "MarkerEdit",
    "PlainListItem",
    "Progress",
    "StateRegistry",
    "TaskItem",
    "apply_edits",
    "convert_to_task_edit",
    "descendants",
    "document_progress",
    "file_items",
    "heading_progress",
    "item_progress",
    "parse",
    "section_items",
    "set_state_edits",
    "toggle_state",
]
