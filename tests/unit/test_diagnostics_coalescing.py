"""Coalesced pushes on a `FakeClock` (todo_ls/server/diagnostics.py): a marked document is
published when the client's input has been read up (the framing loop's idle hook) or, while
input keeps coming, `MAX_PUSH_DELAY` after it was first marked; once per document either way."""

from __future__ import annotations

import pytest

from todo_ls.core.clock import FakeClock
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.diagnostics import MAX_PUSH_DELAY, Diagnostics


class Rig:
    def __init__(self) -> None:
        self.ls = TodoLanguageServer()
        self.clock = FakeClock()
        self.pending = True  # the client has sent more than the server handled
        self.ls.input_pending = lambda: self.pending
        self.diagnostics = Diagnostics(self.ls, self.clock)
        self.published: list[str] = []
        self.diagnostics._publish = self.published.append  # type: ignore[method-assign]


@pytest.fixture
def rig() -> Rig:
    return Rig()


def test_a_burst_while_input_is_pending_is_published_once_when_it_is_read_up(rig: Rig) -> None:
    for _ in range(50):
        rig.diagnostics.push("file:///a.md")
        rig.clock.advance(0.001)  # each message handled, more waiting
    rig.diagnostics.push("file:///b.md")
    assert rig.published == []
    rig.pending = False
    rig.ls._idle()  # the framing loop: everything sent has been handled
    assert rig.published == ["file:///a.md", "file:///b.md"]
    rig.clock.advance(10 * MAX_PUSH_DELAY)
    assert rig.published == ["file:///a.md", "file:///b.md"]  # the timers went with it


def test_input_that_never_stops_still_gets_a_push_after_the_longest_wait(rig: Rig) -> None:
    rig.diagnostics.push("file:///a.md")
    rig.clock.advance(MAX_PUSH_DELAY * 0.9)
    rig.diagnostics.push("file:///a.md")
    assert rig.published == []
    rig.clock.advance(MAX_PUSH_DELAY * 0.1)
    assert rig.published == ["file:///a.md"]


def test_nothing_pending_publishes_on_the_next_turn(rig: Rig) -> None:
    rig.pending = False
    rig.diagnostics.push("file:///a.md")
    rig.diagnostics.push("file:///a.md")
    rig.clock.advance(0)
    assert rig.published == ["file:///a.md"]
