"""The Stop hook's pure parts: reading each host's input, the Stop decision with the policy's
Stop-hook mode, the event transitions, and the validation of the few settings it reads."""

from __future__ import annotations

import json

import pytest

from todo_ls.checklist.model import FileItem
from todo_ls.hook import core, hosts, protocol
from todo_ls.hook.hosts.base import HookInput
from todo_ls.settings.quick import LightSettings, load
from todo_ls.supervisor.policy import NudgeHistory, OpenSet, evaluate_stop, open_set

SETTINGS = LightSettings()  # 5 no-progress blocks, 20 per episode
FILES = [
    FileItem("PLAN.md", 3, "write the parser", "open"),
    FileItem("PLAN.md", 4, "ship it", "open"),
    FileItem("PLAN.md", 5, "tokens", "done"),
]
ITEMS = open_set([], FILES)


def stop(**extra: object) -> HookInput:
    data = {
        "session_id": "s1",
        "cwd": "/p",
        "hook_event_name": "Stop",
        "prompt_id": "p1",
        "last_assistant_message": "done",
        **extra,
    }
    return protocol.parse(json.dumps(data), {})


def facts(
    items: OpenSet = ITEMS,
    history: NudgeHistory | None = None,
    mark: str = "t100",
    last_mark: str | None = None,
    **extra: object,
) -> core.StopFacts:
    return core.StopFacts(
        items=items,
        pause_reason=extra.pop("pause", None),  # type: ignore[arg-type]
        history=history or NudgeHistory(),
        work_mark=mark,
        last_block_mark=last_mark,
        **extra,  # type: ignore[arg-type]
    )


def blocked_once(items: OpenSet = ITEMS, streak: int = 1, count: int = 1) -> NudgeHistory:
    return NudgeHistory(
        last_at=10.0,
        last_hash=items.hash,
        last_number=count,
        episode_count=count,
        same_hash_streak=streak,
    )


# --- reading the hosts' input ------------------------------------------------------------


def test_each_hosts_stop_is_read_with_its_turn_key() -> None:
    claude = stop(background_tasks=[{"id": "b1", "status": "running"}])
    assert (claude.host, claude.event, claude.turn) == ("claude-code", "stop", "p1")
    assert claude.background_tasks == 1
    codex = protocol.parse(
        json.dumps({"session_id": "c", "turn_id": "t9", "cwd": "/p", "hook_event_name": "Stop"}),
        {},
    )
    assert (codex.host, codex.turn) == ("codex", "t9")
    gemini = protocol.parse(
        json.dumps({"session_id": "g", "cwd": "/p", "hook_event_name": "AfterAgent"}), {}
    )
    assert (gemini.host, gemini.event) == ("gemini-cli", "stop")
    # --host wins over detection (Codex's SessionStart carries no turn id).
    start = protocol.parse(
        json.dumps({"session_id": "c", "cwd": "/p", "hook_event_name": "SessionStart"}),
        {},
        "codex",
    )
    assert start.host == "codex"


def test_finished_background_tasks_do_not_hold_the_stop() -> None:
    done = stop(background_tasks=[{"id": "b1", "status": "completed"}, {"id": "b2"}])
    assert done.background_tasks == 1  # no status: counted as running


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("not json", "not JSON"),
        ("[1]", "not an object"),
        ('{"hook_event_name": "Teleport", "session_id": "s"}', "unknown hook event"),
        ('{"hook_event_name": "Stop"}', "no session_id"),
    ],
)
def test_unusable_input_is_refused_in_one_line(text: str, why: str) -> None:
    with pytest.raises(protocol.HookInputError, match=why) as caught:
        protocol.parse(text, {})
    assert "\n" not in str(caught.value)


def test_answers_per_host_and_project_folder() -> None:
    claude = hosts.get("claude-code")
    assert json.loads(claude.block_answer("go on").stdout) == {
        "decision": "block",
        "reason": "go on",
    }
    assert json.loads(hosts.get("gemini-cli").block_answer("go on").stdout)["decision"] == "deny"
    hook = stop(cwd="/p/sub")
    assert protocol.project_dir(hook, claude, {"CLAUDE_PROJECT_DIR": "/p"}) == "/p"
    assert protocol.project_dir(hook, claude, {}) == "/p/sub"


# --- the Stop decision -------------------------------------------------------------------


def test_first_stop_with_open_items_blocks_with_the_nudge() -> None:
    verdict = core.decide_stop(facts(), SETTINGS)
    assert verdict.block and verdict.state == "working"
    text = core.block_reason(ITEMS, 1)
    # Claude Code shows it after "Stop hook reported a problem": it says where it comes from.
    assert text.startswith("todo-ls: Stop nudge #1 — the turn ended with 2 of 3 todos left.")
    assert "- write the parser — PLAN.md:3" in text and "- ship it — PLAN.md:4" in text
    assert "`- [?]`" in text and "tokens" not in text


def test_nothing_open_blocked_items_or_pause_let_the_agent_stop() -> None:
    assert core.decide_stop(facts(items=open_set([], FILES[2:])), SETTINGS).state == "done"
    only_blocked = open_set([], [FileItem("PLAN.md", 1, "ask legal", "blocked")])
    verdict = core.decide_stop(facts(items=only_blocked), SETTINGS)
    assert (verdict.block, verdict.state) == (False, "waiting")
    for reason in ("user", "interrupt", "error"):
        verdict = core.decide_stop(facts(pause=reason), SETTINGS)
        assert (verdict.block, verdict.state, verdict.paused) == (False, "paused", reason)


def test_background_work_and_supervision_off_never_block() -> None:
    verdict = core.decide_stop(facts(background_tasks=2), SETTINGS)
    assert (verdict.block, verdict.state, verdict.detail) == (
        False,
        "working",
        "2 background tasks",
    )
    assert not core.decide_stop(facts(enabled=False), SETTINGS).block


def test_second_block_needs_progress_since_the_first() -> None:
    history = blocked_once()
    same = core.decide_stop(facts(history=history, mark="t100", last_mark="t100"), SETTINGS)
    assert not same.block and same.detail == core.ANSWERED
    worked = core.decide_stop(facts(history=history, mark="t250", last_mark="t100"), SETTINGS)
    assert worked.block
    ticked = open_set([], [FILES[0], FILES[2]])  # the open set changed
    changed = core.decide_stop(
        facts(items=ticked, history=history, mark="t100", last_mark="t100"), SETTINGS
    )
    assert changed.block


def test_no_progress_cap_pauses_even_when_the_agent_keeps_working() -> None:
    at_cap = blocked_once(streak=SETTINGS.max_no_progress_nudges, count=5)
    verdict = core.decide_stop(facts(history=at_cap, mark="t999", last_mark="t1"), SETTINGS)
    assert (verdict.block, verdict.state, verdict.paused) == (False, "paused", "no-progress")
    strict = LightSettings(max_no_progress_nudges=2)
    two = blocked_once(streak=2, count=2)
    assert core.decide_stop(facts(history=two, mark="t9", last_mark="t1"), strict).paused == (
        "no-progress"
    )


def test_episode_cap_holds_across_changing_open_sets() -> None:
    settings = LightSettings(max_nudges_per_episode=3)
    history = NudgeHistory(last_at=1.0, last_hash="other", episode_count=3, same_hash_streak=0)
    verdict = core.decide_stop(facts(history=history, mark="t9", last_mark="t1"), settings)
    assert (verdict.block, verdict.paused) == (False, "episode-cap")


def test_stop_mode_has_no_settle_delay_and_no_rate_limit() -> None:
    # The runtime waits settleMs and minNudgeIntervalMs; a Stop hook cannot wait. A block
    # right after another one is allowed when the agent did work.
    from todo_ls.settings.model import SupervisorSettings

    editor_settings = SupervisorSettings(min_nudge_interval_ms=3_600_000, settle_ms=60_000)
    decision = evaluate_stop(ITEMS, editor_settings, None, blocked_once(), worked_since_last=True)
    assert decision.send == "idle"


def test_opportunity_is_the_same_for_copies_of_one_stop_only() -> None:
    first = stop()
    one = core.opportunity("p1", core.work_mark(100, 0, None), ITEMS.hash, first)
    assert one == core.opportunity("p1", core.work_mark(100, 0, None), ITEMS.hash, first)
    assert one != core.opportunity("p1", core.work_mark(180, 0, None), ITEMS.hash, first)
    assert one != core.opportunity("p2", core.work_mark(100, 0, None), ITEMS.hash, first)
    # The next Stop of the continued turn is another opportunity, even with nothing done.
    again = stop(stop_hook_active=True, last_assistant_message="I need your input.")
    assert one != core.opportunity("p1", core.work_mark(100, 0, None), ITEMS.hash, again)


# --- work means acting --------------------------------------------------------------------

BLOCKED_MARK = core.work_mark(100, 0, None)  # the evidence recorded with the first block


def after_block(**extra: object) -> core.StopVerdict:
    """The next Stop after one block of this episode, with the evidence in `extra`."""
    return core.decide_stop(
        facts(history=blocked_once(), last_mark=BLOCKED_MARK, **extra), SETTINGS
    )


def test_a_text_only_answer_stops_freely_and_says_so() -> None:
    # The model answered the nudge in words: its transcript's latest record is the nudge, and
    # no tool call moved the mark. New text in the transcript is not work.
    verdict = after_block(mark=BLOCKED_MARK, latest="nudge")
    assert (verdict.block, verdict.state, verdict.detail) == (False, "idle", core.ANSWERED)
    # Without a transcript to read, the unchanged mark says the same.
    assert after_block(mark=BLOCKED_MARK).detail == core.ANSWERED


def test_a_tool_run_since_the_block_is_work() -> None:
    in_transcript = core.work_mark(250, 0, None)  # a tool call after the nudge
    assert after_block(mark=in_transcript, latest="tool").block
    post_tool_event = core.work_mark(100, 1, None)  # a post-tool event the store counted
    assert after_block(mark=post_tool_event).block


def test_a_changed_open_set_or_own_list_is_work() -> None:
    ticked = open_set([], [FILES[0], FILES[2]])
    assert after_block(items=ticked, mark=BLOCKED_MARK, latest="nudge").block
    own = [{"content": "write tests", "status": "completed"}]
    assert after_block(mark=core.work_mark(100, 0, own)).block


def test_the_first_stop_of_an_episode_needs_no_evidence() -> None:
    # A real prompt started a new episode (no block in it yet): the turn ending with the
    # plan open is blocked even though it only talked.
    new_episode = NudgeHistory(last_at=10.0, last_hash=ITEMS.hash, last_number=1)
    verdict = core.decide_stop(
        facts(history=new_episode, mark=BLOCKED_MARK, last_mark=BLOCKED_MARK, latest="prompt"),
        SETTINGS,
    )
    assert verdict.block


def test_after_store_recovery_the_transcript_still_shows_the_answered_nudge() -> None:
    # The store was moved aside and started over: no history, no block recorded. The
    # transcript shows todo-ls's nudge answered in words: no second block.
    verdict = core.decide_stop(facts(mark=BLOCKED_MARK, latest="nudge"), SETTINGS)
    assert (verdict.block, verdict.detail) == (False, core.ANSWERED)
    # Nothing in the transcript says so: the fresh store's first Stop blocks.
    assert core.decide_stop(facts(mark=BLOCKED_MARK), SETTINGS).block


def test_parallel_registrations_share_one_opportunity_and_text_is_not_a_new_one() -> None:
    # Three registrations run for one Stop with the same input: one key, so one claim.
    keys = {
        core.opportunity("p1", BLOCKED_MARK, ITEMS.hash, stop(last_assistant_message="Done."))
        for _ in range(3)
    }
    assert len(keys) == 1
    # Bookkeeping lines the agent appends meanwhile move no tool offset: the mark is the same.
    assert core.work_mark(100, 0, None) == BLOCKED_MARK


def test_an_interrupt_reported_through_a_stop_pauses_and_never_blocks() -> None:
    verdict = core.decide_stop(facts(interrupted=True), SETTINGS)
    assert (verdict.block, verdict.new_pause, verdict.detail) == (False, "interrupt", "interrupted")
    kept_going = core.decide_stop(facts(interrupted=True, pause_on_interrupt=False), SETTINGS)
    assert (kept_going.block, kept_going.new_pause) == (False, None)


def test_a_prompt_carrying_the_nudge_back_is_not_a_user_prompt() -> None:
    gemini = hosts.get("gemini-cli")
    reason = core.block_reason(ITEMS, 1)
    echoed = event("BeforeAgent", host="gemini-cli", prompt=reason + "\n")
    assert gemini.is_nudge_prompt(echoed, reason)
    change = core.transition(echoed, True, nudge=True)
    assert (change.state, change.new_episode) == ("working", False)
    real = event("BeforeAgent", host="gemini-cli", prompt="fix the parser first")
    assert not gemini.is_nudge_prompt(real, reason)
    assert core.transition(real, True).new_episode


# --- the other events --------------------------------------------------------------------


def event(name: str, **extra: object) -> HookInput:
    data = {"session_id": "s1", "cwd": "/p", "hook_event_name": name, **extra}
    return protocol.parse(json.dumps(data), {}, extra.pop("host", None))  # type: ignore[arg-type]


def test_a_real_prompt_starts_an_episode_and_marks_the_turn() -> None:
    change = core.transition(event("UserPromptSubmit", prompt="go", prompt_id="p7"), True)
    assert (change.state, change.turn, change.new_episode) == ("working", "p7", True)
    assert change.title == "go"


def test_failures_and_interrupts_pause() -> None:
    failed = core.transition(event("StopFailure", error="rate_limit\nmore"), True)
    assert (failed.pause, failed.detail) == ("error", "error: rate_limit")
    interrupted = core.transition(event("Interrupt", turn_id="t1"), True)
    assert (interrupted.pause, interrupted.state) == ("interrupt", "idle")
    assert core.transition(event("Interrupt", turn_id="t1"), False).pause is None


def test_notifications_mark_waiting_only_for_a_human_question() -> None:
    asked = core.transition(
        event("Notification", notification_type="permission_prompt", message="Allow Bash?"), True
    )
    assert (asked.state, asked.detail) == ("waiting", "Allow Bash?")
    assert (
        core.transition(event("Notification", notification_type="auth_success"), True).state is None
    )


def test_gemini_waits_while_a_tool_call_needs_approval() -> None:
    gemini = hosts.get("gemini-cli")
    asked = event(
        "Notification", host="gemini-cli", notification_type="ToolPermission", message="Allow?"
    )
    change = core.transition(asked, True, waiting=gemini.waiting_notifications)
    assert (change.state, change.detail) == ("waiting", "Allow?")


def test_session_start_marks_idle_but_a_compaction_changes_nothing() -> None:
    assert core.transition(event("SessionStart", source="startup"), True).state == "idle"
    assert core.transition(event("SessionStart", source="compact"), True).state is None


def test_session_end_tool_use_and_subagent_stop() -> None:
    assert core.transition(event("SessionEnd", reason="exit"), True).state == "ended"
    tool = core.transition(event("PostToolUse", tool_name="TodoWrite"), True)
    assert tool.state == "working"
    assert core.transition(event("SubagentStop"), True).state is None


# --- settings ----------------------------------------------------------------------------


def test_settings_use_defaults_for_bad_values_with_one_warning_per_key() -> None:
    settings, warnings = load(
        {
            "markdownFiles": ["PLAN.md", "docs/**/*.md"],
            "states": {"done": ["x", "✓"]},
            "supervisor": {"maxNoProgressNudges": 0, "maxNudgesPerEpisode": 7, "enabled": "yes"},
            "diagnostics": {"severity": "loud"},  # not read here: the server validates it
        }
    )
    assert settings.markdown_files == ("PLAN.md", "docs/**/*.md")
    assert settings.states["done"] == ["x", "✓"]
    assert settings.max_nudges_per_episode == 7
    assert (settings.max_no_progress_nudges, settings.enabled) == (5, True)
    assert warnings == [
        "Invalid setting todoLs.supervisor.enabled: must be true or false; using the default.",
        "Invalid setting todoLs.supervisor.maxNoProgressNudges: must be a whole number of at "
        "least 1; using the default.",
    ]


def test_bad_states_and_file_lists_are_named() -> None:
    _, warnings = load({"markdownFiles": "PLAN.md", "states": {"done": ["xx"]}})
    assert [w.split(":")[0] for w in warnings] == [
        "Invalid setting todoLs.markdownFiles",
        "Invalid setting todoLs.states",
    ]
