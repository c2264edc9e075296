"""`StatusPublisher`'s coalescing on a `FakeClock`: when `todoLs/status` goes out, and only
when it changed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from todo_ls.core.clock import FakeClock
from todo_ls.server.client_features import ClientFeatures
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.status import MIN_INTERVAL, StatusPublisher
from todo_ls.server.wire import RawJson
from todo_ls.workspace import Folder


class Published:
    """A server whose `todoLs/status` notifications are collected (by workspace URI)."""

    def __init__(self, tmp_path: Path) -> None:
        self.ls = TodoLanguageServer()
        # As `initialize` leaves it for a client without code-lens refresh requests.
        self.ls.client_features = ClientFeatures()
        self.clock = FakeClock()
        self.publisher = StatusPublisher(self.ls, self.clock)
        self.sent: list[str] = []
        self.root = tmp_path

        def notify_raw(method: str, params: RawJson) -> None:
            assert method == "todoLs/status"
            self.sent.append(json.loads(params.text)["workspace"])

        self.ls.protocol.notify_raw = notify_raw  # type: ignore[attr-defined]

    def folders(self, *names: str) -> list[str]:
        """Make these the workspace folders; their URIs."""
        found = [Folder.from_path(self.root / name) for name in names]
        for folder in found:
            folder.path.mkdir(exist_ok=True)
        self.ls.workspace_index.set_folders(found)
        self.ls.configuration.load_initial()  # the defaults (no client to ask)
        return [folder.uri for folder in found]


@pytest.fixture
def published(tmp_path: Path) -> Iterator[Published]:
    p = Published(tmp_path)
    yield p
    p.publisher.stop()


async def test_the_first_status_goes_out_at_once_and_repeats_coalesce(
    published: Published,
) -> None:
    [a] = published.folders("a")
    for _ in range(5):  # a burst of changes: one round
        published.publisher.schedule()
    assert await published.clock.next_wait() == 0.0
    published.clock.advance(0.0)
    assert published.sent == [a]
    published.publisher.schedule()
    published.clock.advance(MIN_INTERVAL)
    assert published.sent == [a]  # nothing changed: nothing sent


async def test_a_change_right_after_a_status_waits_out_the_interval(
    published: Published,
) -> None:
    [a] = published.folders("a")
    published.publisher.schedule()
    published.clock.advance(0.0)
    published.clock.advance(MIN_INTERVAL / 2)
    [_, b] = published.folders("a", "b")
    published.publisher.schedule()
    assert await published.clock.next_wait() == pytest.approx(MIN_INTERVAL / 2)
    published.clock.advance(MIN_INTERVAL / 2 - 0.001)
    assert published.sent == [a]
    published.clock.advance(0.001)
    assert published.sent == [a, b]  # only the folder whose status changed


async def test_a_clock_set_back_delays_the_status_by_no_more_than_the_interval(
    published: Published,
) -> None:
    published.folders("a")
    published.publisher.schedule()
    published.clock.advance(0.0)
    set_back = FakeClock(published.clock.now() - 3600)  # the same publisher, an hour earlier
    published.publisher._clock = set_back
    [_, b] = published.folders("a", "b")
    published.publisher.schedule()
    assert await set_back.next_wait() <= MIN_INTERVAL
    set_back.advance(MIN_INTERVAL)
    assert published.sent[-1] == b


async def test_nothing_goes_out_after_stop(published: Published) -> None:
    published.folders("a")
    published.publisher.schedule()
    published.publisher.stop()
    published.clock.advance(1.0)
    published.publisher.schedule()
    published.clock.advance(1.0)
    assert published.sent == []
