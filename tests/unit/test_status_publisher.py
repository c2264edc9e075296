"""`StatusPublisher`'s coalescing on a `FakeClock`: when `todoLs/status` goes out, and only
when it changed."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from todo_ls.core.clock import FakeClock
from todo_ls.server import status
from todo_ls.server.client_features import ClientFeatures
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.status import COST_FACTOR, MIN_INTERVAL, StatusPublisher
from todo_ls.server.wire import RawJson
from todo_ls.workspace import Folder


class FakeCpu:
    """The CPU seconds of the loop's thread, moved only by the test."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def __call__(self) -> float:
        return self.seconds


class Published:
    """A server whose `todoLs/status` notifications are collected (by workspace URI)."""

    def __init__(self, tmp_path: Path) -> None:
        self.ls = TodoLanguageServer()
        # As `initialize` leaves it for a client without code-lens refresh requests.
        self.ls.client_features = ClientFeatures()
        self.clock = FakeClock()
        self.cpu = FakeCpu()
        self.publisher = StatusPublisher(self.ls, self.clock, self.cpu)
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


def rebuilds_take(
    published: Published, monkeypatch: pytest.MonkeyPatch, wall: float, cpu: float
) -> None:
    """Every payload built from now on takes `wall` seconds, `cpu` of them on the CPU."""
    build = status.status_payload

    def timed(*args: Any) -> Any:
        published.clock.advance(wall)
        published.cpu.seconds += cpu
        return build(*args)

    monkeypatch.setattr(status, "status_payload", timed)


async def test_a_rebuild_that_waited_for_the_cpu_does_not_hold_the_next_back(
    published: Published, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A starved machine, or the store thread holding the interpreter lock: 2 ms of work took
    # 60 ms. Paced by wall time, the next status waited 20 x 60 ms = 1.2 s.
    [a] = published.folders("a")
    rebuilds_take(published, monkeypatch, wall=0.060, cpu=0.002)
    published.publisher.schedule()
    published.clock.advance(0.0)
    assert published.sent == [a]
    published.clock.advance(0.3)  # the next change comes well after the interval
    [_, b] = published.folders("a", "b")
    published.publisher.schedule()
    assert await published.clock.next_wait() == 0.0
    published.clock.advance(0.0)
    assert published.sent == [a, b]


async def test_a_rebuild_that_spent_cpu_paces_the_next(
    published: Published, monkeypatch: pytest.MonkeyPatch
) -> None:
    [a] = published.folders("a")
    rebuilds_take(published, monkeypatch, wall=0.0, cpu=0.020)
    published.publisher.schedule()
    published.clock.advance(0.0)
    published.clock.advance(0.3)
    [_, b] = published.folders("a", "b")
    published.publisher.schedule()
    pause = COST_FACTOR * 0.020
    # (epoch seconds: a float's step there is about 0.2 µs)
    assert await published.clock.next_wait() == pytest.approx(pause - 0.3, abs=1e-6)
    published.clock.advance(pause - 0.3 - 0.002)
    assert published.sent == [a]
    published.clock.advance(0.004)
    assert published.sent == [a, b]


def test_the_rebuild_is_paced_by_the_cpu_time_of_the_loop_thread() -> None:
    # Not the wall clock (time.perf_counter): that counts the waits the rebuild did not cause.
    assert StatusPublisher(TodoLanguageServer())._cpu is time.thread_time
