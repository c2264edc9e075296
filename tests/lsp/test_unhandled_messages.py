"""The harness's own check: what the server sends and no test handled is named, so the
teardown check (conftest.py) fails the test that let it through."""

from __future__ import annotations

from typing import Any

import pytest
from lsprotocol import types
from support.lsp_harness import Editor


@pytest.mark.parametrize("settings", [{"markdownFiles": "PLAN.md"}])
async def test_a_message_no_test_took_is_named(editor: Editor, settings: dict[str, Any]) -> None:
    (unhandled,) = editor.unhandled()
    assert unhandled.startswith("window/showMessage Warning: ")
    assert "todoLs.markdownFiles" in unhandled
    assert editor.unhandled() == []  # named once


@pytest.mark.parametrize("settings", [{"markdownFiles": "PLAN.md"}])
async def test_a_message_the_test_took_is_handled(editor: Editor, settings: dict[str, Any]) -> None:
    (warning,) = editor.take_messages(types.MessageType.Warning)
    assert "todoLs.markdownFiles" in warning
    assert editor.unhandled() == []


@pytest.mark.client(diagnostic_refresh=False)
async def test_a_refresh_the_client_did_not_advertise_is_named(editor: Editor) -> None:
    editor.refreshed(types.WORKSPACE_INLAY_HINT_REFRESH)  # advertised by both clients
    assert editor.unhandled() == []
    editor.refreshed(types.WORKSPACE_DIAGNOSTIC_REFRESH)
    assert editor.unhandled() == [
        f"workspace/diagnostic/refresh (not advertised by {editor.caps!r})"
    ]
