"""How much of a session's own todo list is open: computed by `todos/editor_list.py`, shown
in each session's entry of the status (`supervisor/session_record.py`)."""

from __future__ import annotations

from dataclasses import dataclass

from todo_ls.payloads import SessionTodos


@dataclass(frozen=True)
class TodoCount:
    """How much of a session's own todo list is open (`open`: pending and in progress)."""

    open: int
    total: int

    def to_wire(self) -> SessionTodos:
        """The status entry's `todos` object."""
        return {"open": self.open, "total": self.total}
