"""`Configuration` on its own: how long requests wait for settings being fetched."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from todo_ls.server import configuration
from todo_ls.server.client_features import ClientFeatures
from todo_ls.server.configuration import Configuration
from todo_ls.workspace import Folder, WorkspaceIndex


class SilentClient:
    """The server side a `Configuration` uses, with a client that never answers
    `workspace/configuration`."""

    def __init__(self, folder: Path) -> None:
        self.workspace_index = WorkspaceIndex()
        self.workspace_index.set_folders([Folder.from_path(folder)])
        self.client_features = ClientFeatures(configuration=True)
        self.asked = 0

    def warn_once(self, message: str) -> None:
        raise AssertionError(f"no setting is bad here: {message}")

    async def workspace_configuration_async(self, params: Any) -> list[Any]:
        self.asked += 1
        await asyncio.Event().wait()  # never answered
        return []


async def test_requests_stop_waiting_for_a_client_that_never_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(configuration, "READY_TIMEOUT_S", 0.2)
    ls = SilentClient(tmp_path)
    settings = Configuration(ls, ls.workspace_index)
    settings.receive_initialization_options({"todoLs": {"markdownFiles": ["PLAN.md"]}})
    settings.load_initial()
    fetch = asyncio.ensure_future(settings.refresh())
    loop = asyncio.get_running_loop()
    try:
        started = loop.time()
        await settings.ready()  # the first request waits, at most the timeout
        assert 0.15 < loop.time() - started < 2.0 and ls.asked == 1
        started = loop.time()
        await settings.ready()  # later ones do not wait for that answer again
        assert loop.time() - started < 0.05
        # The initializationOptions apply meanwhile.
        assert settings.settings.markdown_files == ["PLAN.md"]
    finally:
        fetch.cancel()
