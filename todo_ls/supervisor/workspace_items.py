"""What the supervisor needs of the workspace: its folders and their subscribed files' items."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from todo_ls.checklist import file_items
from todo_ls.checklist.model import FileItem
from todo_ls.workspace import WorkspaceIndex


class Workspace(Protocol):
    """The folders and items the supervisor decides with (the language server's index, or
    the headless command's)."""

    def folders(self) -> Sequence[str]:
        """Absolute paths of the workspace folders."""
        ...

    def file_items(self, folder: str) -> list[FileItem]:
        """Every task item of the folder's subscribed files, closed ones included (fresh)."""
        ...


class IndexWorkspace:
    """`Workspace` over a `WorkspaceIndex`: every item of the subscribed files, closed ones
    included, so nudges can say "3 of 7 left"."""

    def __init__(self, index: WorkspaceIndex) -> None:
        self._index = index

    def folders(self) -> Sequence[str]:
        return [folder.key for folder in self._index.folders]

    def file_items(self, folder: str) -> list[FileItem]:
        found: list[FileItem] = []
        for candidate in self._index.folders:
            if candidate.key == folder:
                for path in self._index.subscribed(candidate):
                    state = self._index.state(path)
                    found += file_items(state.checklist, candidate.relative(path))
        return found
