"""`todo-ls mcp` driven over stdio with the MCP SDK's client, as OpenCode drives it: the four
tools, their semantics, and bad input (each answered with a clear tool error while the server
keeps serving and nothing is written)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from support.mcp_client import connect

from todo_ls.store import Store
from todo_ls.todos.tools import SESSION_ARG, snapshot_path

pytestmark = pytest.mark.timeout(60)

TOO_MANY = [{"content": f"Item {n}", "status": "pending"} for n in range(201)]


def stored(state: Path, sid: str) -> list[Any] | None:
    store = Store.open(state)
    try:
        return store.session_todos(sid)
    finally:
        store.close()


async def test_lists_the_four_tools(project: Path, state: Path) -> None:
    async with connect(project, state) as client:
        tools = await client.session.list_tools()
        assert [t.name for t in tools.tools] == [
            "todo_write",
            "todo_read",
            "todo_subscribe",
            "todo_unsubscribe",
        ]


async def test_write_normalises_and_answers_with_the_canonical_list(
    project: Path, state: Path
) -> None:
    async with connect(project, state) as client:
        error, answer = await client.write(
            "ses_a",
            [
                {"content": "  Write the parser ", "status": "in_progress", "priority": "high"},
                {"content": "Add tests", "status": "in_progress"},
                {"content": "Write the parser", "status": "pending"},
                {"content": "   ", "status": "pending"},
                {"content": "Old idea", "status": "canceled"},
            ],
        )
        assert not error
        assert answer.splitlines()[0] == "3 todos: 1 in progress, 1 pending, 1 canceled."
        assert "only one item may be in progress" in answer
        assert "same content" in answer and "empty content dropped" in answer
        assert "1. [in_progress] (high) Write the parser" in answer
        assert "2. [pending] Add tests" in answer
        assert stored(state, "ses_a") == [
            {"content": "Write the parser", "status": "in_progress", "priority": "high"},
            {"content": "Add tests", "status": "pending", "priority": None},
            {"content": "Old idea", "status": "canceled", "priority": None},
        ]
        snapshot = snapshot_path("ses_a", {"TODO_LS_STATE_DIR": str(state)}).read_text()
        assert "(2 open of 3)" in snapshot and "[pending] Add tests" in snapshot


async def test_sessions_never_share_a_list(project: Path, state: Path) -> None:
    async with connect(project, state) as client:
        await client.write("ses_a", [{"content": "A's item", "status": "pending"}])
        await client.write("ses_b", [{"content": "B's item", "status": "pending"}])
        _, read_a = await client.call("todo_read", {SESSION_ARG: "ses_a"})
        _, read_c = await client.call("todo_read", {SESSION_ARG: "ses_c"})
        assert "A's item" in read_a and "B's item" not in read_a
        assert read_c == "No todos."


async def test_read_merges_the_subscribed_files_open_items(project: Path, state: Path) -> None:
    async with connect(project, state) as client:
        (project / "PLAN.md").write_text("# Plan\n\n- [x] Done already\n- [ ] Ship it\n")
        error, answer = await client.call(
            "todo_subscribe", {SESSION_ARG: "ses_a", "files": [{"path": "PLAN.md"}]}
        )
        assert not error and "- PLAN.md" in answer
        _, read = await client.call("todo_read", {SESSION_ARG: "ses_a"})
        assert "- PLAN.md:4 — Ship it" in read and "Done already" not in read
        await client.call(
            "todo_unsubscribe", {SESSION_ARG: "ses_a", "files": [{"path": "PLAN.md"}]}
        )
        _, read = await client.call("todo_read", {SESSION_ARG: "ses_a"})
        assert read == "No todos."


async def test_project_file_markdown_files_count_too(project: Path, state: Path) -> None:
    (project / "todo-ls.toml").write_text('markdownFiles = ["TODO.md"]\n')
    (project / "TODO.md").write_text("- [ ] From the project file\n")
    # No --directory: the folder OpenCode starts it in is the project.
    async with connect(project, state, "--log-level", "WARNING") as client:
        _, answer = await client.call("todo_read", {SESSION_ARG: "ses_a"})
    assert "- TODO.md:1 — From the project file" in answer


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("todo_write", {"todos": []}, "no OpenCode session id"),
        ("todo_write", {SESSION_ARG: "../../etc", "todos": []}, "is not a session id"),
        ("todo_write", {SESSION_ARG: "ses_a", "todos": "Write the parser"}, "must be a list"),
        ("todo_write", {SESSION_ARG: "ses_a"}, "must be a list"),
        ("todo_write", {SESSION_ARG: "ses_a", "todos": [3]}, "todos[0] must be an object"),
        (
            "todo_write",
            {SESSION_ARG: "ses_a", "todos": [{"content": 5, "status": "pending"}]},
            "todos[0].content must be a string",
        ),
        (
            "todo_write",
            {SESSION_ARG: "ses_a", "todos": [{"content": "x", "status": "done"}]},
            "todos[0].status must be one of pending, in_progress, completed, canceled",
        ),
        (
            "todo_write",
            {SESSION_ARG: "ses_a", "todos": TOO_MANY},
            "at most 200",
        ),
        (
            "todo_write",
            {SESSION_ARG: "ses_a", "todos": [{"content": "x" * 2001, "status": "pending"}]},
            "at most 2000",
        ),
        ("todo_remove", {SESSION_ARG: "ses_a"}, "unknown tool 'todo_remove'"),
        ("todo_subscribe", {SESSION_ARG: "ses_a", "files": "PLAN.md"}, "non-empty list"),
        (
            "todo_subscribe",
            {SESSION_ARG: "ses_a", "files": [{"path": "notes.txt"}]},
            "must name a .md or .markdown file",
        ),
        (
            "todo_subscribe",
            {SESSION_ARG: "ses_a", "files": [{"path": "../elsewhere.md"}]},
            "outside the workspace folder",
        ),
        (
            "todo_subscribe",
            {SESSION_ARG: "ses_a", "files": [{"path": "bad\u0000name.md"}]},
            "files[0].path holds a NUL byte",
        ),
        (
            "todo_subscribe",
            {SESSION_ARG: "ses_a", "files": [{"path": "file:///tmp/bad%00name.md"}]},
            "files[0].path holds a NUL byte (%00)",
        ),
        (
            "todo_subscribe",
            {SESSION_ARG: "ses_a", "files": [{"path": "x" * 5000 + ".md"}]},
            "files[0].path is 5003 characters long; at most 4096",
        ),
        (
            "todo_subscribe",
            {SESSION_ARG: "ses_a", "files": [{"path": "/etc/elsewhere.md"}]},
            "is outside the project",
        ),
        (
            "todo_subscribe",
            {SESSION_ARG: "ses_a", "files": [{"path": "file:///etc/elsewhere.md"}]},
            "is outside the project",
        ),
    ],
)
async def test_bad_input_is_a_tool_error_and_writes_nothing(
    state: Path, project: Path, name: str, arguments: dict[str, Any], message: str
) -> None:
    async with connect(project, state) as client:
        error, answer = await client.call(name, arguments)
        assert error and message in answer, answer
        assert stored(state, "ses_a") is None
        store = Store.open(state)
        try:
            assert not store.subscription_overrides(str(project)).added
        finally:
            store.close()
        # The server keeps serving.
        error, answer = await client.write(
            "ses_a", [{"content": "Still works", "status": "pending"}]
        )
        assert not error and "1. [pending] Still works" in answer


async def test_subscribe_never_follows_a_symlink_out_of_the_project(
    tmp_path: Path, project: Path, state: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "SECRET.md").write_text("- [ ] not the agent's\n")
    (project / "docs").symlink_to(elsewhere)
    (project / "PLAN.md").write_text("- [ ] inside\n")
    async with connect(project, state) as client:
        for path in ("docs/SECRET.md", (project / "docs" / "SECRET.md").as_uri()):
            error, answer = await client.call(
                "todo_subscribe", {SESSION_ARG: "ses_a", "files": [{"path": path}]}
            )
            assert error and "is outside the project" in answer, answer
        # An absolute path or URI inside the project is still fine.
        error, answer = await client.call(
            "todo_subscribe",
            {SESSION_ARG: "ses_a", "files": [{"path": (project / "PLAN.md").as_uri()}]},
        )
        assert not error and "- PLAN.md" in answer
        _, read = await client.call("todo_read", {SESSION_ARG: "ses_a"})
    assert "inside" in read and "not the agent's" not in read


async def test_a_bad_stored_subscription_never_breaks_todo_read(project: Path, state: Path) -> None:
    """A row stored before todo-ls checked paths (it survives restarts) is skipped."""
    (project / "PLAN.md").write_text("- [ ] Ship it\n")
    with contextlib.closing(Store.open(state)) as store:
        for name in ("bad\x00name.md", "PLAN.md"):
            store.subscribe(str(project), str(project / name))
    async with connect(project, state) as client:
        error, read = await client.call("todo_read", {SESSION_ARG: "ses_a"})
        assert not error and "- PLAN.md:1 — Ship it" in read, read
        error, answer = await client.call(
            "todo_unsubscribe", {SESSION_ARG: "ses_a", "files": [{"path": "PLAN.md"}]}
        )
        assert not error and "(none)" in answer, answer


async def test_without_a_session_id_the_answer_says_how_to_install_the_plugin(
    project: Path, state: Path
) -> None:
    async with connect(project, state) as client:
        error, answer = await client.call("todo_read", {})
        assert error and "todo-ls install opencode" in answer


async def test_a_corrupt_store_is_a_tool_error_and_the_server_keeps_serving(
    project: Path, state: Path
) -> None:
    async with connect(project, state) as client:
        error, _ = await client.write("ses_a", [{"content": "First", "status": "pending"}])
        assert not error
        db = state / "state.db"
        for suffix in ("", "-wal", "-shm"):
            path = Path(f"{db}{suffix}")
            if path.exists():
                path.write_bytes(b"this is not a database " * 200)
        error, answer = await client.write("ses_a", [{"content": "Second", "status": "pending"}])
        assert error and "state store" in answer and "nothing was changed" in answer
        error, answer = await client.call("todo_read", {SESSION_ARG: "ses_a"})
        assert error and "cannot be used" in answer
        # The snapshot still shows the last list that was stored.
        snapshot = snapshot_path("ses_a", {"TODO_LS_STATE_DIR": str(state)}).read_text()
        assert "First" in snapshot and "Second" not in snapshot


async def test_inject_todo_context_false_keeps_no_snapshot(project: Path, state: Path) -> None:
    snapshot = snapshot_path("ses_a", {"TODO_LS_STATE_DIR": str(state)})
    async with connect(project, state) as client:
        await client.write("ses_a", [{"content": "Shown", "status": "pending"}])
        assert snapshot.exists()
        (project / "todo-ls.toml").write_text("injectTodoContext = false\n")
        error, _ = await client.write("ses_a", [{"content": "Hidden", "status": "pending"}])
    assert not error
    assert not snapshot.exists()  # the plugin then appends nothing
    assert stored(state, "ses_a") == [{"content": "Hidden", "status": "pending", "priority": None}]
