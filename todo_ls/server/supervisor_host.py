"""The language server as the supervisor service's host (`supervisor.service.ServiceHost`).

The service runs below the server and reaches it only through this class: the settings the
`Configuration` holds (the connection's from the first folder, each folder's own
`supervisor.*`), the workspace index's folders and items, the server's store, the coalesced
`todoLs/status` publisher and `window/showMessage`. No pygls import: the server hands in the
calls it makes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:  # the supervisor's parts load when it starts, after the `initialize` answer
    from todo_ls.server.configuration import Configuration
    from todo_ls.settings.model import SupervisorSettings
    from todo_ls.store import Store
    from todo_ls.supervisor.delivery import NudgeSent
    from todo_ls.supervisor.workspace_items import IndexWorkspace
    from todo_ls.workspace import WorkspaceIndex

log = logging.getLogger(__name__)


class EditorHost:
    """`ServiceHost` over the language server's parts (built once, in server/core.py)."""

    def __init__(
        self,
        configuration: Configuration,
        index: WorkspaceIndex,
        store: Callable[[], Store | None],
        publish: Callable[[], None],
        show: Callable[[types.ShowMessageParams], None],
    ) -> None:
        """`store`: the server's store now (it is reopened when `stateDir` changes);
        `publish`: ask for a new `todoLs/status`; `show`: `window/showMessage`."""
        self._configuration = configuration
        self._store = store
        self._publish = publish
        self._show = show
        self._index = index

    @property
    def workspace(self) -> IndexWorkspace:
        from todo_ls.supervisor.workspace_items import IndexWorkspace

        return IndexWorkspace(self._index)

    def supervisor_settings(self) -> SupervisorSettings:
        return self._configuration.settings.supervisor

    def supervisor_enabled(self) -> bool:
        return self._configuration.supervisor_enabled

    def folder_settings(self, folder: str) -> SupervisorSettings | None:
        return self._configuration.folder_supervisor(folder)

    def shared_store(self) -> Store | None:
        return self._store()

    def state_dir(self) -> Path | None:
        state_dir = self._configuration.settings.state_dir
        return Path(state_dir).expanduser() if state_dir else None

    def status_changed(self) -> None:
        self._publish()

    def show_message(self, text: str) -> None:
        try:
            self._show(
                types.ShowMessageParams(type=types.MessageType.Info, message=f"todo-ls: {text}")
            )
        except Exception:
            log.exception("supervisor: could not show a message")

    def nudged(self, sent: NudgeSent) -> None:
        """Nothing more to do: the status shows the count, `show_message` the nudge."""
