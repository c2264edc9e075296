"""Fixtures for the host tests: the scripted fake model and a real OpenCode 1.x server.

The server binary comes from scripts/setup-opencode.sh; when it is missing the tests fail and
say so (they are never skipped).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.fake_model import FakeModel
from support.scenarios import OpencodeServer

PASSWORD = "pw-7Qx-not-in-logs"


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    with FakeModel() as model:
        yield model


@pytest.fixture
def opencode(tmp_path: Path, fake_model: FakeModel) -> Iterator[OpencodeServer]:
    """A real `opencode serve` without auth."""
    server = OpencodeServer(tmp_path, fake_model).start()
    yield server
    server.stop()


@pytest.fixture
def opencode_pw(tmp_path: Path, fake_model: FakeModel) -> Iterator[OpencodeServer]:
    """A real `opencode serve` with `OPENCODE_SERVER_PASSWORD` = `PASSWORD`."""
    server = OpencodeServer(tmp_path, fake_model, password=PASSWORD).start()
    yield server
    server.stop()
