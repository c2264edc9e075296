"""Fixtures of the pytest-lsp end-to-end tests; the harness itself is lsp_harness.py.

Every test runs twice: with Neovim 0.11's capabilities (utf-8, pull diagnostics, inlay hints)
and with a modern VS Code set (utf-16, pull diagnostics, inlay-hint and code-lens refresh,
applyEdit, dynamic file-watcher registration). `@pytest.mark.client(**features)` turns
features of that client on or off for one test (`lsp_harness.capabilities`).

After every test, each server it talked to must have had every message handled: a
`window/showMessage` the test did not take, or a refresh request its client did not
advertise, fails the test and is named (`Editor.unhandled`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from pytest_lsp import LanguageClient
from support.lsp_harness import PLAN, STARTED, TIMEOUT, Editor, start_editor


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "client(**features): the `editor` client's features for this test"
    )


@pytest.fixture(autouse=True)
def every_server_message_handled() -> Iterator[None]:
    """Fail the test when a server it talked to sent something nothing handled."""
    yield
    unhandled = [f"{e.caps} server: {what}" for e in STARTED for what in e.unhandled()]
    STARTED[:] = [e for e in STARTED if not e.client.stopped]
    assert not unhandled, "server messages no test expected:\n" + "\n".join(unhandled)


@pytest.fixture(params=["neovim", "vscode"])
def caps(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The workspace folder, holding the sample PLAN.md."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "PLAN.md").write_text(PLAN, encoding="utf-8")
    return folder


@pytest.fixture
def state_dir(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def settings() -> dict[str, Any] | None:
    """The `todoLs` section the client answers `workspace/configuration` with."""
    return {"markdownFiles": ["PLAN.md"]}


@pytest_asyncio.fixture
async def editor(
    request: pytest.FixtureRequest,
    root: Path,
    caps: str,
    settings: dict[str, Any] | None,
    state_dir: Path,
) -> AsyncIterator[Editor]:
    marker = request.node.get_closest_marker("client")
    features = marker.kwargs if marker is not None else None
    editor = await start_editor(root, caps, settings, state_dir, features=features)
    # The first status marks the end of the server's initialized handling.
    await editor.wait_status(lambda s: True)
    yield editor
    await asyncio.wait_for(editor.client.shutdown_session(), TIMEOUT)
    await editor.client.stop()


# A shared server: one per module and capability set, for tests that only open documents, edit
# them in the editor and ask (no settings, folders, files on disk, commands or store). The
# server start is most of such a test's time. Those tests run on the module's event loop (the
# server's pipes belong to it): mark them `SHARED` (lsp_harness).


@pytest.fixture(scope="module", params=["neovim", "vscode"])
def shared_caps(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared_server(
    shared_caps: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Editor]:
    base = tmp_path_factory.mktemp("shared")
    folder = base / "project"
    folder.mkdir()
    (folder / "PLAN.md").write_text(PLAN, encoding="utf-8")
    # No supervisor: these tests are about the editor side, and a host would add statuses.
    settings = {"markdownFiles": ["PLAN.md"], "supervisor": {"enabled": False}}
    editor = await start_editor(folder, shared_caps, settings, base / "state")
    await editor.wait_status(lambda s: True)
    yield editor
    await asyncio.wait_for(editor.client.shutdown_session(), TIMEOUT)
    await editor.client.stop()


@pytest_asyncio.fixture(loop_scope="module")
async def reader(shared_server: Editor) -> AsyncIterator[Editor]:
    """The module's shared server; what the test opened is closed after it, and a round trip
    makes sure the server has handled the closes before the next test starts."""
    yield shared_server
    shared_server.close_all()
    await shared_server.command("todoLs.list", {})


@pytest.fixture
def client(editor: Editor) -> LanguageClient:
    """The raw client (also lets pytest-lsp attach the server's log to failure reports)."""
    return editor.client
