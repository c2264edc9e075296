"""SharedFetch: concurrent callers share one request, and never one sent before they asked."""

from __future__ import annotations

import asyncio

import pytest

from todo_ls.supervisor.shared_fetch import SharedFetch


class GatedFetch:
    """A fetch that answers its call number once the test opens the gate of that call."""

    def __init__(self) -> None:
        self.calls = 0
        self.gates: list[asyncio.Event] = []
        self.fail_next: Exception | None = None

    async def __call__(self) -> int:
        self.calls += 1
        number = self.calls
        gate = asyncio.Event()
        self.gates.append(gate)
        await gate.wait()
        if self.fail_next is not None:
            err, self.fail_next = self.fail_next, None
            raise err
        return number

    async def open(self, number: int) -> None:
        while len(self.gates) < number:
            await asyncio.sleep(0)
        self.gates[number - 1].set()


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


async def test_callers_during_a_request_share_the_next_one() -> None:
    fetch = GatedFetch()
    shared = SharedFetch(fetch)
    first = asyncio.ensure_future(shared.get())
    await settle()
    # These ask while call 1 is in flight: its answer may predate what they must see.
    later = [asyncio.ensure_future(shared.get()) for _ in range(5)]
    await settle()
    assert fetch.calls == 1
    await fetch.open(1)
    assert await first == 1
    await fetch.open(2)
    assert await asyncio.gather(*later) == [2] * 5
    assert fetch.calls == 2


async def test_an_error_reaches_every_sharer_and_the_next_call_is_fresh() -> None:
    fetch = GatedFetch()
    shared = SharedFetch(fetch)
    fetch.fail_next = RuntimeError("unreachable")
    callers = [asyncio.ensure_future(shared.get()) for _ in range(3)]
    await fetch.open(1)
    results = await asyncio.gather(*callers, return_exceptions=True)
    assert [str(r) for r in results] == ["unreachable"] * 3
    again = asyncio.ensure_future(shared.get())
    await fetch.open(2)
    assert await again == 2


async def test_a_cancelled_caller_leaves_the_others_their_answer() -> None:
    fetch = GatedFetch()
    shared = SharedFetch(fetch)
    quitter = asyncio.ensure_future(shared.get())
    stayer = asyncio.ensure_future(shared.get())
    await settle()
    quitter.cancel()
    await fetch.open(1)
    assert await stayer == 1
    with pytest.raises(asyncio.CancelledError):
        await quitter


async def test_close_cancels_the_request_in_flight() -> None:
    fetch = GatedFetch()
    shared = SharedFetch(fetch)
    waiter = asyncio.ensure_future(shared.get())
    await settle()
    await shared.close()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert not fetch.gates[0].is_set()
