"""Agent sessions for the editor tests that need some without a real agent: the fake OpenCode 2.x
server of the host tests, run on its own event loop in a thread (the editor tests are plain
synchronous code driving a real editor), with busy sessions whose own todo lists sit in the
shared store, as `todo-ls mcp` writes them (OpenCode 2.x keeps no list of its own).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from support.fake_v2 import FakeV2Server
from todo_ls.store import Store

# The environment variable that carries a 2.x server's password to todo-ls.
PASSWORD_ENV = "OPENCODE_PASSWORD"


@contextmanager
def busy_sessions(
    state_dir: Path, sessions: dict[str, Path], todos: dict[str, list[dict[str, Any]]]
) -> Iterator[FakeV2Server]:
    """A fake 2.x server (yielded: use `url` and `password`) where each session of `sessions`
    (id → its directory) is busy, plus `todos` (id → list) in the store at `state_dir`."""
    store = Store.open(state_dir)
    try:
        for session_id, items in todos.items():
            store.set_session_todos(session_id, items, time.time())
    finally:
        store.close()
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    server = FakeV2Server()
    asyncio.run_coroutine_threadsafe(server.start(), loop).result(10)
    for session_id, directory in sessions.items():
        server.add_session(session_id, str(directory), title=f"agent in {directory.name}")
    server.set_active(*sessions)
    try:
        yield server
    finally:
        asyncio.run_coroutine_threadsafe(_stop(server), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


async def _stop(server: FakeV2Server) -> None:
    """Stop the server and let every connection handler finish before the loop stops."""
    await server.stop()
    current = asyncio.current_task()
    others = [task for task in asyncio.all_tasks() if task is not current]
    if others:
        await asyncio.wait(others, timeout=5)
