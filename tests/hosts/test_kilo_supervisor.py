"""Kilo Code CLI 7.7.9: the real `kilo serve` (OpenCode 1.x's API as host kind `kilo`), its
model the scripted fake chat-completions server (via `KILO_CONFIG_CONTENT`), auth on.

One server for the module (it needs about 3 s to start): each test works in its own folder,
which the server serves like any directory, so the sessions of one test are outside the
others' workspace. The discovery test uses the folder the server was started in, which is
what a `kilo serve` run in a project answers `GET /path` with.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.fake_model import FakeModel, stall, text, todowrite
from support.lsp_harness import Editor
from support.scenarios import KILO_VERSION, KiloServer, Supervisor, discovering_editor, until

pytestmark = [pytest.mark.kilo, pytest.mark.timeout(120)]

PASSWORD = "kilo-pw-3Rt-not-in-logs"
OPEN_TODOS = todowrite(("Write the parser", "in_progress"), ("Add tests", "pending"))
DONE_TODOS = todowrite(("Write the parser", "completed"), ("Add tests", "completed"))
StartSupervisor = Callable[..., Any]


@pytest.fixture(scope="module")
def model() -> Iterator[FakeModel]:
    with FakeModel() as fake:
        yield fake


@pytest.fixture(scope="module")
def kilo(tmp_path_factory: pytest.TempPathFactory, model: FakeModel) -> Iterator[KiloServer]:
    server = KiloServer(tmp_path_factory.mktemp("kilo"), model, password=PASSWORD).start()
    yield server
    server.stop()


@pytest.fixture
def folder(kilo: KiloServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's project folder; Kilo's password where todo-ls looks for it."""
    monkeypatch.setenv("KILO_SERVER_PASSWORD", PASSWORD)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    project = tmp_path / "project"
    project.mkdir()
    return project


@pytest.fixture
async def supervise(
    kilo: KiloServer, folder: Path, tmp_path: Path, model: FakeModel
) -> AsyncIterator[StartSupervisor]:
    """`todo-ls supervise` on `folder` at the server's URL, connected before it is returned."""
    assert model.pending() == 0, "an earlier test left model replies unused"
    started: list[Supervisor] = []

    async def start(**timing: Any) -> Supervisor:
        # With a URL, Kilo's password is sent only once the setting says Kilo is there.
        sup = Supervisor(folder, kilo.url, tmp_path / "state", host="kilo", **timing).start()
        started.append(sup)
        await sup.wait_for(lambda s: any(line.startswith("connected") for line in s.lines))
        return sup

    yield start
    model.release()
    for sup in started:
        await sup.stop()


async def test_connected_as_kilo_one_nudge_after_the_idle_edge_none_once_ticked(
    kilo: KiloServer, model: FakeModel, folder: Path, supervise: StartSupervisor
) -> None:
    sup = await supervise()
    assert sup.lines[0] == f"connected to kilo {KILO_VERSION} at {kilo.url}"
    sid = await asyncio.to_thread(kilo.create_session, "Plan", folder)
    model.script(OPEN_TODOS, text("I stop here."), DONE_TODOS, text("All done."))
    await asyncio.to_thread(kilo.prompt, sid, "Plan and do it.", folder)
    await sup.wait_for(lambda s: len(s.nudges(sid)) == 1)
    nudged_at = sup.lines.index(f"nudged {sid} (idle #1)")
    # The nudge came after the session went idle with its list open, not while it worked.
    assert any(line.startswith(f"{sid} idle") for line in sup.lines[:nudged_at])
    [nudge] = await asyncio.to_thread(kilo.synthetic_texts, sid)
    assert nudge.startswith("Idle nudge #1")
    assert "Add tests" in nudge and "Write the parser" in nudge
    # The nudged agent ticks its list: the session shows done, and nothing more is sent.
    await sup.wait_for(lambda s: any(f"{sid} done" in line for line in s.lines[nudged_at:]))
    await until(lambda: sup.clock.live == 0, 10, "no decision timer armed")
    await asyncio.sleep(1.2)  # asserting an absence: rate limit 1 s, settle 0.3 s
    assert len(sup.nudges(sid)) == 1
    assert len(await asyncio.to_thread(kilo.synthetic_texts, sid)) == 1


async def test_an_abort_pauses_the_session_and_it_is_not_nudged(
    kilo: KiloServer, model: FakeModel, folder: Path, supervise: StartSupervisor
) -> None:
    sup = await supervise(stall_minutes=1)
    sid = await asyncio.to_thread(kilo.create_session, "Abort", folder)
    before = len(model.requests)
    model.script(OPEN_TODOS, stall(60, "Thinking about the parser"))
    await asyncio.to_thread(kilo.prompt, sid, "Plan and write it.", folder)
    await until(lambda: len(model.requests) == before + 2, 30, "the model streaming")
    await sup.wait_for(lambda s: s.saw(sid, f"{sid} working"))
    await asyncio.to_thread(kilo.abort, sid)  # what the TUI's Esc does
    await sup.wait_for(lambda s: s.saw(sid, "paused: interrupt"))
    await until(lambda: sup.clock.live == 0, 10, "no decision timer armed")
    await asyncio.sleep(1.2)  # asserting an absence: rate limit 1 s, settle 0.3 s
    assert sup.nudges(sid) == []
    assert await asyncio.to_thread(kilo.synthetic_texts, sid) == []
    assert sup.session_lines(sid)[-1].startswith(f"{sid} paused")


@pytest.fixture
async def editor(kilo: KiloServer, folder: Path, tmp_path: Path) -> AsyncIterator[Editor]:
    """A language server in the folder `kilo serve` runs in, with no `supervisor.url`."""
    (kilo.project / "PLAN.md").write_text("# Plan\n\n- [ ] ship the release\n")
    async with discovering_editor(kilo.project, tmp_path / "state") as started:
        yield started


async def test_found_without_a_url_and_shown_as_kilo_in_the_status(
    kilo: KiloServer, model: FakeModel, editor: Editor
) -> None:
    status = await asyncio.wait_for(
        editor.wait_status(lambda s: s.supervisor.host is not None and s.supervisor.host.connected),
        60,
    )
    host = status.supervisor.host
    assert (host.kind, host.version, host.url) == ("kilo", KILO_VERSION, kilo.url)
    sid = await asyncio.to_thread(kilo.create_session, "Release")
    before = len(model.requests)  # the model is the module's: earlier tests' requests are in
    model.script(text("Stopping here."))
    await asyncio.to_thread(kilo.prompt, sid, "Ship it.")
    # The session is listed as a Kilo session, and the open item of PLAN.md gets it nudged.
    listed = await asyncio.wait_for(
        editor.wait_status(lambda s: any(x.id == sid for x in s.supervisor.sessions or [])), 30
    )
    [entry] = [x for x in listed.supervisor.sessions if x.id == sid]
    assert entry.host == "kilo"
    await asyncio.to_thread(
        model.wait_for,
        lambda m: any("Idle nudge #1" in t for r in m.requests[before:] for t in m.user_texts(r)),
        30,
    )
    [nudge] = await asyncio.to_thread(kilo.synthetic_texts, sid)
    assert "ship the release" in nudge
