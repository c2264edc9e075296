"""Where the server's log goes: the editor's output channel (`window/logMessage`) once the
client is initialized, stderr before that and (WARNING and above) once it is gone; never both,
since VS Code shows stderr in the same channel."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from lsprotocol import types
from support.lsp_harness import Editor

from todo_ls.server.app import create_server, route_logs
from todo_ls.server.core import TodoLanguageServer


@pytest.fixture
def routed() -> Iterator[tuple[TodoLanguageServer, io.StringIO, list[str]]]:
    """A server whose todo-ls log is routed, an stderr stand-in and the messages it sent."""
    ls = create_server()
    stderr = io.StringIO()
    stderr_handler = logging.StreamHandler(stderr)
    sent: list[str] = []
    ls.window_log_message = lambda params: sent.append(params.message)  # type: ignore[method-assign]
    loggers = [logging.getLogger("todo_ls"), logging.getLogger("pygls.protocol.json_rpc")]
    saved = [(lg, list(lg.handlers), list(lg.filters), lg.level) for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.INFO)
        lg.addHandler(stderr_handler)
    route_logs(ls, [stderr_handler])
    try:
        yield ls, stderr, sent
    finally:
        for lg, handlers, filters, level in saved:
            lg.handlers[:], lg.filters[:] = handlers, filters
            lg.setLevel(level)


def test_each_line_goes_to_exactly_one_place(
    routed: tuple[TodoLanguageServer, io.StringIO, list[str]],
) -> None:
    ls, stderr, sent = routed
    log = logging.getLogger("todo_ls.test")
    log.info("starting up")  # before `initialized`: stderr only
    ls.client_ready = True
    ls.protocol.writer = object()  # type: ignore[assignment]
    log.info("indexed 3 files")
    log.warning("a bad setting")
    ls.protocol.writer = None  # the connection is gone
    log.info("lost detail")
    log.warning("shutting down uncleanly")
    assert stderr.getvalue().splitlines() == ["starting up", "shutting down uncleanly"]
    assert sent == ["INFO todo_ls.test: indexed 3 files", "WARNING todo_ls.test: a bad setting"]


def test_cancel_for_a_finished_request_is_not_logged(
    routed: tuple[TodoLanguageServer, io.StringIO, list[str]],
) -> None:
    _, stderr, _ = routed
    pygls = logging.getLogger("pygls.protocol.json_rpc")
    pygls.warning('Cancel notification for unknown message id "%s"', 42)
    pygls.warning("Failed to handle request %s", 7)
    assert stderr.getvalue().splitlines() == ["Failed to handle request 7"]


async def test_a_real_server_logs_to_the_editor_not_stderr(
    capfd: pytest.CaptureFixture[str], editor: Editor
) -> None:
    # The supervisor logs "supervisor started" during `initialized`; cancel a finished request.
    listed: Any = await editor.command("todoLs.list", {})
    assert listed["total"] == 7
    editor.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=1))
    # The server handles messages in order and logs while handling them: the answer to this
    # request comes after every log line of the cancel and of the start-up.
    await editor.command("todoLs.list", {})
    logged = [m.message for m in editor.client.log_messages]
    assert any("supervisor started" in m for m in logged), logged
    stderr = capfd.readouterr().err
    assert "supervisor started" not in stderr
    assert "Cancel notification" not in stderr
