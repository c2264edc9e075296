"""The OpenCode 1.x adapter against a real `opencode serve` 1.18.33 and the scripted fake model."""

from __future__ import annotations

import logging

import pytest
from support.fake_model import FakeModel, bash, stall, text, todowrite
from support.scenarios import EventLog, OpencodeServer

from todo_ls.core.events import (
    Connected,
    Disconnected,
    Resynced,
    SessionTodo,
    SessionUpdated,
    TodosUpdated,
    ToolStarted,
    TurnEnded,
    UserMessage,
)
from todo_ls.hosts.base import Host, HostError
from todo_ls.hosts.discovery import connect_host
from todo_ls.settings.model import SupervisorSettings

pytestmark = pytest.mark.opencode


async def _connect(server: OpencodeServer, env: dict[str, str] | None = None) -> Host:
    settings = SupervisorSettings(url=server.url, host="auto")
    return await connect_host(settings, env or {}, directories=[str(server.project)])


def _turn_over(sid: str) -> object:
    return lambda log: any(isinstance(e, TurnEnded) and e.session_id == sid for e in log.events)


async def test_events_todos_nudge_and_toast(
    opencode: OpencodeServer, fake_model: FakeModel
) -> None:
    host = await _connect(opencode)
    assert host.info.kind == "opencode-v1"
    assert host.info.version == "1.18.33"
    log = EventLog(host.watch())
    await log.wait_for(lambda log: bool(log.of(Resynced)))
    assert isinstance(log.events[0], Connected)

    sid = opencode.create_session("Plan")
    fake_model.script(
        todowrite(("Write the parser", "in_progress"), ("Add tests", "pending")),
        text("Planned two tasks."),
    )
    opencode.prompt(sid, "Please plan.")
    await log.wait_for(_turn_over(sid))
    [todos] = [e for e in log.of(TodosUpdated) if e.session_id == sid]
    assert [t.status for t in todos.todos] == ["in_progress", "pending"]
    infos = [e.info for e in log.of(SessionUpdated) if e.session_id == sid]
    assert infos[-1].directory == str(opencode.project)
    assert [e.synthetic for e in log.of(UserMessage) if e.session_id == sid] == [False]

    assert await host.todos(sid) == (
        SessionTodo("Write the parser", "in_progress", "medium"),
        SessionTodo("Add tests", "pending", "medium"),
    )
    info = await host.session(sid)
    assert info is not None
    assert (info.directory, info.parent_id, info.title) == (str(opencode.project), None, "Plan")
    assert await host.busy_sessions() == {}

    # The nudge arrives at the model as a user message and runs a new turn.
    before = len(fake_model.requests)
    fake_model.script(text("Continuing."))
    await host.nudge(sid, "Idle nudge #1 - 2 todos left.", "idle nudge")
    fake_model.wait_for(lambda m: len(m.requests) > before, timeout=20)
    assert fake_model.user_texts()[-1] == "Idle nudge #1 - 2 todos left."
    await log.wait_for(
        lambda log: any(e.synthetic and e.session_id == sid for e in log.of(UserMessage))
    )

    assert await host.toast("todo-ls", "Nudged session", "info") is True
    assert await host.session("ses_doesnotexist000000000000") is None
    with pytest.raises(HostError) as info_error:
        await host.nudge("ses_doesnotexist000000000000", "x", "y")
    assert info_error.value.kind == "not-found"
    await log.close()
    await host.aclose()


async def test_resync_reports_a_busy_session_with_its_todos(
    opencode: OpencodeServer, fake_model: FakeModel
) -> None:
    sid = opencode.create_session("Busy")
    fake_model.script(todowrite(("Only task", "in_progress")), stall(30))
    opencode.prompt(sid, "Work.")
    fake_model.wait_requests(2)  # the todowrite step ran; the second step is stalling
    host = await _connect(opencode)
    log = EventLog(host.watch())
    await log.wait_for(lambda log: bool(log.of(Resynced)))
    [snapshot] = log.of(Resynced)
    assert snapshot.busy == {sid: "busy"}
    assert [t.content for t in snapshot.todos[sid]] == ["Only task"]
    assert sid in {s.id for s in snapshot.sessions}
    fake_model.release()
    await log.wait_for(_turn_over(sid))
    await log.close()
    await host.aclose()


async def test_running_tool_is_reported_with_its_command(
    opencode: OpencodeServer, fake_model: FakeModel
) -> None:
    host = await _connect(opencode)
    log = EventLog(host.watch())
    await log.wait_for(lambda log: bool(log.of(Resynced)))
    sid = opencode.create_session("Tool")
    fake_model.script(bash("sleep 1; echo hi"), text("ran it"))
    opencode.prompt(sid, "Run it.")
    await log.wait_for(_turn_over(sid))
    [tool] = [e for e in log.of(ToolStarted) if e.session_id == sid]
    assert (tool.tool, tool.title) == ("bash", "sleep 1; echo hi")
    await log.close()
    await host.aclose()


async def test_password_auth_and_401_never_leak_the_password(
    opencode_pw: OpencodeServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    password = opencode_pw.password
    assert password
    for env in ({}, {"OPENCODE_SERVER_PASSWORD": "wrong"}):
        with pytest.raises(HostError) as info:
            await _connect(opencode_pw, env)
        assert info.value.kind == "unauthorized"
        assert "401" in str(info.value)
        assert "OPENCODE_SERVER_PASSWORD" in str(info.value)

    host = await _connect(opencode_pw, {"OPENCODE_SERVER_PASSWORD": password})
    log = EventLog(host.watch())
    await log.wait_for(lambda log: bool(log.of(Resynced)))
    sid = opencode_pw.create_session("Auth")
    assert await host.todos(sid) == ()
    await log.close()
    await host.aclose()

    custom = SupervisorSettings(url=opencode_pw.url, password_env="MY_PW")
    host = await connect_host(custom, {"MY_PW": password})
    await host.aclose()
    assert password not in caplog.text
    assert caplog.records  # httpx and the adapter did log at DEBUG: the check means something


async def test_reconnects_and_resyncs_after_the_server_restarts(
    opencode: OpencodeServer, fake_model: FakeModel
) -> None:
    host = await _connect(opencode)
    log = EventLog(host.watch())
    await log.wait_for(lambda log: bool(log.of(Resynced)))
    sid = opencode.create_session("Survives")
    fake_model.script(todowrite(("Persisted", "pending")), text("ok"))
    opencode.prompt(sid, "Plan.")
    await log.wait_for(_turn_over(sid))

    opencode.restart()
    await log.wait_for(lambda log: len(log.of(Resynced)) >= 2, timeout=60)
    assert log.of(Disconnected)
    connected = [i for i, e in enumerate(log.events) if isinstance(e, Connected)]
    assert len(connected) >= 2
    assert isinstance(log.events[connected[-1] + 1], Resynced)
    snapshot = log.of(Resynced)[-1]
    assert [t.content for t in snapshot.todos[sid]] == ["Persisted"]  # read back, not trusted

    fake_model.script(text("after restart"))
    opencode.prompt(sid, "Again.")
    ends = len(log.of(TurnEnded))
    await log.wait_for(lambda log: len(log.of(TurnEnded)) > ends)
    await log.close()
    await host.aclose()


async def test_unreachable_server() -> None:
    settings = SupervisorSettings(url="http://127.0.0.1:9", host="opencode-v1")
    with pytest.raises(HostError) as info:
        await connect_host(settings, {})
    assert info.value.kind == "unreachable"
