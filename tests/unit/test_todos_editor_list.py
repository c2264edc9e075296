"""The session todo list as the editor sees it (todo_ls.todos.editor_list)."""

from __future__ import annotations

from todo_ls.core.counts import TodoCount
from todo_ls.core.events import SessionTodo
from todo_ls.todos.editor_list import (
    combined,
    session_items,
    todo_summary,
    toggled_status,
)


def test_store_entries_keep_their_place_and_bad_ones_are_skipped() -> None:
    """The store's entries are read as the supervisor reads them (the MCP tools' shape); one
    it cannot use is skipped, and the others keep their place in the stored list."""
    stored = [
        {"content": "a", "status": "canceled"},
        {"content": "b", "status": "nonsense"},
        "not an item",
        {"content": "c", "status": "pending", "priority": 3},
    ]
    listed = combined([SessionTodo("host item", "cancelled")], stored)
    assert [(i.source, i.position, i.todo.content, i.todo.status) for i in listed] == [
        ("store", 0, "a", "cancelled"),
        ("store", 3, "c", "pending"),
        ("host", 0, "host item", "cancelled"),
    ]
    assert listed[1].todo.priority is None  # not one of high, medium, low
    assert [item["index"] for item in session_items("ses_1", listed)] == [0, 1, 2]


def test_summary_counts_pending_and_in_progress_as_open() -> None:
    todos = [
        SessionTodo("a", "pending"),
        SessionTodo("b", "in_progress"),
        SessionTodo("c", "completed"),
        SessionTodo("d", "cancelled"),
    ]
    assert todo_summary(combined(todos, None)) == TodoCount(open=2, total=4)
    assert todo_summary(combined((), [])) is None  # no list of its own: no `todos`


def test_toggle_flips_completed_and_everything_else() -> None:
    assert toggled_status("completed") == "pending"
    assert toggled_status("pending") == "completed"
    assert toggled_status("in_progress") == "completed"
    assert toggled_status("cancelled") == "completed"


def test_an_item_in_both_lists_is_the_stores() -> None:
    """What the supervisor nudges about is what the editor lists: the host's copy of an item
    the store also has is left out."""
    host = [SessionTodo("Write the parser", "pending"), SessionTodo("Only in OpenCode", "pending")]
    stored = [{"content": " Write the parser ", "status": "completed"}]
    listed = combined(host, stored)
    assert [(i.source, i.todo.content.strip(), i.todo.status) for i in listed] == [
        ("store", "Write the parser", "completed"),
        ("host", "Only in OpenCode", "pending"),
    ]
    assert todo_summary(listed) == TodoCount(open=1, total=2)


def test_items_the_editor_cannot_toggle_are_read_only() -> None:
    """The tree view shows a checkbox only where todoLs.toggle would apply: store items of a
    supervised session; never a host item, nor any item of a hook host's mirrored list."""
    listed = combined(
        [SessionTodo("host item", "pending")], [{"content": "mine", "status": "pending"}]
    )
    assert [item.get("readOnly") for item in session_items("ses_1", listed)] == [None, True]
    mirrored = session_items("ses_2", listed, host_keeps_list=True)
    assert [item.get("readOnly") for item in mirrored] == [True, True]


def test_items_carry_their_content_as_plain_text_for_the_panels() -> None:
    """`name` is what the panels show (as the outline names a file's items); `content` stays
    as the agent wrote it, what a toggle compares."""
    listed = combined([SessionTodo("run `make` **twice**", "pending")], None)
    [item] = session_items("ses_1", listed)
    assert (item["content"], item["name"]) == ("run `make` **twice**", "run make twice")
