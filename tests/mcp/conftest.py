"""The MCP tests reuse the fake OpenCode 2.x server and the scenario helpers of the host tests
by importing them from their folder rather than copying them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HOSTS = Path(__file__).resolve().parents[1] / "hosts"
if str(HOSTS) not in sys.path:
    sys.path.append(str(HOSTS))


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
