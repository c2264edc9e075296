"""The bridge between the language server and the supervisor runtime.

CONTRACT STUB — until the supervisor lands, every supervisor command answers that the
supervisor is not running. The server calls only these methods.
"""

from __future__ import annotations

from typing import Any


class Supervision:
    """Owned by the language server; starts and stops the supervisor runtime."""

    def __init__(self, ls: Any) -> None:
        self._ls = ls

    def start(self) -> None:
        """Called from `initialized` (after settings are loaded): start background tasks."""

    async def stop(self) -> None:
        """Called from `shutdown`: cancel background tasks, close HTTP clients."""

    def settings_changed(self) -> None:
        """Settings were re-read."""

    def files_changed(self) -> None:
        """A subscribed file or the subscription set changed: re-evaluate sessions."""

    def status(self) -> dict[str, Any]:
        """The `supervisor` part of `todoLs/status` (camelCase wire shape)."""
        return {"enabled": False, "host": None, "sessions": []}

    def state_word(self) -> str | None:
        """One word for the status text (`working`, `idle`, …) or None."""
        return None

    async def nudge(self, session_id: str | None) -> dict[str, Any]:
        return {"sent": [], "skipped": [{"sessionID": session_id, "reason": "supervisor not running"}]}

    async def pause(self, session_id: str | None) -> dict[str, Any]:
        return {"sessions": [], "reason": "supervisor not running"}

    async def resume(self, session_id: str | None) -> dict[str, Any]:
        return {"sessions": [], "reason": "supervisor not running"}
