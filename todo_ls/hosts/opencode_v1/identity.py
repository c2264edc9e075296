"""OpenCode 1.x: recognising a 1.x server by its `GET /global/health` body."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def version_of(body: Any, major: str = "1") -> str | None:
    """The version in a `/global/health` body `{"healthy": true, "version": "1.…"}` (of the
    `major` line: Kilo's 7.x serves the same API), None when it is not one (OpenCode answers
    unknown paths with 200 and its web page)."""
    if isinstance(body, Mapping) and body.get("healthy") is True:
        version = body.get("version")
        return version if isinstance(version, str) and version.startswith(f"{major}.") else None
    return None
