"""Holding an agent's session end until the test has seen the state before it.

A print-mode (headless) run ends its session as it exits, a moment after its last Stop (pi:
0.15 s, OpenHands: 0.1 s), and an ended session leaves the editors' list: a language server
polling the store every 0.5 s (supervisor/hook_sessions.py) mostly sees the end, never the pause
the last Stop recorded. In an interactive session the user reads the pause for as long as the
session stays open; the gate stands in for that: the agent's session-end step (a command or an
extension of the user's own, before todo-ls's) waits until the test releases it, so the test
waits on the state it checks, not on a guessed delay. A host that runs one event's hooks side by
side (Droid) cannot hold todo-ls's own session end that way: there the gate holds the last Stop,
which the host lets return before it ends the session (`command(at=…)`).
"""

from __future__ import annotations

import json
import shlex
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TypeVar

from support.reliability_support import wait_until

HOLD_S = 60  # the longest the agent is held when a test never releases it (it failed)
T = TypeVar("T")


class SessionEndGate:
    """Marker files in `folder`: `held` (the agent reached its session end and waits),
    `released` (the test lets it go on), `calls` (a line per run of the command)."""

    def __init__(self, folder: Path) -> None:
        self.held = folder / "session-end.held"
        self.released = folder / "session-end.released"
        self.calls = folder / "session-end.calls"

    def command(self, at: int = 1) -> str:
        """A shell command that marks the agent held and waits for the release, at its
        `at`-th run (the runs before go on at once): a hook of an event that fires more than
        once, such as the Stop before a session end."""
        held, released = shlex.quote(str(self.held)), shlex.quote(str(self.released))
        calls = shlex.quote(str(self.calls))
        count = f"echo x >> {calls}; [ $(wc -l < {calls}) -lt {at} ] && exit 0"
        steps = HOLD_S * 20  # of 0.05 s
        wait = f"while [ ! -e {released} ] && [ $n -lt {steps} ]; do sleep 0.05; n=$((n + 1)); done"
        return f"sh -c {shlex.quote(f'{count}; touch {held}; n=0; {wait}')}"

    def pi_extension(self) -> str:
        """A pi extension (TypeScript) whose `session_shutdown` marks pi held and waits."""
        held, released = json.dumps(str(self.held)), json.dumps(str(self.released))
        return (
            'import { existsSync, writeFileSync } from "node:fs";\n'
            "export default function (pi: any): void {\n"
            '\tpi.on("session_shutdown", async () => {\n'
            f'\t\twriteFileSync({held}, "");\n'
            f"\t\tconst until = Date.now() + {HOLD_S * 1000};\n"
            f"\t\twhile (!existsSync({released}) && Date.now() < until)\n"
            "\t\t\tawait new Promise((resolve) => setTimeout(resolve, 25));\n"
            "\t});\n"
            "}\n"
        )

    def wait_held(self, running: Future[object], timeout: float = 120.0) -> None:
        """Wait until the agent `running` reached its session end; the run's own failure if
        it ended without."""
        wait_until(lambda: self.held.exists() or running.done(), timeout, "the session end")
        if not self.held.exists():
            running.result()  # its exception, if it failed
            raise AssertionError("the agent ended without reaching the held session end")

    def release(self) -> None:
        """Let the agent end its session."""
        self.released.touch()


def in_background(call: Callable[[], T]) -> Future[T]:
    """Run `call` in a thread (an agent run that the gate holds); its result or exception."""
    future: Future[T] = Future()

    def run() -> None:
        try:
            future.set_result(call())
        except BaseException as exc:  # handed to the test through the future
            future.set_exception(exc)

    threading.Thread(target=run, daemon=True).start()
    return future
