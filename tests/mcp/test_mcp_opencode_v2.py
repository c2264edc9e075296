"""OpenCode 2.x has no session todo list of its own: the list the agent keeps with `todo-ls mcp`
is the session's list. The real `todo-ls mcp` over stdio (called as the companion plugin calls
it, with the session id added) and the supervisor runtime with the real 2.x adapter against the
fake 2.x server; supervisor time is a FakeClock."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from support.fake_v2 import FakeV2Server
from support.mcp_client import connect
from support.scenarios import until

from todo_ls.checklist.model import FileItem
from todo_ls.core.clock import FakeClock
from todo_ls.hosts.base import Host
from todo_ls.hosts.http import Backoff, HostHttp
from todo_ls.hosts.opencode_v2.adapter import OpenCodeV2Host
from todo_ls.settings.model import SupervisorSettings
from todo_ls.store import Store
from todo_ls.supervisor.runtime import Runtime

pytestmark = pytest.mark.timeout(60)

SID = "ses_v2mcp"


class NoFiles:
    """A workspace folder with no subscribed files: the MCP list is the only source."""

    def __init__(self, folder: Path) -> None:
        self.folder = str(folder)

    def folders(self) -> Sequence[str]:
        return [self.folder]

    def file_items(self, folder: str) -> list[FileItem]:
        return []


async def test_the_mcp_list_drives_the_nudges_on_2x(project: Path, state: Path) -> None:
    fake = FakeV2Server()
    await fake.start()
    fake.add_session(SID, str(project), title="port the lexer")
    clock = FakeClock(start=time.time())
    store = Store.open(state)

    async def connect_host() -> Host:
        http = HostHttp(fake.url, password=fake.password)
        return OpenCodeV2Host(http, backoff=Backoff(initial=0.02, cap=0.1), shell_poll_s=0.05)

    runtime = Runtime(connect_host, store, SupervisorSettings(), clock, NoFiles(project))
    runtime.start()

    def sent() -> list[dict[str, object]]:
        return [body for sid, body in fake.synthetic_requests if sid == SID]

    try:
        await until(lambda: runtime.connected)
        async with connect(project, state) as agent:
            error, _ = await agent.write(
                SID,
                [
                    {"content": "Port the lexer", "status": "in_progress"},
                    {"content": "Port the parser", "status": "pending", "priority": "high"},
                ],
            )
            assert not error
            await fake.run_turn(SID)
            await until(lambda: (s := runtime.tracker.sessions.get(SID)) is not None
                        and s.busy is None and s.last_outcome is not None)  # fmt: skip
            clock.advance(6)
            await until(lambda: bool(sent()), 10, "the idle nudge")
            nudge = str(sent()[0]["text"])
            assert nudge.startswith("Idle nudge #1 — the session went idle with 2 of 2 todos")
            assert "- Port the lexer (in progress)" in nudge
            assert "- [high] Port the parser" in nudge
            [status] = runtime.status()["sessions"]
            assert status["open"] == 2

            # The agent finishes its list: the session is done and nothing more is sent.
            done = [
                {"content": "Port the lexer", "status": "completed"},
                {"content": "Port the parser", "status": "completed"},
            ]
            assert not (await agent.write(SID, done))[0]
            await fake.run_turn(SID)
            await until(lambda: runtime.status()["sessions"][0]["state"] == "done", 10, "done")
            clock.advance(120)
            await runtime.drain()
            assert len(sent()) == 1
    finally:
        await runtime.stop()
        await fake.stop()
        store.close()
