"""The nudge text: which nudge and why, the open items, how to finish; short and honest."""

from __future__ import annotations

from todo_ls.checklist.model import FileItem
from todo_ls.core.events import SessionTodo
from todo_ls.supervisor.policy import open_set
from todo_ls.supervisor.text import MAX_LISTED, Nudge, announcement

TODOS = [
    SessionTodo("Write the parser", "in_progress", "high"),
    SessionTodo("Add unit tests", "pending", "medium"),
]
FILES = [
    FileItem("PLAN.md", 12, "Document the CLI", "open"),
    FileItem("PLAN.md", 13, "Ask which licence", "blocked"),
    FileItem("PLAN.md", 14, "Set up CI", "done"),
    FileItem("docs/x.md", 3, "Old idea", "canceled"),
    FileItem("docs/x.md", 4, "Release", "open"),
]


def test_idle_headline() -> None:
    items = open_set(TODOS, FILES)
    assert Nudge("idle", 2, items).headline() == (
        "Idle nudge #2 — the session went idle with 5 of 7 todos left."
    )


def test_stall_headline_names_what_is_quiet() -> None:
    items = open_set(TODOS, [])
    text = Nudge("stall", 1, items, 432.0, ['tool bash "pytest -x"'], 5).headline()
    assert text == (
        'Stall nudge #1 — no activity for ~7.2 min from: tool bash "pytest -x" '
        "(stall threshold 5 min)."
    )


def test_items_with_priority_and_refs_and_how_to_finish() -> None:
    text = Nudge("idle", 1, open_set(TODOS, FILES)).text()
    lines = text.splitlines()
    assert "- [high] Write the parser (in progress)" in lines
    assert "- [medium] Add unit tests" in lines
    assert "- Document the CLI — PLAN.md:12" in lines
    assert "- Release — docs/x.md:4" in lines
    assert "Set up CI" not in text and "Old idea" not in text
    # blocked items are never the subject of a nudge, but the agent learns they wait
    assert "Ask which licence" not in text
    assert "1 more marked `[?]` wait for the user" in text
    assert "update the todo list" in text
    assert "tick its box in the file (`- [x]`)" in text
    assert "cannot be done without the user, say so and mark it `- [?]`" in text
    assert "instead of guessing" in text


def test_never_tells_the_agent_to_skip_asking() -> None:
    for kind in ("idle", "stall", "manual"):
        text = Nudge(kind, 1, open_set(TODOS, FILES), 400, ["open step"]).text().lower()
        assert "without asking" not in text
        assert "permission" not in text
        assert "do not stop" not in text


def test_markdown_only_nudge_does_not_mention_a_todo_list() -> None:
    text = Nudge("idle", 1, open_set([], FILES)).text()
    assert "todo list" not in text
    assert "When an item is done, tick its box in the file (`- [x]`)." in text


def test_todo_only_nudge_does_not_mention_files() -> None:
    text = Nudge("idle", 1, open_set(TODOS, [])).text()
    assert "`- [x]`" not in text and "`- [?]`" not in text
    assert "If an item cannot be done without the user, say so instead of guessing." in text


def test_long_lists_are_cut() -> None:
    many = [FileItem("PLAN.md", n, f"Item {n}", "open") for n in range(1, 31)]
    text = Nudge("idle", 1, open_set([], many)).text()
    assert f"Item {MAX_LISTED}" in text and f"Item {MAX_LISTED + 1} " not in text
    assert f"- … and {30 - MAX_LISTED} more" in text
    assert len(text) < 1500


def test_manual_nudge_says_the_user_sent_it() -> None:
    assert Nudge("manual", 3, open_set(TODOS, [])).headline() == (
        "Nudge #3 (sent by the user) — 2 of 2 todos left."
    )


def test_one_nudge_is_announced_with_its_headline() -> None:
    assert announcement([("plan", "Idle nudge #1 — 2 of 2 todos left.")]) == (
        "plan: Idle nudge #1 — 2 of 2 todos left."
    )


def test_nudges_sent_together_are_counted_and_the_first_named() -> None:
    two = [("plan", "Idle nudge #1"), ("docs", "Stall nudge #2")]
    assert announcement(two) == "2 sessions nudged: plan, docs."
    five = [(f"s{n}", "Idle nudge #1") for n in range(5)]
    assert announcement(five) == "5 sessions nudged: s0, s1, s2 and 2 more."
