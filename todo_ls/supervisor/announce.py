"""Telling the human about nudges (docs/supervisor.md, "Telling the human").

A toast in the host's TUI where it can, else the editor. One toast at a time: nudges sent while
one is on its way share the next (`text.announcement`), so 200 sessions nudged together make a
few toasts, not 200 requests queued in front of the next nudges.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import Any

from todo_ls.hosts.base import Capability, Host, HostError
from todo_ls.supervisor.text import announcement

log = logging.getLogger(__name__)


class Announcer:
    """The nudges of one runtime the human was not told of yet."""

    def __init__(
        self,
        spawn: Callable[[Coroutine[Any, Any, Any], str], None],
        tell_user: Callable[[str], None] | None,
    ) -> None:
        self._spawn = spawn
        self._tell_user = tell_user
        self._unannounced: list[tuple[str, str]] = []  # (title, headline)
        self._announcing = False

    def announce(self, host: Host, title: str, headline: str) -> None:
        """Tell the human of one nudge, in the background."""
        self._unannounced.append((title, headline))
        if not self._announcing:
            self._announcing = True
            self._spawn(self._pending(host), "announcing a nudge")

    async def _pending(self, host: Host) -> None:
        try:
            while self._unannounced:
                message = announcement(self._unannounced)
                self._unannounced = []
                shown = False
                if Capability.TOAST in host.capabilities:
                    try:
                        shown = await host.toast("todo-ls", message, "info")
                    except HostError as err:
                        log.info("supervisor: toast failed: %s", err)
                if not shown and self._tell_user is not None:
                    self._tell_user(message)
        finally:
            self._announcing = False
