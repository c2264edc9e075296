"""A transcript path the hook cannot read as a file (docs/reliability.md#the-hook): a FIFO, a
folder or a device named as `transcript_path` must not hang the real `todo-ls hook` process.
Opening a FIFO for reading waits for a writer that never comes, so before the fix every host
waited until it killed the hook; now the file is refused and the hook answers at once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.hook_project import project_folder

pytestmark = pytest.mark.timeout(60)

TODO_LS = [sys.executable, "-m", "todo_ls"]
PLAN = "# Plan\n\n- [ ] write the parser\n"
FAST_S = 0.5  # the hook's own work, without the interpreter's start-up
HANG_S = 10.0  # how long a hung hook is let wait before the test says so


def hook_run(
    project: Path, state: Path, host: str, event: str, **extra: Any
) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    """One real `todo-ls hook --host HOST` process: its wall time and result."""
    data = {"session_id": "s1", "cwd": str(project), "hook_event_name": event, **extra}
    env = {**os.environ, "TODO_LS_STATE_DIR": str(state), "HOME": str(state.parent / "home")}
    started = time.monotonic()
    try:
        done = subprocess.run(
            [*TODO_LS, "hook", "--host", host],
            input=json.dumps(data).encode(),
            capture_output=True,
            env=env,
            timeout=HANG_S,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the {host} hook hung on {event} for {HANG_S} s")
    return time.monotonic() - started, done


def startup(project: Path, state: Path, host: str) -> float:
    """The wall time of a hook run that reads no transcript: the interpreter's start-up."""
    best = HANG_S
    for _ in range(2):
        elapsed, _ = hook_run(project, state, host, "UserPromptSubmit", prompt="go", turn_id="t0")
        best = min(best, elapsed)
    return best


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return project_folder(tmp_path, PLAN)


@pytest.mark.parametrize("host", ["claude-code", "codex", "qwen-code"])
def test_a_fifo_transcript_is_refused_at_once_and_the_stop_still_nudges(
    tmp_path: Path, project: Path, host: str
) -> None:
    state = tmp_path / "state"
    fifo = tmp_path / "transcript.jsonl"
    os.mkfifo(fifo)
    base = startup(project, state, host)
    elapsed, done = hook_run(
        project,
        state,
        host,
        "Stop",
        turn_id="t1",
        prompt_id="p1",
        stop_hook_active=False,
        last_assistant_message="done",
        transcript_path=str(fifo),
    )
    assert done.returncode in (0, 2), done.stderr
    assert elapsed - base < FAST_S, f"{host}: {elapsed:.2f} s against {base:.2f} s start-up"
    # Failing open on the transcript only: the open item still earns its nudge.
    assert b"write the parser" in done.stdout + done.stderr, (done.stdout, done.stderr)
    log = (state / "hook.log").read_text(encoding="utf-8")
    assert "not a regular file" in log, log


def test_a_folder_as_transcript_is_refused_too(tmp_path: Path, project: Path) -> None:
    state = tmp_path / "state"
    _, done = hook_run(
        project,
        state,
        "claude-code",
        "Stop",
        stop_hook_active=False,
        transcript_path=str(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    assert b"write the parser" in done.stdout
