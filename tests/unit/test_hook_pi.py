"""`todo-ls hook --host pi` with the inputs todo-ls's pi extension sends (editors/pi/todo-ls.ts)
and a session file in the shape pi 0.73.1 writes: the end of a run blocks with the reason the
extension sends back, an abort or an error never does, the nudge coming back as an `input` from
the extension is not a user prompt, and a tool result is work where words are not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_hook_new_hosts import Session

from todo_ls.hook import hosts

USER = "Work through PLAN.md."
ABORTED = "aborted"  # pi's stopReason after Esc or RPC `abort`
TOOL_RESULT = {
    "type": "message",
    "id": "c3",
    "parentId": "b2",
    "message": {
        "role": "toolResult",
        "toolCallId": "call_1",
        "toolName": "bash",
        "content": [{"type": "text", "text": "PLAN.md"}],
    },
}
WORDS = {
    "type": "message",
    "id": "d4",
    "parentId": "c3",
    "message": {
        "role": "assistant",
        "content": [{"type": "text", "text": "I need your input on the schema first."}],
        "stopReason": "stop",
    },
}


class PiSession(Session):
    """A pi session as the extension reports it: one real prompt, then the ends of runs."""

    def __init__(self, tmp_path: Path, supervisor: str = "") -> None:
        super().__init__(tmp_path, "pi", supervisor)
        self.append({"type": "session", "version": 3, "id": "s1", "cwd": str(self.project)})

    def prompt(self, text: str = USER, prompt_id: str = "p1", source: str = "rpc") -> None:
        assert self.hook("input", prompt=text, source=source, prompt_id=prompt_id) is None
        self.append(user_record(text))

    def end(self, stop_reason: str = "stop", again: bool = False, **extra: Any) -> str | None:
        """The end of an agent run; the reason the extension would send, if any."""
        answer = self.hook(
            "agent_end",
            stop_reason=stop_reason,
            stop_hook_active=again,
            prompt_id=extra.pop("prompt_id", "p1"),
            last_assistant_message=extra.pop("said", "Plan written, stopping here."),
            **extra,
        )
        if answer is None:
            return None
        assert answer == {"decision": "block", "reason": answer["reason"]}, answer
        reason: str = answer["reason"]
        return reason

    def nudged(self, reason: str) -> None:
        """The extension sent `reason`: pi reports it as an `input` from the extension."""
        self.hook("input", prompt=reason, source="extension", prompt_id="p1")
        self.append(user_record(reason))


def user_record(text: str) -> dict[str, Any]:
    content = [{"type": "text", "text": text}]
    return {"type": "message", "id": "u", "message": {"role": "user", "content": content}}


def test_the_end_of_a_run_blocks_naming_each_open_item(tmp_path: Path) -> None:
    session = PiSession(tmp_path)
    session.prompt()
    reason = session.end()
    assert reason is not None and reason.startswith("todo-ls: Stop nudge #1")
    assert "PLAN.md:3" in reason and "PLAN.md:5" in reason and "PLAN.md:4" not in reason
    recorded = session.store().hook_session("s1")
    assert recorded is not None and (recorded.host, recorded.state) == ("pi", "working")
    assert recorded.title == USER


def test_print_modes_turn_end_is_the_end_of_the_run(tmp_path: Path) -> None:
    session = PiSession(tmp_path)
    answer = session.hook("turn_end", stop_reason="stop", prompt_id="p1")
    assert answer is not None and "PLAN.md:3" in answer["reason"]


def test_an_abort_is_never_nudged_and_pauses_until_the_next_prompt(tmp_path: Path) -> None:
    session = PiSession(tmp_path)
    session.prompt()
    assert session.end(ABORTED, error_message="Request was aborted", said="") is None
    pause = session.store().paused("s1")
    assert pause is not None and pause.reason == "interrupt"
    recorded = session.store().hook_session("s1")
    assert recorded is not None and recorded.detail == "interrupted"
    # The user writes again: the pause is lifted and the run's end may block.
    session.prompt("Go on.", prompt_id="p2")
    assert session.store().paused("s1") is None
    assert session.end(prompt_id="p2") is not None


def test_a_failed_run_is_never_nudged(tmp_path: Path) -> None:
    session = PiSession(tmp_path)
    session.prompt()
    assert session.end("error", error_message="500 upstream") is None
    assert session.hook("agent_error", error="500 upstream", prompt_id="p1") is None
    pause = session.store().paused("s1")
    assert pause is not None and pause.reason == "error"
    recorded = session.store().hook_session("s1")
    assert recorded is not None and recorded.detail == "error: 500 upstream"


def test_the_nudge_coming_back_from_the_extension_is_not_a_user_prompt(tmp_path: Path) -> None:
    session = PiSession(tmp_path, "maxNudgesPerEpisode = 1")
    session.prompt()
    first = session.end()
    assert first is not None
    session.nudged(first)
    session.append(TOOL_RESULT)
    # Were the nudge a user prompt, a new episode would start and this run's end would block.
    assert session.end(again=True, said="Ran ls.") is None
    assert session.store().episode_nudge_count("s1") == 1
    recorded = session.store().hook_session("s1")
    assert recorded is not None and recorded.title == USER


def test_a_tool_result_is_work_and_words_are_not(tmp_path: Path) -> None:
    session = PiSession(tmp_path)
    session.prompt()
    first = session.end()
    assert first is not None
    session.nudged(first)
    session.append(TOOL_RESULT)
    second = session.end(again=True, said="Ran ls.")
    assert second is not None and second.startswith("todo-ls: Stop nudge #2")
    session.nudged(second)
    session.append(WORDS)
    assert session.end(again=True, said="I need your input on the schema first.") is None
    recorded = session.store().hook_session("s1")
    assert recorded is not None
    assert (recorded.state, recorded.detail) == ("idle", "answered without working")


@pytest.mark.parametrize(
    ("record", "kind"),
    [
        (TOOL_RESULT, "tool"),
        (WORDS, None),
        (user_record(USER), "prompt"),
        (user_record("todo-ls: Stop nudge #1 — the turn ended"), "nudge"),
        ({"type": "message", "message": {"role": "assistant", "stopReason": ABORTED}}, "interrupt"),
        ({"type": "session", "version": 3, "id": "s1"}, None),
        ({"type": "model_change", "provider": "fake"}, None),
    ],
)
def test_session_file_records(record: dict[str, Any], kind: str | None) -> None:
    assert hosts.get("pi").line_kind(record) == kind


def test_the_user_extension_folder_follows_pis_agent_dir(tmp_path: Path) -> None:
    pi = hosts.get("pi")
    assert pi.user_settings({"HOME": str(tmp_path)}) == (
        tmp_path / ".pi" / "agent" / "extensions" / "todo-ls.ts"
    )
    agent_dir = tmp_path / "agent"
    assert pi.user_settings({"HOME": "/x", "PI_CODING_AGENT_DIR": str(agent_dir)}) == (
        agent_dir / "extensions" / "todo-ls.ts"
    )
