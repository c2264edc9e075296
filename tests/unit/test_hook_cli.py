"""`todo-ls hook` as the agents run it: a process reading one JSON input on stdin.

Covers the store round trips (episodes, pauses, the session's own list), exactly one block
across parallel processes of one Stop, and failing open: whatever goes wrong, exit 0, nothing
on stdout (the agent stops normally) and one line in the hook log.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.hook_project import project_folder

from todo_ls.hook import hosts, run
from todo_ls.hook.hosts.codex import plan_of
from todo_ls.hook.transcript import Transcript, evidence
from todo_ls.store import Store

PLAN = "# Plan\n\n- [ ] write the parser\n- [x] tokens\n- [ ] ship it\n"
Hook = Callable[..., dict[str, Any] | None]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return project_folder(tmp_path, PLAN, transcript=True)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"TODO_LS_STATE_DIR": str(tmp_path / "state"), "HOME": str(tmp_path / "home")}


def payload(project: Path, event: str = "Stop", **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "session_id": "s1",
        "cwd": str(project),
        "hook_event_name": event,
        "transcript_path": str(project / "transcript.jsonl"),
    }
    if event == "Stop":
        data.update(prompt_id="p1", stop_hook_active=False, last_assistant_message="done")
    return {**data, **extra}


@pytest.fixture
def hook(project: Path, env: dict[str, str]) -> Hook:
    """Run the hook in-process (the edge's own `main`) and return its parsed answer."""

    def call(event: str = "Stop", host: str | None = None, **extra: Any) -> dict[str, Any] | None:
        out = io.StringIO()
        argv = ["--host", host] if host else []
        stdin = io.StringIO(json.dumps(payload(project, event, **extra)))
        assert run.main(argv, stdin=stdin, stdout=out, env=env) == 0
        return json.loads(out.getvalue()) if out.getvalue() else None

    return call


TOOL_CALL = {"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Bash"}]}}


def grow(project: Path) -> None:
    """The agent did something: a tool call in its transcript."""
    append(project / "transcript.jsonl", TOOL_CALL)


def append(transcript: Path, *records: dict[str, Any]) -> None:
    with transcript.open("a", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in records)


def answered(transcript: Path, reason: str, text: str) -> None:
    """Claude Code hands the model the nudge and the model answers in words only."""
    feedback = {
        "type": "user",
        "message": {"role": "user", "content": "Stop hook feedback:\n" + reason},
    }
    words = {"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}}
    append(transcript, feedback, words)


def store(env: dict[str, str]) -> Store:
    return Store.open(Path(env["TODO_LS_STATE_DIR"]))


def log_lines(env: dict[str, str]) -> list[str]:
    path = Path(env["TODO_LS_STATE_DIR"]) / run.LOG_NAME
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def test_stop_blocks_once_then_again_only_after_work(hook: Hook, project: Path) -> None:
    first = hook()
    assert first is not None and first["decision"] == "block"
    assert "PLAN.md:3" in first["reason"] and "PLAN.md:5" in first["reason"]
    assert hook() is None  # a retry of the same Stop
    grow(project)
    second = hook(stop_hook_active=True)
    assert second is not None and second["reason"].startswith("todo-ls: Stop nudge #2")
    grow(project)
    # Once the boxes are ticked on disk, the agent stops freely.
    (project / "PLAN.md").write_text(PLAN.replace("[ ]", "[x]"), encoding="utf-8")
    assert hook(stop_hook_active=True) is None


def test_lines_the_agent_appends_around_hooks_are_not_work(hook: Hook, project: Path) -> None:
    # A second registration of the hook runs a moment later, after the agent appended its own
    # bookkeeping to the transcript: the same Stop, so no second block.
    transcript = project / "transcript.jsonl"
    append(transcript, {"type": "assistant", "message": {"content": "Done."}})
    first = hook()
    assert first is not None
    append(
        transcript,
        {"type": "attachment", "hookEvent": "Stop"},
        {"type": "system", "subtype": "stop_hook_summary"},
    )
    assert hook() is None


def blocked_then_answered(hook: Hook, project: Path, words: str) -> None:
    """A first Stop is blocked, and the model answers the nudge with `words` only."""
    first = hook()
    assert first is not None
    answered(project / "transcript.jsonl", first["reason"], words)


def test_a_text_only_answer_stops_freely_and_the_next_prompt_starts_over(
    hook: Hook, project: Path, env: dict[str, str]
) -> None:
    transcript = project / "transcript.jsonl"
    # Words only ("I need your input"): the agent stops, and the editor says why.
    blocked_then_answered(hook, project, "I need your input on the schema first.")
    assert hook(stop_hook_active=True, last_assistant_message="I need your input.") is None
    session = store(env).hook_session("s1")
    assert session is not None and (session.state, session.detail) == (
        "idle",
        "answered without working",
    )
    assert store(env).episode_nudge_count("s1") == 1
    # The user answers: a new episode, whose Stop with the plan open is blocked again.
    hook("UserPromptSubmit", prompt="use JSON", prompt_id="p2")
    append(transcript, {"type": "user", "message": {"role": "user", "content": "use JSON"}})
    again = hook(prompt_id="p2", last_assistant_message="Noted.")
    assert again is not None and again["reason"].startswith("todo-ls: Stop nudge #1")


def test_a_tool_call_after_the_nudge_is_work(hook: Hook, project: Path) -> None:
    blocked_then_answered(hook, project, "Looking at it.")
    grow(project)
    second = hook(stop_hook_active=True, last_assistant_message="Looked.")
    assert second is not None and second["reason"].startswith("todo-ls: Stop nudge #2")


def test_a_recovered_store_does_not_block_an_answered_nudge_again(
    hook: Hook, project: Path, env: dict[str, str]
) -> None:
    blocked_then_answered(hook, project, "I need your input.")
    state = Path(env["TODO_LS_STATE_DIR"])
    for name in ("state.db", "state.db-wal", "state.db-shm"):
        (state / name).unlink(missing_ok=True)  # a store started over knows no block
    assert hook(stop_hook_active=True, last_assistant_message="I need your input.") is None


def test_codex_tool_calls_prompts_and_nudges_in_the_rollout(tmp_path: Path) -> None:
    codex = hosts.get("codex")
    rollout = tmp_path / "rollout.jsonl"

    def item(**payload: Any) -> dict[str, Any]:
        return {"type": "response_item", "payload": payload}

    def said(role: str, text: str) -> dict[str, Any]:
        return item(type="message", role=role, content=[{"type": "input_text", "text": text}])

    call = item(type="function_call", name="exec_command")
    append(rollout, said("user", "<environment_context>…"), said("user", "go"), call)
    assert evidence(Transcript.open(rollout), codex) == (rollout.stat().st_size, "tool")  # type: ignore[arg-type]
    nudge = '<hook_prompt hook_run_id="stop:1">todo-ls: Stop nudge #1 — …</hook_prompt>'
    append(rollout, said("user", nudge), said("assistant", "I need your input."))
    assert evidence(Transcript.open(rollout), codex).latest == "nudge"  # type: ignore[arg-type]
    append(rollout, said("user", "use JSON"), {"type": "event_msg"})
    assert evidence(Transcript.open(rollout), codex).latest == "prompt"  # type: ignore[arg-type]
    assert Transcript.open(tmp_path / "missing.jsonl") is None


def test_no_progress_pauses_after_the_configured_blocks(
    hook: Hook, project: Path, env: dict[str, str]
) -> None:
    (project / "todo-ls.toml").write_text(
        'markdownFiles = ["PLAN.md"]\n[supervisor]\nmaxNoProgressNudges = 3\n', encoding="utf-8"
    )
    blocks = 0
    for _ in range(8):  # a model that answers but never ticks a box
        blocks += hook(stop_hook_active=blocks > 0) is not None
        grow(project)
    assert blocks == 3
    session = store(env).hook_session("s1")
    assert session is not None
    assert (session.state, session.paused, session.host) == ("paused", "no-progress", "claude-code")
    # A real prompt starts a new episode: supervised again.
    hook("UserPromptSubmit", prompt="try again", prompt_id="p2")
    assert hook(prompt_id="p2") is not None


def test_user_pause_and_interrupt_stop_blocking_until_the_next_prompt(
    hook: Hook, project: Path, env: dict[str, str]
) -> None:
    shared = store(env)
    shared.pause("s1", "user", 1.0)
    assert hook() is None
    shared.resume("s1")
    hook("Interrupt", host="codex", turn_id="t1")
    assert shared.paused("s1") is not None and shared.paused("s1").reason == "interrupt"  # type: ignore[union-attr]
    assert hook(host="codex", turn_id="t1") is None
    hook("UserPromptSubmit", host="codex", turn_id="t2", prompt="go on")
    assert shared.paused("s1") is None
    answer = hook(host="codex", turn_id="t2")
    assert answer is not None and answer["decision"] == "block"


def test_a_failed_turn_pauses_but_a_pause_command_survives_prompts(
    hook: Hook, env: dict[str, str]
) -> None:
    hook("StopFailure", error="overloaded")
    shared = store(env)
    assert shared.paused("s1").reason == "error"  # type: ignore[union-attr]
    assert hook() is None
    shared.pause("s1", "user", 2.0)
    hook("UserPromptSubmit", prompt="go", prompt_id="p9")
    assert shared.paused("s1").reason == "user"  # type: ignore[union-attr]


def test_subagent_stop_and_background_tasks_never_block(hook: Hook) -> None:
    assert hook("SubagentStop", agent_id="a1") is None
    assert hook(background_tasks=[{"id": "b1", "type": "bash", "status": "running"}]) is None
    assert hook() is not None


def test_claude_tasks_and_todowrite_become_the_sessions_list(
    hook: Hook, project: Path, env: dict[str, str]
) -> None:
    (project / "PLAN.md").write_text("- [x] all done\n", encoding="utf-8")
    hook(
        "PostToolUse",
        tool_name="TodoWrite",
        tool_input={
            "todos": [
                {"content": "Refactor", "status": "in_progress", "activeForm": "Refactoring"},
                {"content": "Test", "status": "completed", "activeForm": "Testing"},
            ]
        },
    )
    assert store(env).session_todos("s1") == [
        {"content": "Refactor", "status": "in_progress"},
        {"content": "Test", "status": "completed"},
    ]
    answer = hook()
    assert answer is not None and "- Refactor (in progress)" in answer["reason"]
    # Claude Code tasks (files per task) win where they exist.
    tasks = Path(env["HOME"]) / ".claude" / "tasks" / "s1"
    tasks.mkdir(parents=True)
    for n, status in ((1, "completed"), (2, "completed")):
        task = {"id": str(n), "subject": f"task {n}", "status": status, "blocks": []}
        (tasks / f"{n}.json").write_text(json.dumps(task), encoding="utf-8")
    grow(project)
    assert hook(stop_hook_active=True) is None
    assert [t["status"] for t in store(env).session_todos("s1") or []] == ["completed"] * 2


def test_codex_plan_is_read_from_the_rollout(
    hook: Hook, project: Path, env: dict[str, str]
) -> None:
    (project / "PLAN.md").write_text("", encoding="utf-8")
    plan = {
        "plan": [
            {"step": "Read code", "status": "completed"},
            {"step": "Fix bug", "status": "pending"},
        ]
    }
    call = {"type": "function_call", "name": "update_plan", "arguments": json.dumps(plan)}
    rollout = project / "rollout.jsonl"
    lines = [{"type": "session_meta", "payload": {}}, {"type": "response_item", "payload": call}]
    rollout.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    answer = hook(host="codex", turn_id="t1", transcript_path=str(rollout))
    assert answer is not None and "- Fix bug" in answer["reason"]
    assert "Read code" not in answer["reason"]
    assert Transcript.open(rollout).last(b"update_plan", plan_of) == [  # type: ignore[union-attr]
        {"content": "Read code", "status": "completed"},
        {"content": "Fix bug", "status": "pending"},
    ]


def test_gemini_after_agent_is_denied_with_the_reason(hook: Hook) -> None:
    answer = hook("AfterAgent", host="gemini-cli", prompt="go", prompt_response="done")
    assert answer is not None and answer["decision"] == "deny"


def gemini_stop(hook: Hook, transcript: Path, response: str = "Done.") -> dict[str, Any] | None:
    return hook(
        "AfterAgent",
        host="gemini-cli",
        prompt="Work through PLAN.md.",
        prompt_response=response,
        transcript_path=str(transcript),
    )


def test_gemini_hands_the_nudge_back_as_a_prompt_without_a_new_episode(
    hook: Hook, project: Path, env: dict[str, str]
) -> None:
    chat = project / "session.jsonl"
    append(chat, {"type": "user", "content": [{"text": "Work through PLAN.md."}]})
    hook("BeforeAgent", host="gemini-cli", prompt="Work through PLAN.md.")
    first = gemini_stop(hook, chat)
    assert first is not None
    # Gemini CLI sends the reason to the model as a user message, and BeforeAgent fires with it.
    hook("BeforeAgent", host="gemini-cli", prompt=first["reason"])
    append(chat, {"type": "user", "content": [{"text": first["reason"]}]})
    append(chat, {"type": "gemini", "content": "", "toolCalls": [{"name": "run_shell_command"}]})
    second = gemini_stop(hook, chat, "Done.Ran ls.")
    assert second is not None and second["reason"].startswith("todo-ls: Stop nudge #2")
    assert store(env).episode_nudge_count("s1") == 2  # one episode: the caps count on


@pytest.mark.parametrize(
    ("record", "response"),
    [
        ({"type": "info", "content": "Request cancelled."}, "Done."),
        ({"type": "gemini", "content": ""}, "[no response text]"),
    ],
)
def test_gemini_after_agent_after_esc_pauses_and_never_blocks(
    hook: Hook, project: Path, env: dict[str, str], record: dict[str, Any], response: str
) -> None:
    chat = project / "session.jsonl"
    append(chat, {"type": "user", "content": [{"text": "Work through PLAN.md."}]}, record)
    assert gemini_stop(hook, chat, response) is None
    paused = store(env).paused("s1")
    assert paused is not None and paused.reason == "interrupt"
    # The next real prompt lifts the pause and is supervised again.
    hook("BeforeAgent", host="gemini-cli", prompt="Go on.")
    append(chat, {"type": "user", "content": [{"text": "Go on."}]})
    assert store(env).paused("s1") is None
    assert gemini_stop(hook, chat, "Done again.") is not None


def test_gemini_write_todos_from_the_transcript_and_after_tool(
    hook: Hook, project: Path, env: dict[str, str]
) -> None:
    (project / "PLAN.md").write_text("", encoding="utf-8")
    chat = project / "session.jsonl"
    todos = [
        {"description": "write the tests", "status": "in_progress"},
        {"description": "read the docs", "status": "completed"},
    ]
    call = {"name": "write_todos", "args": {"todos": todos}}
    append(chat, {"type": "gemini", "content": "", "toolCalls": [call]})
    answer = gemini_stop(hook, chat)
    assert answer is not None and "write the tests" in answer["reason"]
    assert "read the docs" not in answer["reason"]
    done = [{**t, "status": "completed"} for t in todos]
    hook("AfterTool", host="gemini-cli", tool_name="write_todos", tool_input={"todos": done})
    assert [t["status"] for t in store(env).session_todos("s1") or []] == ["completed"] * 2


def test_project_file_warnings_go_to_the_log_and_defaults_apply(
    hook: Hook, project: Path, env: dict[str, str]
) -> None:
    (project / "todo-ls.toml").write_text(
        'markdownFiles = ["PLAN.md"]\n[supervisor]\nmaxNudgesPerEpisode = "many"\n',
        encoding="utf-8",
    )
    assert hook() is not None
    (line,) = log_lines(env)
    assert "Invalid setting todoLs.supervisor.maxNudgesPerEpisode" in line


# --- the process, as the agents run it ---------------------------------------------------


def spawn(data: bytes, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    full = {**os.environ, **env}
    return subprocess.run(
        [sys.executable, "-m", "todo_ls", "hook"], input=data, capture_output=True, env=full
    )


@pytest.mark.parametrize(
    "data", [b"", b"\xff\xfe not json", b'{"hook_event_name": "Stop"}', b'{"hook_event_name": 3}']
)
def test_bad_input_fails_open_with_one_log_line(data: bytes, env: dict[str, str]) -> None:
    done = spawn(data, env)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert len(log_lines(env)) == 1


def test_a_wrong_command_line_fails_open_too(project: Path, env: dict[str, str]) -> None:
    # Exit code 2 would block the agent with stderr as the reason.
    full = {**os.environ, **env}
    done = subprocess.run(
        [sys.executable, "-m", "todo_ls", "hook", "--host", "cursor"],
        input=json.dumps(payload(project)).encode(),
        capture_output=True,
        env=full,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    (line,) = log_lines(env)
    kinds = "|".join(hosts.KINDS)  # every host the hook serves, named in the usage
    assert "claude-code" in kinds and "pi" in hosts.KINDS
    assert "bad command line" in line and f"--host {kinds}" in line


def test_corrupt_store_fails_open(project: Path, env: dict[str, str]) -> None:
    state = Path(env["TODO_LS_STATE_DIR"])
    state.mkdir(parents=True)
    (state / "state.db").write_bytes(b"this is not a database" * 100)
    done = spawn(json.dumps(payload(project)).encode(), env)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    (line,) = log_lines(env)
    assert "state store unusable" in line


def test_unusable_state_folder_fails_open_and_logs_beside_it(
    project: Path, env: dict[str, str], tmp_path: Path
) -> None:
    # A state folder that cannot be written (here a file sits where it should be: this also
    # holds for root, whom folder permissions do not stop): the log goes to the temp folder.
    Path(env["TODO_LS_STATE_DIR"]).write_text("not a folder", encoding="utf-8")
    temp = tmp_path / "tmp"
    temp.mkdir()
    done = spawn(json.dumps(payload(project)).encode(), {**env, "TMPDIR": str(temp)})
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    (log,) = temp.glob("todo-ls-*/hook.log")
    (line,) = log.read_text(encoding="utf-8").splitlines()
    assert "state store unusable" in line


def test_a_bad_stored_subscription_never_stops_the_nudge(
    project: Path, env: dict[str, str]
) -> None:
    """A NUL row stored before todo-ls checked paths is skipped with one log line: the Stop
    is still blocked for the open items (it used to fail open, so the agent stopped)."""
    (project / "todo-ls.toml").unlink()  # PLAN.md subscribed by command only
    stored = store(env)
    stored.subscribe(str(project), str(project / "bad\x00name.md"))
    stored.subscribe(str(project), str(project / "PLAN.md"))
    stored.close()
    done = spawn(json.dumps(payload(project)).encode(), env)
    assert (done.returncode, done.stderr) == (0, b"")
    answer = json.loads(done.stdout)
    assert answer["decision"] == "block" and "PLAN.md:3" in answer["reason"]
    (line,) = log_lines(env)
    assert "ignoring a stored subscription" in line and "holds a NUL byte" in line


@pytest.mark.parametrize(
    ("field", "value", "logged"),
    [
        ("cwd", "/tmp/bad\x00folder", "the project folder (cwd) holds a NUL byte"),
        ("cwd", "/" + "x" * 5000, "the project folder (cwd) is 5001 characters long"),
        ("transcript_path", "/tmp/t\x00.jsonl", "ignoring transcript_path: it holds a NUL"),
    ],
)
def test_a_bad_path_in_the_hook_input_is_refused_at_the_edge(
    project: Path, env: dict[str, str], field: str, value: str, logged: str
) -> None:
    done = spawn(json.dumps(payload(project, **{field: value})).encode(), env)
    assert (done.returncode, done.stderr) == (0, b"")
    lines = log_lines(env)
    assert any(logged in line for line in lines), lines
    if field == "transcript_path":  # the rest of the input still counts: PLAN.md is open
        assert json.loads(done.stdout)["decision"] == "block"
    else:
        assert done.stdout == b""


def test_parallel_processes_of_one_stop_block_once(project: Path, env: dict[str, str]) -> None:
    data = json.dumps(payload(project)).encode()
    full = {**os.environ, **env}
    spawn(json.dumps(payload(project, "SessionStart", source="startup")).encode(), env)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "todo_ls", "hook", "--host", "claude-code"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=full,
        )
        for _ in range(3)
    ]
    outs = [p.communicate(data, timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0]
    assert [err for _, err in outs] == [b"", b"", b""]
    answers = [json.loads(out) for out, _ in outs if out]
    assert len(answers) == 1 and answers[0]["decision"] == "block"
    assert store(env).episode_nudge_count("s1") == 1


def test_only_the_transcripts_tail_is_read(tmp_path: Path) -> None:
    rollout = tmp_path / "rollout.jsonl"
    plan = {"plan": [{"step": "ship", "status": "pending"}]}
    call = {"name": "update_plan", "arguments": json.dumps(plan)}
    append(rollout, {"type": "response_item", "payload": call})
    tail = Transcript.open(rollout, tail=4096)
    assert tail is not None and tail.last(b"update_plan", plan_of) == [
        {"content": "ship", "status": "pending"}
    ]
    noise = {"type": "event_msg", "payload": {"text": "x" * 40}}
    append(rollout, *[noise] * 200)  # the plan scrolled out of the tail
    tail = Transcript.open(rollout, tail=4096)
    assert tail is not None and len(tail.data) == 4096
    assert tail.last(b"update_plan", plan_of) is None
    assert evidence(tail, hosts.get("codex")) == (None, None)
