"""Regression tests for two defects of the supervisor's core (issue 28), through the service the
language server uses and the runtime's own surface:

- one status, two truths: another todo-ls process pauses a session in the shared store after
  its timers ran out; the status text, the session entry and the code lens must all say so;
- asked once, lost for good: a session the host did not know at its first lookup (404) is
  looked up again when it speaks again, then gets its folder, is listed and nudged.
"""

from __future__ import annotations

from pathlib import Path

from support.fake_host import FakeHost
from test_supervisor_runtime import Harness
from test_supervisor_service import Bridge, S

from todo_ls.checklist import Progress
from todo_ls.core import events as ev
from todo_ls.server.code_lens import file_lenses
from todo_ls.server.status import status_text
from todo_ls.store import Store


async def test_a_pause_made_by_another_process_shows_the_same_everywhere(tmp_path: Path) -> None:
    b = Bridge(tmp_path)
    b.sup.start()
    await b.drain()
    await b.turn()
    b.clock.advance(5)
    await b.drain()
    assert len(b.hosts[-1].sent) == 1
    b.clock.advance(3600)  # every timer has run out: nothing wakes the session by itself
    await b.drain()
    key = str(b.process.project)
    assert b.sup.state_word(key) == "idle"
    calls = b.process.status_calls
    other = Store(tmp_path / "state.db")  # a second editor window, or `todo-ls supervise`
    other.pause(S, "user", b.clock.now())
    other.close()
    b.clock.advance(1.0)  # the store watch looks twice a second
    await b.drain()
    word = b.sup.state_word(key)
    sessions = b.sup.status(key)["sessions"]
    assert [s["state"] for s in sessions] == ["paused"]
    assert word == "paused"
    assert status_text(Progress({"open": 1}), word).endswith("· paused")
    lenses = file_lenses(Progress({"open": 1}), word, True, [s["state"] for s in sessions], key)
    titles = [lens.command.title for lens in lenses if lens.command is not None]
    assert titles == ["1/1 open · supervisor: paused", "Nudge now", "Resume"]
    assert b.process.status_calls > calls  # the change was published, not only readable
    await b.sup.stop()


async def test_a_session_unknown_at_its_first_lookup_is_looked_up_when_it_speaks_again(
    tmp_path: Path,
) -> None:
    h = Harness(tmp_path)
    await h.start()
    host: FakeHost = h.host
    try:
        # The host does not know the session yet: the lookup answers 404.
        await h.emit(ev.UserMessage(S, False, "m1"), ev.TurnStarted(S))
        assert h.rt.status()["sessions"] == []
        host.sessions[S] = ev.SessionInfo(S, h.project, None, "plan")
        await h.emit(
            ev.TurnStarted(S),
            ev.TodosUpdated(S, (ev.SessionTodo("Add tests", "pending", "high"),)),
            ev.TurnEnded(S, "idle"),
        )
        assert [s["id"] for s in h.rt.status()["sessions"]] == [S]
        assert h.rt.home(S) == h.project
        await h.advance(5)
        assert [sent.session_id for sent in host.sent] == [S]
    finally:
        await h.close()
