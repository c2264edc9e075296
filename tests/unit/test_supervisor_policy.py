"""The nudge policy, one test per rule of docs/supervisor.md (pure, time passed in)."""

from __future__ import annotations

import pytest

from todo_ls.checklist.model import FileItem
from todo_ls.core import events as ev
from todo_ls.hosts.opencode_v1 import events as opencode_v1
from todo_ls.hosts.opencode_v2 import events as opencode_v2
from todo_ls.settings.model import SupervisorSettings
from todo_ls.supervisor.activity import Tracker, TreeView, UserPrompted
from todo_ls.supervisor.detail import describe, format_duration
from todo_ls.supervisor.policy import (
    Decision,
    NudgeHistory,
    OpenSet,
    aggregate_state,
    evaluate,
    open_set,
)

S = "ses_1"
T0 = 1000.0
SETTINGS = SupervisorSettings()  # settle 5 s, interval 45 s, stall 5 min, 5 no-progress, 20 cap
STALL = 300.0
TODOS = (
    ev.SessionTodo("Write the parser", "in_progress", "high"),
    ev.SessionTodo("Add unit tests", "pending", "medium"),
    ev.SessionTodo("Plan", "completed", "low"),
)


def turn_done(tracker: Tracker | None = None, at: float = T0) -> Tracker:
    """A session that worked and ended its turn (confirmed) at `at`, with open todos."""
    t = tracker or Tracker()
    for event in (
        ev.SessionUpdated(ev.SessionInfo(S, "/p", None, "plan")),
        ev.UserMessage(S, False, "m1"),
        ev.TurnStarted(S),
        ev.TodosUpdated(S, TODOS),
    ):
        t.apply(event, at - 10)
    t.apply(ev.TurnEnded(S, "idle"), at)
    return t


def decide(
    t: Tracker,
    now: float,
    items: OpenSet | None = None,
    history: NudgeHistory | None = None,
    pause: str | None = None,
    settings: SupervisorSettings = SETTINGS,
    hold: float | None = None,
) -> Decision:
    view: TreeView = t.view(S)
    items = items if items is not None else open_set(view.session.todos, [])
    return evaluate(view, items, settings, now, pause, history or NudgeHistory(), hold)


def test_nothing_open_is_done() -> None:
    t = turn_done()
    d = decide(t, T0 + 60, OpenSet((), 3))
    assert (d.state, d.send, d.wake_at) == ("done", None, None)


def test_idle_nudge_waits_for_the_settle_debounce() -> None:
    t = turn_done()
    early = decide(t, T0 + 1)
    assert (early.state, early.send, early.wake_at) == ("idle", None, T0 + 5)
    due = decide(t, T0 + 5)
    assert due.send == "idle"


def test_without_an_end_of_turn_signal_idle_waits_stall_minutes() -> None:
    t = Tracker()
    for event in (
        ev.SessionUpdated(ev.SessionInfo(S, "/p")),
        ev.TodosUpdated(S, TODOS),
        ev.SpanStarted(S, "text", "p1"),
    ):
        t.apply(event, T0 - 1)
    t.apply(ev.SpanEnded(S, "text", "p1"), T0)  # idle, but nothing confirmed the end
    assert decide(t, T0 + 60).wake_at == T0 + STALL
    assert decide(t, T0 + STALL).send == "idle"


def test_a_session_idle_before_we_watched_is_not_nudged() -> None:
    t = Tracker()
    t.apply(ev.Resynced(busy={}, sessions=(ev.SessionInfo(S, "/p"),), todos={S: TODOS}), T0)
    d = decide(t, T0 + 3600)
    assert d.send is None and d.wake_at is None


def test_working_session_is_left_alone_until_the_stall_threshold() -> None:
    t = turn_done()
    t.apply(ev.TurnStarted(S), T0 + 10)
    t.apply(ev.ToolStarted(S, "c1", "bash", "pytest -x"), T0 + 10)
    d = decide(t, T0 + 200)
    assert (d.state, d.send, d.wake_at) == ("working", None, T0 + 10 + STALL)
    d = decide(t, T0 + 10 + STALL)
    assert (d.state, d.send) == ("stalled", "stall")


def test_output_moves_the_stall_deadline() -> None:
    t = turn_done()
    t.apply(ev.ToolStarted(S, "c1", "bash", "make"), T0)
    t.apply(ev.ToolProgress(S, "c1"), T0 + 200)
    assert decide(t, T0 + STALL).send is None
    assert decide(t, T0 + 200 + STALL).send == "stall"


def test_pending_permission_is_waiting_and_never_nudged() -> None:
    t = turn_done()
    t.apply(ev.TurnStarted(S), T0)
    t.apply(ev.PermissionAsked(S, "per_1", "bash ls"), T0)
    d = decide(t, T0 + 10 * STALL)
    assert (d.state, d.send, d.wake_at) == ("waiting", None, None)


def test_retry_waiting_on_the_provider_is_not_a_stall() -> None:
    t = turn_done()
    t.apply(ev.TurnStarted(S), T0)
    t.apply(ev.Retrying(S, 3, T0 + 400, "rate limited"), T0)
    d = decide(t, T0 + 350)
    assert (d.state, d.send) == ("working", None)
    assert d.wake_at == T0 + 400 + STALL
    assert decide(t, T0 + 400 + STALL).send == "stall"


def test_busy_child_keeps_root_working() -> None:
    t = turn_done()
    t.apply(ev.SessionUpdated(ev.SessionInfo("ses_c", "/p", S)), T0 + 1)
    t.apply(ev.TurnStarted("ses_c"), T0 + 1)
    d = decide(t, T0 + 60)
    assert (d.state, d.send) == ("working", None)


def test_rate_limit() -> None:
    t = turn_done()
    t.apply(ev.TurnStarted(S), T0 + 1)  # work after the last nudge
    t.apply(ev.TurnEnded(S, "idle"), T0 + 2)
    history = NudgeHistory(last_at=T0, last_hash="x", last_number=1, episode_count=1)
    d = decide(t, T0 + 10, history=history)
    assert (d.send, d.reason, d.wake_at) == (None, "rate limited", T0 + 45)
    assert decide(t, T0 + 45, history=history).send == "idle"


def test_dedupe_unchanged_set_and_no_activity_since_the_nudge() -> None:
    t = turn_done()
    items = open_set(TODOS, [])
    history = NudgeHistory(T0 + 10, items.hash, 1, 1, 1)
    d = decide(t, T0 + 100, items, history)
    assert d.send is None and d.wake_at is None
    assert "unchanged" in d.reason
    t.apply(ev.TurnStarted(S), T0 + 20)  # the agent worked after the nudge
    t.apply(ev.TurnEnded(S, "idle"), T0 + 30)
    assert decide(t, T0 + 100, items, history).send == "idle"


# What the hosts send when our nudge reaches an idle session that starts no turn (rule 4).
# 2.x: the inbox item is admitted and delivered, then `session.synthetic` (reference §3).
V2_NUDGE_DELIVERED = [
    {
        "type": "session.inbox.enqueued",
        "durable": {"aggregateID": S, "seq": 7},
        "data": {"sessionID": S, "inboxID": "msg_syn1", "item": {"type": "synthetic"}},
    },
    {
        "type": "session.inbox.delivered",
        "durable": {"aggregateID": S, "seq": 8},
        "data": {"sessionID": S, "inboxID": "msg_syn1"},
    },
    {
        "id": "evt_9",
        "type": "session.synthetic",
        "durable": {"aggregateID": S, "seq": 9},
        "data": {"sessionID": S, "text": "Idle nudge #1", "description": "todo-ls idle nudge #1"},
    },
]
# 1.x (recorded from 1.18.33, scenario `nudge_synthetic`): our prompt_async is stored as a user
# message with a synthetic text part; the session's time moves.
V1_NUDGE_DELIVERED = [
    {
        "type": "message.updated",
        "properties": {"sessionID": S, "info": {"id": "msg_n1", "sessionID": S, "role": "user"}},
    },
    {
        "type": "message.part.updated",
        "properties": {
            "sessionID": S,
            "part": {
                "id": "prt_n1",
                "sessionID": S,
                "messageID": "msg_n1",
                "type": "text",
                "text": "Idle nudge #1",
                "synthetic": True,
            },
        },
    },
    {"type": "session.updated", "properties": {"sessionID": S, "info": {"id": S, "title": "plan"}}},
]


def _delivered(host: str) -> list[ev.SessionEvent]:
    if host == "opencode-v2":
        memory = opencode_v2.WireMemory()
        return [e for raw in V2_NUDGE_DELIVERED for e in opencode_v2.normalize(raw, memory)]
    return opencode_v1.normalize_all(V1_NUDGE_DELIVERED)


@pytest.mark.parametrize("host", ["opencode-v1", "opencode-v2"])
def test_our_nudge_reaching_the_session_is_not_agent_activity(host: str) -> None:
    t = turn_done()
    items = open_set(TODOS, [])
    history = NudgeHistory(T0 + 10, items.hash, 1, 1, 1)
    for event in _delivered(host):
        t.apply(event, T0 + 10.2)  # the host's events come a moment after the POST left
    assert t.view(S).last_work == T0 - 10
    d = decide(t, T0 + 100, items, history)
    assert (d.state, d.send) == ("idle", None)
    assert d.reason == "open items unchanged and no activity since nudge #1"
    # The agent's own turn after it is activity: the next opportunity is nudged.
    t.apply(ev.TurnStarted(S), T0 + 20)
    t.apply(ev.TurnEnded(S, "idle"), T0 + 30)
    assert decide(t, T0 + 100, items, history).send == "idle"


def test_a_synthetic_message_of_someone_else_is_not_agent_activity_a_real_prompt_is() -> None:
    # Another tool's synthetic message (or a 2.x shell notice) is treated like our nudge.
    t = turn_done()
    items = open_set(TODOS, [])
    history = NudgeHistory(T0 + 10, items.hash, 1, 1, 1)
    t.apply(ev.UserMessage(S, True, "msg_other"), T0 + 20)
    assert decide(t, T0 + 100, items, history).send is None
    effects = t.apply(ev.UserMessage(S, False, "msg_user"), T0 + 30).effects
    assert effects == (UserPrompted(S),)  # the runtime lifts pauses on it
    assert decide(t, T0 + 100, items, history).send == "idle"


def test_changed_set_is_not_deduped() -> None:
    t = turn_done()
    history = NudgeHistory(T0 + 10, "other", 1, 1, 0)
    assert decide(t, T0 + 100, history=history).send == "idle"


def test_no_progress_pause_until_the_set_changes() -> None:
    t = turn_done()
    history = NudgeHistory(T0 - 100, "h", 5, 5, same_hash_streak=5)
    d = decide(t, T0 + 60, history=history)
    assert (d.state, d.send, d.paused_reason) == ("paused", None, "no-progress")
    changed = NudgeHistory(T0 - 100, "h", 5, 5, same_hash_streak=0)
    assert decide(t, T0 + 60, history=changed).send == "idle"


def test_episode_cap() -> None:
    t = turn_done()
    settings = SupervisorSettings(max_nudges_per_episode=3)
    history = NudgeHistory(T0 - 100, "h", 3, episode_count=3, same_hash_streak=0)
    d = decide(t, T0 + 60, history=history, settings=settings)
    assert (d.state, d.paused_reason) == ("paused", "episode-cap")


def test_stored_pause_wins() -> None:
    t = turn_done()
    d = decide(t, T0 + 60, pause="interrupt")
    assert (d.state, d.send, d.paused_reason) == ("paused", None, "interrupt")


def test_only_blocked_items_left_is_no_nudge() -> None:
    t = turn_done()
    items = open_set([], [FileItem("PLAN.md", 3, "Ask about the API key", "blocked")])
    d = decide(t, T0 + 60, items)
    assert (d.state, d.send) == ("waiting", None)
    t.apply(ev.TurnStarted(S), T0 + 100)
    assert decide(t, T0 + 100 + STALL, items).send is None  # nor a stall nudge


def test_hold_after_a_failed_delivery() -> None:
    t = turn_done()
    d = decide(t, T0 + 60, hold=T0 + 90)
    assert (d.send, d.wake_at) == (None, T0 + 90)


def test_open_set_sources_and_hash() -> None:
    files = [
        FileItem("PLAN.md", 3, "Parser", "open"),
        FileItem("PLAN.md", 4, "Done thing", "done"),
        FileItem("PLAN.md", 5, "Canceled", "canceled"),
        FileItem("PLAN.md", 6, "Ask", "blocked"),
        FileItem("PLAN.md", 7, "Doing", "inProgress"),
    ]
    items = open_set(TODOS, files)
    assert items.total == 8
    assert [i.text for i in items.items] == [
        "Write the parser",
        "Add unit tests",
        "Parser",
        "Ask",
        "Doing",
    ]
    actionable = ["Write the parser", "Add unit tests", "Parser", "Doing"]
    assert [i.text for i in items.actionable] == actionable
    shifted = [FileItem(f.path, f.line + 1, f.text, f.state) for f in reversed(files)]
    assert open_set(reversed(TODOS), shifted).hash == items.hash  # order and lines don't count
    ticked = [*files[:4], FileItem("PLAN.md", 7, "Doing", "done")]
    assert open_set(TODOS, ticked).hash != items.hash
    blocked = [*files[:4], FileItem("PLAN.md", 7, "Doing", "blocked")]
    assert open_set(TODOS, blocked).hash != items.hash  # marking `[?]` is progress
    assert OpenSet((), 0).hash == ""


def test_status_detail() -> None:
    t = turn_done()
    t.apply(ev.TurnStarted(S), T0)
    t.apply(ev.ToolStarted(S, "c1", "bash", "make"), T0)
    view = t.view(S)
    d = decide(t, T0 + 4)
    assert describe(view, d, T0 + 4).text == "1 tool · quiet 4s"
    t2 = turn_done()
    d2 = decide(t2, T0 + 2)
    assert describe(t2.view(S), d2, T0 + 2).text == "quiet 2s · nudge in 3s"


def test_only_the_clock_parts_of_the_detail_move_while_nothing_happens() -> None:
    """`todo-ls supervise` prints a line when a session's detail changes, not every second:
    the quiet clock and the settle countdown are the detail's `clock` parts."""
    t = turn_done()
    t.apply(ev.TurnStarted(S), T0)
    t.apply(ev.ToolStarted(S, "c1", "bash", "make"), T0)
    early, late = (describe(t.view(S), decide(t, T0 + s), T0 + s) for s in (1, 3))
    assert (early.steady, early.clock) == (("1 tool",), ("quiet 1s",))
    assert (late.steady, late.clock) == (("1 tool",), ("quiet 3s",))
    paused = turn_done()
    detail = describe(paused.view(S), decide(paused, T0 + 2, pause="user"), T0 + 2)
    assert (detail.steady, detail.clock) == (("paused: user",), ("quiet 2s",))


def test_aggregate_state_is_the_most_urgent() -> None:
    assert aggregate_state(["idle", "working", "done"]) == "working"
    assert aggregate_state(["paused", "stalled", "waiting"]) == "waiting"
    assert aggregate_state(["done", "paused"]) == "paused"
    assert aggregate_state([]) is None


def test_format_duration() -> None:
    assert [format_duration(s) for s in (4, 59.9, 60, 431, 3600, 3900)] == [
        "4s",
        "59s",
        "1m",
        "7m",
        "1h",
        "1h5m",
    ]
