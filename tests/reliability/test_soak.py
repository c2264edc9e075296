"""Soak: three editors and a headless supervisor, one nudge per opportunity over a long run.

Issue 6 "Done when". Four todo-ls processes share one TODO_LS_STATE_DIR and one workspace folder
whose PLAN.md is subscribed: a real headless Neovim 0.11 with the plugin of the repository root, two
language servers behind a minimal stdio client (the other editor windows) and one
`todo-ls supervise`. They watch the fake OpenCode 2.x server (scriptable, so the run is fast and
every fault lands where the test wants it) with short timings (settle 200 ms, 1 s between nudges).

The test plays the agent of one session: each of its turns ends idle with open items (an
opportunity); the nudge resumes the session at once, as a real host does; the agent works, ticks a
box in every third turn, and ends its turn again when the test says, so faults hit while it works.
Along the run the server is restarted three times, its streams are dropped twice and the headless
supervisor is SIGKILLed and started again. Then the user pauses from Neovim (`:TodoLs pause`): a
turn ends, every process shows the session paused and nothing is sent; `:TodoLs resume` gets the
waiting agent its one nudge. Finally the agent ticks the last box: nothing more is sent. The
synthetic POSTs the fake server received are counted between one turn end and the next, so a
missing or doubled nudge names its opportunity.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

import pytest
from support.fake_v2 import FakeV2Server
from support.reliability_support import (
    ServerThread,
    StdioLanguageServer,
    SuperviseProcess,
    end_process,
    session_state,
    wait_until,
)

from todo_ls.store import NudgeRecord, Store

EDITORS = Path(__file__).resolve().parents[1] / "editors"
if str(EDITORS) not in sys.path:  # the Neovim helpers of tests/editors, imported, not copied
    sys.path.append(str(EDITORS))

from test_nvim import SERVER, _nvim, plugin_copy, private_env  # noqa: E402

pytestmark = [pytest.mark.editor, pytest.mark.timeout(90)]

__all__ = ["plugin_copy"]  # the fixture, shared with test_nvim.py

INIT = EDITORS / "agent_init.lua"  # the plugin set up as a user would, settings from the env
SESSION = "ses_soak"
OPPORTUNITIES = 24
TICK_EVERY = 3  # the agent ticks a box in every third turn (so no-progress never pauses it)
# After the nudge of opportunity i the fault is injected, before the agent's next turn.
FAULTS = {3: "drop", 6: "restart", 9: "kill", 12: "restart", 15: "drop", 18: "restart"}
WAIT = 15.0  # upper bound for one nudge or one reconnect on a loaded machine
AGENT_READS_S = 0.3  # between a nudge and the agent's next turn: a doubled nudge lands here
QUIET_S = 2.0  # settle + the minimum interval + margin: long enough for a wrong nudge to come
OPEN_ITEMS = 9
PLAN = "# Plan\n\n- [x] write the notes\n" + "".join(
    f"- [ ] step {n}\n" for n in range(1, OPEN_ITEMS + 1)
)


def todo_settings(url: str) -> dict[str, Any]:
    """The `todoLs` settings of every process: the short timings of a soak."""
    return {
        "markdownFiles": ["PLAN.md"],
        "supervisor": {
            "url": url,
            "settleMs": 200,
            "minNudgeIntervalMs": 1000,
            # One agent gets 25 nudges without a user prompt in between: the episode cap
            # (default 20) is not what this test is about.
            "maxNudgesPerEpisode": 100,
            "toasts": False,
        },
    }


class Member(Protocol):
    """One todo-ls process of the fleet, as the test observes it."""

    name: str
    proc: subprocess.Popen[bytes]

    def alive(self) -> bool: ...
    def connected(self) -> bool: ...
    def state_of(self, session_id: str) -> str | None: ...
    def stop(self) -> None: ...


class HeadlessNeovim:
    """Neovim 0.11 headless with the plugin, on a markdown buffer of the workspace, read and
    driven through its RPC socket (`nvim --server … --remote-expr`)."""

    def __init__(
        self, workspace: Path, plugin: Path, env: dict[str, str], settings: dict[str, Any]
    ) -> None:
        self.name = "Neovim"
        tmp = plugin.parent
        self.socket = tmp / "nvim.sock"
        self.env = env
        self._stderr = (tmp / "nvim.stderr").open("wb")
        command = [_nvim(), "--headless", "-u", str(INIT), "--listen", str(self.socket)]
        env = {
            **env,
            "TODO_LS_TEST_PLUGIN": str(plugin),
            "TODO_LS_TEST_CMD": json.dumps(SERVER),
            "TODO_LS_TEST_SETTINGS": json.dumps({"todoLs": settings}),
        }
        # Its own process group: teardown ends Neovim and the language server it started.
        self.proc = subprocess.Popen(
            [*command, "NOTES.md"],
            cwd=workspace,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
            start_new_session=True,
        )

    def lua(self, expression: str) -> Any:
        """The value of a Lua expression in the running Neovim (None while not listening)."""
        encoded = "luaeval('vim.json.encode({})')".format(expression.replace("'", "''"))
        done = subprocess.run(
            [_nvim(), "--headless", "--clean", "--server", str(self.socket),
             "--remote-expr", encoded],
            env=self.env, capture_output=True, text=True, timeout=10, check=False,
        )  # fmt: skip
        if done.returncode != 0 or not done.stdout.strip():
            return None
        return json.loads(done.stdout)

    def command(self, line: str) -> None:
        """Run an Ex command as the user would type it."""
        self.lua(f"vim.cmd({json.dumps(line)})")

    def _supervisor(self) -> dict[str, Any]:
        found = self.lua("(require('todo_ls').status() or {}).supervisor")
        return found if isinstance(found, dict) else {}

    def alive(self) -> bool:
        return self.proc.poll() is None

    def connected(self) -> bool:
        return bool((self._supervisor().get("host") or {}).get("connected"))

    def state_of(self, session_id: str) -> str | None:
        return session_state(self._supervisor(), session_id)

    def stop(self) -> None:
        if self.alive():
            self.lua("vim.schedule(function() vim.cmd('qa!') end)")
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(5)
        # The language server Neovim started is in the same group; whatever is left goes.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        end_process(self.proc)
        self._stderr.close()


class Ledger:
    """Nudges (synthetic POSTs at the fake server) counted per window: from one turn end (or
    command) to the next, so each opportunity's count is known at the end."""

    def __init__(self, fake: FakeV2Server) -> None:
        self._fake = fake
        self.windows: list[tuple[str, int, int]] = []  # (what, expected, POSTs before)
        self.opened_at: list[float] = []  # epoch seconds, as in the store's nudge ledger

    def nudges(self) -> int:
        return len(self._fake.synthetic_requests)

    def open(self, what: str, expected: int) -> None:
        """A new window starts now: `expected` nudges belong to it."""
        self.windows.append((what, expected, self.nudges()))
        self.opened_at.append(time.time())

    def counts(self) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        """(expected, got) per window, the last one closed now."""
        marks = [start for _, _, start in self.windows] + [self.nudges()]
        got = [(what, marks[i + 1] - marks[i]) for i, (what, _, _) in enumerate(self.windows)]
        return [(what, expected) for what, expected, _ in self.windows], got


class Soak:
    """The fleet, the fake server and the agent of the test."""

    def __init__(self, workspace: Path, env: dict[str, str], server: ServerThread) -> None:
        self.workspace = workspace
        self.env = env
        self.server = server
        self.fake = server.fake
        self.members: list[Member] = []
        self.ledger = Ledger(self.fake)

    # --- processes ------------------------------------------------------------------------

    def supervise(self) -> SuperviseProcess:
        settings = json.dumps(todo_settings(self.fake.url))
        command = [*SERVER, "supervise", "--directory", str(self.workspace)]
        member = SuperviseProcess([*command, "--settings", settings], self.env)
        self.members.append(member)
        return member

    def language_server(self) -> None:
        command = [*SERVER, "serve", "--log-level", "WARNING"]
        options = todo_settings(self.fake.url)
        self.members.append(StdioLanguageServer(command, self.env, self.workspace, options))

    def live(self) -> list[Member]:
        return [m for m in self.members if m.alive()]

    def wait_connected(self) -> None:
        def missing() -> list[str]:
            return [m.name for m in self.members if not (m.alive() and m.connected())]

        wait_until(lambda: not missing(), WAIT, "every process connected")

    def reconnect_after(self, fault: Callable[[], object], what: str, streams: int) -> None:
        """Inject `fault`, then wait until `streams` new event streams were opened."""
        expected = self.fake.streams_opened + streams
        fault()
        wait_until(lambda: self.fake.streams_opened >= expected, WAIT, f"reconnected after {what}")

    def inject(self, fault: str) -> None:
        if fault == "drop":
            drop = lambda: self.server.call(self.fake.drop_streams)  # noqa: E731
            self.reconnect_after(drop, "a drop", len(self.live()))
        elif fault == "restart":

            def restart() -> None:
                self.server.run(self.fake.stop())
                self.server.run(self.fake.start())  # the same port

            self.reconnect_after(restart, "a server restart", len(self.live()))
        else:
            victim = next(m for m in self.members if isinstance(m, SuperviseProcess))
            victim.kill()
            self.members.remove(victim)
            self.reconnect_after(self.supervise, "a SIGKILL and a new supervise", 1)
        self.wait_connected()

    def sent(self) -> list[NudgeRecord]:
        """The sent entries of the shared claim ledger."""
        store = Store.open(Path(self.env["TODO_LS_STATE_DIR"]))
        try:
            return store.nudges(SESSION)
        finally:
            store.close()

    def history(self) -> str:
        """What happened when, for a failure message: windows, sent claims (owner = host:pid:
        nonce), and what the headless supervisors printed."""
        events = [
            (at, f"window {what}")
            for at, (what, _, _) in zip(self.ledger.opened_at, self.ledger.windows, strict=True)
        ]
        events += [(r.at, f"sent #{r.number} by pid {r.owner.split(':')[1]}") for r in self.sent()]
        start = min((at for at, _ in events), default=0.0)
        lines = [f"{at - start:7.2f}s {text}" for at, text in sorted(events)]
        pids = {m.name + str(i): m.proc.pid for i, m in enumerate(self.members)}
        lines.append(f"processes: {pids}")
        for member in self.members:
            if isinstance(member, SuperviseProcess):
                lines += ["supervise:", *member.lines[-40:]]
        return "\n".join(lines)

    # --- the agent ------------------------------------------------------------------------

    def tick(self, count: int = 1) -> None:
        """The agent ticks the first `count` open boxes (an atomic write, as editors do)."""
        plan = self.workspace / "PLAN.md"
        text = re.sub(r"- \[ \]", "- [x]", plan.read_text("utf-8"), count=count)
        temp = plan.with_suffix(".tmp")
        temp.write_text(text, "utf-8")
        temp.replace(plan)

    def turn(self, what: str, expected: int, *, tick: int = 0) -> None:
        """The agent works (a turn; after a nudge it began when the host resumed the session)
        and ends idle; `expected` nudges belong to what follows."""
        if tick:
            self.tick(tick)
        self.ledger.open(what, expected)
        self.server.run(self.fake.run_turn(SESSION))

    def wait_nudges(self, total: int, what: str) -> None:
        wait_until(lambda: self.ledger.nudges() >= total, WAIT, f"a nudge for {what}")
        time.sleep(AGENT_READS_S)

    def wait_every_state(self, state: str) -> None:
        def others() -> dict[str, str | None]:
            seen = {m.name: m.state_of(SESSION) for m in self.members}
            return {name: found for name, found in seen.items() if found != state}

        wait_until(lambda: not others(), WAIT, f"every process shows {SESSION} {state}")


def resume_on_nudge(fake: FakeV2Server) -> Callable[[str, dict[str, Any]], Awaitable[None]]:
    """The host's answer to a nudge: the session resumes at once (busy in the snapshot,
    `session.execution.started`). The agent's turn ends when the test says (`Soak.turn`), so
    a fault can hit while it works."""

    async def react(session_id: str, request: dict[str, Any]) -> None:
        fake.active[session_id] = {"type": "running"}
        fake.emit("session.execution.started", {"sessionID": session_id})

    return react


@pytest.fixture
def soak(tmp_path: Path) -> Iterator[Soak]:
    workspace = tmp_path / "project"
    (workspace / ".git").mkdir(parents=True)  # the plugin's root marker
    (workspace / "PLAN.md").write_text(PLAN, encoding="utf-8")
    (workspace / "NOTES.md").write_text("# Notes\n\nNothing to do here.\n", encoding="utf-8")
    fake = FakeV2Server(password="soak-pw", heartbeat_s=2.0)
    server = ServerThread(fake)
    env = {**private_env(tmp_path), "OPENCODE_PASSWORD": fake.password}
    # The headless supervisor reads its subscriptions from the shared store.
    store = Store.open(Path(env["TODO_LS_STATE_DIR"]))
    store.subscribe(str(workspace), str(workspace / "PLAN.md"))
    store.close()
    fake.add_session(SESSION, str(workspace), title="soak")
    fake.on_synthetic = resume_on_nudge(fake)
    run = Soak(workspace, env, server)
    try:
        yield run
    finally:
        for member in run.members:
            member.stop()
        server.stop()


def test_one_nudge_per_opportunity_through_restarts_drops_kill_and_pause(
    soak: Soak, plugin_copy: Path
) -> None:
    started = time.monotonic()
    nvim = HeadlessNeovim(soak.workspace, plugin_copy, soak.env, todo_settings(soak.fake.url))
    soak.members.append(nvim)
    soak.language_server()
    soak.language_server()
    soak.supervise()
    soak.wait_connected()
    assert soak.fake.streams_opened == 4  # one stream per process: all four are watching

    # The long run: every turn that ends with open items gets exactly one nudge.
    soak.fake.user_prompt(SESSION, "Work through PLAN.md.")
    for n in range(OPPORTUNITIES):
        tick = 1 if n % TICK_EVERY == TICK_EVERY - 1 else 0
        soak.turn(f"opportunity {n}" + (" (ticked a box)" if tick else ""), 1, tick=tick)
        soak.wait_nudges(n + 1, f"opportunity {n}")
        if n in FAULTS:
            soak.inject(FAULTS[n])
    open_left = OPEN_ITEMS - OPPORTUNITIES // TICK_EVERY
    assert open_left == 1

    # The user pauses in Neovim: the pause reaches every process through the shared store.
    nvim.command("TodoLs pause")
    store = Store.open(Path(soak.env["TODO_LS_STATE_DIR"]))
    try:
        wait_until(lambda: SESSION in store.pauses(), WAIT, "the pause in the shared store")
    finally:
        store.close()
    soak.turn("a turn ending while paused", 0)
    soak.wait_every_state("paused")
    time.sleep(QUIET_S)
    # Resumed, the idle agent with an open item gets its one nudge.
    soak.ledger.open(":TodoLs resume", 1)
    nvim.command("TodoLs resume")
    soak.wait_nudges(OPPORTUNITIES + 1, "the resumed session")

    # The agent ticks the last box: every process sees it done, and nothing is sent any more.
    soak.turn("the turn that ticks the last box", 0, tick=open_left)
    soak.wait_every_state("done")
    time.sleep(QUIET_S)

    expected, got = soak.ledger.counts()
    assert got == expected, soak.history()
    assert len(soak.sent()) == soak.ledger.nudges(), soak.history()
    # Every process is still up and connected at the end, the killed one replaced.
    assert [m.name for m in soak.members if not m.alive()] == []
    soak.wait_connected()
    assert soak.fake.streams_dropped_slow == 0
    elapsed = time.monotonic() - started
    assert elapsed < 90, f"the soak took {elapsed:.0f} s"
