"""The MCP tests reuse the fake OpenCode 2.x server and the scenario helpers of the host tests
by importing them from their folder rather than copying them."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The project folder `todo-ls mcp` serves."""
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def state(tmp_path: Path) -> Path:
    """The todo-ls state folder (the store and the context snapshots)."""
    return tmp_path / "state"
