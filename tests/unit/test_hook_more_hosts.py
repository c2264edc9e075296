"""`todo-ls hook` for Mistral Vibe, OpenHands and Kimi Code, with inputs in the shapes their
verified versions send: each host's own event field and names, its own block answer (Vibe's
and OpenHands' `deny`, Kimi Code's exit 2 with the reason on stderr), and no
`stop_hook_active`: todo-ls tells the Stop after its block from the blocked one itself."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from support.hook_project import PLAN, HookProject

from todo_ls.hook import hosts, protocol, run


class Answer(NamedTuple):
    code: int
    stdout: str
    stderr: str


def payload(host: str, event: str, project: Path, **extra: Any) -> dict[str, Any]:
    """One hook input as `host` sends it (reference/more-agents.md)."""
    if host == "mistral-vibe":
        base = {
            "session_id": "s1",
            "transcript_path": str(project.parent / "vibe-session"),  # a folder, in Vibe
            "cwd": str(project),
            "parent_session_id": None,
            "hook_event_name": event,
        }
        if event == "post_agent":
            base["agent_name"] = "accept-edits"
    elif host == "openhands":
        base = {
            "event_type": event,
            "tool_name": None,
            "tool_input": None,
            "tool_response": None,
            "message": None,
            "session_id": "s1",
            "working_dir": str(project),
            "metadata": {"reason": "agent_finished"} if event == "Stop" else {},
        }
    else:
        base = {
            "hook_event_name": event,
            "session_id": "s1",
            "cwd": str(project),
            "client_type": "kimi_code_cli",
        }
        if event == "Stop":
            base["stop_hook_active"] = False  # always false in Kimi Code
    return {**base, **extra}


STOP = {"mistral-vibe": "post_agent", "openhands": "Stop", "kimi-code": "Stop"}
TOOL = {"mistral-vibe": "post_tool", "openhands": "PostToolUse", "kimi-code": "PostToolUse"}


class Session(HookProject):
    """One session of `host` in a project with PLAN.md open, its hooks run in-process."""

    def hook(self, event: str, host: str | None = None, **extra: Any) -> Answer:
        data = payload(self.host, event, self.project, **extra)
        out, err = io.StringIO(), io.StringIO()
        argv = ["--host", host or self.host] if host != "" else []
        code = run.main(argv, io.StringIO(json.dumps(data)), out, self.env, stderr=err)
        return Answer(code, out.getvalue(), err.getvalue())

    def stop(self) -> Answer:
        return self.hook(STOP[self.host])

    def tool(self, name: str = "bash", **extra: Any) -> Answer:
        return self.hook(TOOL[self.host], tool_name=name, **extra)


def reason_of(host: str, answer: Answer) -> str | None:
    """The block's reason, read the way `host` reads it; None when the agent may stop."""
    if host == "kimi-code":
        assert answer.stdout == ""
        return answer.stderr.strip() if answer.code == 2 else None
    assert answer.code == 0 and answer.stderr == ""
    if not answer.stdout:
        return None
    decision = json.loads(answer.stdout)
    assert decision["decision"] == "deny"  # the word both hosts honour ("block" is ignored)
    reason: str = decision["reason"]
    return reason


@pytest.mark.parametrize("host", sorted(STOP))
def test_one_block_naming_the_open_items_then_words_stop_freely(tmp_path: Path, host: str) -> None:
    session = Session(tmp_path, host)
    first = reason_of(host, session.stop())
    assert first is not None and first.startswith("todo-ls: Stop nudge #1")
    assert "PLAN.md:3" in first and "PLAN.md:5" in first
    # The next Stop's input is the same as the first (no stop_hook_active, nothing else
    # changes): an answer in words only, so the agent stops.
    assert reason_of(host, session.stop()) is None
    recorded = session.store().hook_session("s1")
    assert recorded is not None and recorded.host == host
    assert (recorded.state, recorded.detail) == ("idle", "answered without working")


@pytest.mark.parametrize("host", sorted(STOP))
def test_work_earns_the_next_block_until_no_progress_pauses(tmp_path: Path, host: str) -> None:
    session = Session(tmp_path, host, "maxNoProgressNudges = 3")
    blocks = 0
    for turn in range(6):  # a model that works (a tool runs) but never ticks a box
        if turn:
            session.tool()
        blocks += reason_of(host, session.stop()) is not None
    assert blocks == 3
    recorded = session.store().hook_session("s1")
    assert recorded is not None
    assert (recorded.state, recorded.paused, recorded.host) == ("paused", "no-progress", host)


@pytest.mark.parametrize("host", sorted(STOP))
def test_ticked_boxes_stop_freely(tmp_path: Path, host: str) -> None:
    session = Session(tmp_path, host)
    (session.project / "PLAN.md").write_text(PLAN.replace("- [ ]", "- [x]"), encoding="utf-8")
    assert session.stop() == Answer(0, "", "")


@pytest.mark.parametrize("host", sorted(STOP))
def test_the_host_is_detected_without_host_option(tmp_path: Path, host: str) -> None:
    session = Session(tmp_path, host)
    assert reason_of(host, session.hook(STOP[host], host="")) is not None
    recorded = session.store().hook_session("s1")
    assert recorded is not None and recorded.host == host


def test_vibe_shows_the_user_the_headline(tmp_path: Path) -> None:
    session = Session(tmp_path, "mistral-vibe")
    decision = json.loads(session.stop().stdout)
    assert set(decision) == {"decision", "reason", "system_message"}
    assert decision["system_message"] == decision["reason"].splitlines()[0]
    assert "2 of 3 todos left" in decision["system_message"]


def test_vibe_subagents_stop_unblocked_and_the_todo_tool_is_the_own_list(tmp_path: Path) -> None:
    session = Session(tmp_path, "mistral-vibe")
    assert session.hook("post_agent", parent_session_id="parent") == Answer(0, "", "")
    todos = [
        {"content": "Write the plan", "id": "1", "priority": "medium", "status": "completed"},
        {"content": "Write the tests", "id": "2", "priority": "high", "status": "pending"},
    ]
    session.tool("vibe.todo", tool_output={"todos": todos, "total_count": 2})
    assert session.store().session_todos("s1") == [
        {"content": "Write the plan", "status": "completed", "priority": "medium"},
        {"content": "Write the tests", "status": "pending", "priority": "high"},
    ]
    reason = reason_of("mistral-vibe", session.stop())
    assert reason is not None and "Write the tests" in reason


def test_openhands_reads_event_type_working_dir_and_task_tracker(tmp_path: Path) -> None:
    session = Session(tmp_path, "openhands")
    hook = protocol.parse(
        json.dumps(payload("openhands", "UserPromptSubmit", session.project, message="Go on")),
        {},
        "openhands",
    )
    assert (hook.event, hook.cwd, hook.text("prompt")) == ("prompt", str(session.project), "Go on")
    session.hook("UserPromptSubmit", message="Work through PLAN.md")
    recorded = session.store().hook_session("s1")
    assert recorded is not None and recorded.title == "Work through PLAN.md"
    tasks = [
        {"title": "Write the parser", "notes": "", "status": "done"},
        {"title": "Ship it", "notes": "", "status": "todo"},
    ]
    session.tool("task_tracker", tool_input={"command": "plan", "task_list": tasks})
    assert session.store().session_todos("s1") == [
        {"content": "Write the parser", "status": "completed"},
        {"content": "Ship it", "status": "pending"},
    ]


@pytest.mark.parametrize(
    "where", ["default", "OPENHANDS_CONVERSATIONS_DIR", "OPENHANDS_PERSISTENCE_DIR"]
)
def test_openhands_own_list_is_read_from_the_conversations_tasks_file_at_a_stop(
    tmp_path: Path, where: str
) -> None:
    # The task_tracker keeps the list in the conversation's folder, named by the session id
    # without its dashes (verified with 1.16.0); a Stop reads it even when no PostToolUse
    # hook saw the tool (a resumed conversation, a hook added later).
    session = Session(tmp_path, "openhands")
    session_id = "9d1859d7-6ca2-4dcd-be62-647014f73b9c"
    if where == "default":
        conversations = session.home / ".openhands" / "conversations"
    elif where == "OPENHANDS_CONVERSATIONS_DIR":
        conversations = tmp_path / "conversations"
        session.env[where] = str(conversations)
    else:
        session.env[where] = str(tmp_path / "persist")
        conversations = tmp_path / "persist" / "conversations"
    folder = conversations / session_id.replace("-", "")
    folder.mkdir(parents=True)
    tasks = [
        {"title": "Read the spec", "notes": "", "status": "done"},
        {"title": "Draft the changelog", "notes": "", "status": "in_progress"},
    ]
    (folder / "TASKS.json").write_text(json.dumps(tasks), encoding="utf-8")

    reason = reason_of("openhands", session.hook("Stop", session_id=session_id))

    assert reason is not None and "Draft the changelog" in reason
    assert "Read the spec" not in reason
    assert session.store().session_todos(session_id) == [
        {"content": "Read the spec", "status": "completed"},
        {"content": "Draft the changelog", "status": "in_progress"},
    ]


def test_openhands_reads_no_tasks_file_outside_its_conversations_folder(tmp_path: Path) -> None:
    session = Session(tmp_path, "openhands")
    outside = session.home / ".openhands" / "TASKS.json"
    outside.parent.mkdir(parents=True)
    outside.write_text(json.dumps([{"title": "Leak", "status": "todo"}]), encoding="utf-8")
    for session_id in ("..", "../conversations", "a/b"):
        reason = reason_of("openhands", session.hook("Stop", session_id=session_id))
        assert reason is None or "Leak" not in reason


def test_kimi_interrupt_pauses_and_a_prompt_lifts_it(tmp_path: Path) -> None:
    session = Session(tmp_path, "kimi-code")
    prompt = [{"type": "text", "text": "Work through PLAN.md"}]
    session.hook("UserPromptSubmit", prompt=prompt, is_steer=False)
    recorded = session.store().hook_session("s1")
    assert recorded is not None and recorded.title == "Work through PLAN.md"
    # Esc: Kimi Code's Interrupt hook (its input has Codex's `turn_id`), and no Stop.
    assert session.hook("Interrupt", host="", turn_id=2, reason="cancelled") == Answer(0, "", "")
    pause = session.store().paused("s1")
    assert pause is not None and pause.reason == "interrupt"
    assert session.stop() == Answer(0, "", "")
    session.hook("UserPromptSubmit", prompt=[{"type": "text", "text": "again"}])
    assert reason_of("kimi-code", session.stop()) is not None


def test_kimi_todo_list_tool_is_the_own_list_and_a_read_keeps_it(tmp_path: Path) -> None:
    # Kimi Code 2.1.0's tool is `TodoList` (statuses pending, in_progress, done); called
    # without `todos` it only reads the list.
    session = Session(tmp_path, "kimi-code")
    todos = [
        {"title": "Write the parser", "status": "done"},
        {"title": "Ship it", "status": "in_progress"},
    ]
    session.tool("TodoList", tool_input={"todos": todos})
    session.tool("TodoList", tool_input={})
    assert session.store().session_todos("s1") == [
        {"content": "Write the parser", "status": "completed"},
        {"content": "Ship it", "status": "in_progress"},
    ]


def test_kimi_blocks_at_the_next_prompts_stop_though_nothing_else_changed(tmp_path: Path) -> None:
    # Kimi Code fires no Stop after its one continuation: the next Stop comes with the next
    # prompt, with the same input as the blocked one.
    session = Session(tmp_path, "kimi-code")
    session.hook("UserPromptSubmit", prompt=[{"type": "text", "text": "one"}])
    assert reason_of("kimi-code", session.stop()) is not None
    session.hook("UserPromptSubmit", prompt=[{"type": "text", "text": "two"}])
    again = reason_of("kimi-code", session.stop())
    assert again is not None and again.startswith("todo-ls: Stop nudge #1")


def test_the_registry_lists_the_new_hosts() -> None:
    assert {"mistral-vibe", "openhands", "kimi-code"} <= set(hosts.KINDS)
