"""`todo-ls hook` for Qwen Code, Copilot CLI and Droid, with inputs and transcripts in the
shapes their verified versions write: the nudge handed back as a prompt starts no episode,
a tool call in the transcript is work and words are not, and each host's own list."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from support.hook_project import HookProject

from todo_ls.hook import hosts, run
from todo_ls.hook.transcript import Transcript, evidence

# One tool call and one text answer per host, as its transcript records them.
TOOL_CALLS: dict[str, dict[str, Any]] = {
    "qwen-code": {
        "type": "assistant",
        "message": {"role": "model", "parts": [{"functionCall": {"name": "run_shell_command"}}]},
    },
    "copilot-cli": {
        "type": "assistant.message",
        "data": {"content": "", "toolRequests": [{"toolCallId": "c1", "name": "bash"}]},
    },
    "droid": {
        "type": "message",
        "message": {"role": "assistant", "content": [{"type": "tool_use", "name": "Execute"}]},
    },
}
WORDS: dict[str, dict[str, Any]] = {
    "qwen-code": {"type": "assistant", "message": {"role": "model", "parts": [{"text": "Hm."}]}},
    "copilot-cli": {"type": "assistant.message", "data": {"content": "Hm.", "toolRequests": []}},
    "droid": {
        "type": "message",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "Hm."}]},
    },
}


class Session(HookProject):
    """One session of `host` in a project with PLAN.md open, its hooks run in-process."""

    def __init__(self, tmp_path: Path, host: str, supervisor: str = "") -> None:
        super().__init__(tmp_path, host, supervisor)
        self.transcript = tmp_path / "transcript.jsonl"
        self.transcript.write_text("", encoding="utf-8")

    def hook(self, event: str, **extra: Any) -> dict[str, Any] | None:
        data = {
            "session_id": "s1",
            "cwd": str(self.project),
            "hook_event_name": event,
            "transcript_path": str(self.transcript),
            **extra,
        }
        out = io.StringIO()
        stdin = io.StringIO(json.dumps(data))
        assert run.main(["--host", self.host], stdin=stdin, stdout=out, env=self.env) == 0
        return json.loads(out.getvalue()) if out.getvalue() else None

    def stop(self, again: bool = False, **extra: Any) -> dict[str, Any] | None:
        return self.hook("Stop", stop_hook_active=again, **extra)

    def append(self, *records: dict[str, Any]) -> None:
        with self.transcript.open("a", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in records)


@pytest.mark.parametrize("host", sorted(TOOL_CALLS))
def test_a_tool_call_is_work_and_words_are_not(tmp_path: Path, host: str) -> None:
    session = Session(tmp_path, host)
    first = session.stop()
    assert first is not None and first == {"decision": "block", "reason": first["reason"]}
    assert "PLAN.md:3" in first["reason"] and "PLAN.md:5" in first["reason"]
    session.append(TOOL_CALLS[host])
    second = session.stop(again=True)
    assert second is not None and second["reason"].startswith("todo-ls: Stop nudge #2")
    session.append(WORDS[host])
    assert session.stop(again=True, last_assistant_message="Hm.") is None
    recorded = session.store().hook_session("s1")
    assert recorded is not None and recorded.host == host
    assert (recorded.state, recorded.detail) == ("idle", "answered without working")


@pytest.mark.parametrize("host", sorted(TOOL_CALLS))
def test_the_transcripts_tool_calls_are_found_from_the_tail(tmp_path: Path, host: str) -> None:
    path = tmp_path / "t.jsonl"
    lines = [WORDS[host], TOOL_CALLS[host], WORDS[host]]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    transcript = Transcript.open(path)
    assert transcript is not None
    seen = evidence(transcript, hosts.get(host))
    assert seen.latest == "tool"
    assert seen.tool_end == len("".join(json.dumps(r) + "\n" for r in lines[:2]))


def test_qwen_nudge_prompt_has_no_submitted_prompt_and_starts_no_episode(
    tmp_path: Path,
) -> None:
    session = Session(tmp_path, "qwen-code", "maxNudgesPerEpisode = 1")
    real = {"prompt": "Work through PLAN.md.", "submitted_prompt": "Work through PLAN.md."}
    session.hook("UserPromptSubmit", prompt_id="s1####0", **real)
    first = session.stop(prompt_id="s1####0")
    assert first is not None
    session.hook("UserPromptSubmit", prompt_id="s1####0", prompt=first["reason"])
    session.append(TOOL_CALLS["qwen-code"])
    session.hook("UserPromptSubmit", prompt_id="s1####0", prompt="")  # after the tool
    assert session.stop(again=True, prompt_id="s1####0") is None  # the episode's cap
    assert session.store().episode_nudge_count("s1") == 1
    # The user writes again: a new episode, blocked again.
    session.hook("UserPromptSubmit", prompt_id="s1####1", **real)
    again = session.stop(prompt_id="s1####1")
    assert again is not None and again["reason"].startswith("todo-ls: Stop nudge #1")


def test_copilot_nudge_as_user_prompt_submitted_starts_no_episode(tmp_path: Path) -> None:
    session = Session(tmp_path, "copilot-cli", "maxNudgesPerEpisode = 1")
    session.hook("UserPromptSubmit", prompt="Work through PLAN.md.")
    first = session.stop(stop_reason="end_turn")
    assert first is not None
    session.hook("UserPromptSubmit", prompt=first["reason"])
    session.append(TOOL_CALLS["copilot-cli"])
    assert session.stop(again=True, stop_reason="end_turn") is None
    assert session.store().episode_nudge_count("s1") == 1
    recorded = session.store().hook_session("s1")
    assert recorded is not None and recorded.title == "Work through PLAN.md."


def test_qwen_own_list_is_read_from_its_todo_file(tmp_path: Path) -> None:
    session = Session(tmp_path, "qwen-code")
    todos = session.home / ".qwen" / "todos"
    todos.mkdir(parents=True)
    listed = [
        {"id": "1", "content": "write the tests", "status": "in_progress"},
        {"id": "2", "content": "read the docs", "status": "completed"},
    ]
    (todos / "s1.json").write_text(json.dumps({"todos": listed, "sessionId": "s1"}), "utf-8")
    first = session.stop(prompt_id="p")
    assert first is not None
    assert "write the tests" in first["reason"] and "read the docs" not in first["reason"]
    assert session.store().session_todos("s1") == [
        {"content": "write the tests", "status": "in_progress"},
        {"content": "read the docs", "status": "completed"},
    ]


def test_qwen_todo_file_of_an_odd_session_id_is_not_looked_for(tmp_path: Path) -> None:
    qwen = hosts.get("qwen-code")
    outside = tmp_path / "home" / ".qwen" / "secret.json"
    outside.parent.mkdir(parents=True)
    outside.write_text(json.dumps({"todos": [{"content": "x", "status": "pending"}]}), "utf-8")
    from todo_ls.hook.protocol import parse

    hook = parse(json.dumps({"session_id": "../secret", "hook_event_name": "Stop"}), {}, qwen)
    assert qwen.own_list(hook, {"HOME": str(tmp_path / "home")}, None) is None


def test_droid_todowrite_from_the_transcript_and_the_tool_hook(tmp_path: Path) -> None:
    session = Session(tmp_path, "droid")
    call = {
        "type": "tool_use",
        "name": "TodoWrite",
        "input": {"todos": [{"content": "write the tests", "status": "pending"}]},
    }
    session.append({"type": "message", "message": {"role": "assistant", "content": [call]}})
    first = session.stop()
    assert first is not None and "write the tests" in first["reason"]
    done = {"todos": [{"content": "write the tests", "status": "completed"}]}
    session.hook("PostToolUse", tool_name="TodoWrite", tool_input=done)
    assert session.store().session_todos("s1") == [
        {"content": "write the tests", "status": "completed"}
    ]


@pytest.mark.parametrize(
    ("host", "stop_id"), [("copilot-cli", "timestamp"), ("droid", "message_id")]
)
def test_each_prompts_first_stop_may_block_without_a_turn_id(
    tmp_path: Path, host: str, stop_id: str
) -> None:
    # Neither host names the turn at a Stop: two prompts answered in words only must not look
    # like one Stop, or the second prompt's first Stop would be taken as already answered.
    session = Session(tmp_path, host)
    for n, prompt in enumerate(("Work through PLAN.md.", "What is left?")):
        session.hook("UserPromptSubmit", prompt=prompt, submitted_prompt=prompt)
        first = session.stop(**{stop_id: f"{n}-a"})
        assert first is not None and first["reason"].startswith("todo-ls: Stop nudge #1"), n
        session.hook("UserPromptSubmit", prompt=first["reason"])
        session.append(WORDS[host])
        assert session.stop(again=True, **{stop_id: f"{n}-b"}) is None
