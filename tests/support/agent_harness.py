"""The real agent CLIs (Claude Code 2.1.332, Codex 0.171.0, Gemini CLI 0.61.0) run offline
against the scripted fake models, in a throw-away project whose hooks `todo-ls install` wrote.

A plain module, imported by name (see tests/support/lsp_harness.py for why not `conftest`); the
fixtures are in conftest.py. The binaries come from scripts/setup-agents.sh; when one is
missing the tests fail and say so (they are never skipped).

Every process gets the test's own `HOME`, `CODEX_HOME`, `TMPDIR` and `TODO_LS_STATE_DIR`, so
nothing of the user's agents, settings or todo-ls state is read or written.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shlex
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from support.fake_agent_models import (
    FakeGeminiAPI,
    FakeMessagesAPI,
    FakeResponsesAPI,
    claude_bash,
    claude_todo_write,
    codex_shell,
    codex_update_plan,
    gemini_shell,
    gemini_write_todos,
)
from support.fake_model import Reply, stall
from support.lsp_harness import with_no_host
from support.reliability_support import StdioLanguageServer, end_process, wait_until
from todo_ls.store import HookSession, Store

Json = dict[str, Any]

CLAUDE_VERSION = "2.1.332"
CODEX_VERSION = "0.171.0"
GEMINI_VERSION = "0.61.0"
RUN_TIMEOUT = 90.0  # one agent run; a normal one takes 1-3 s
VENV_BIN = Path(sys.executable).parent


def _cache() -> Path:
    return Path(os.environ.get("TODO_LS_CACHE") or Path.home() / ".cache" / "todo-ls") / "agents"


def claude_binary() -> Path:
    """Claude Code's platform binary (npm 11 skips the package's postinstall that would link
    it)."""
    return _installed(
        _cache() / "claude-code/node_modules/@anthropic-ai/claude-code-linux-x64/claude",
        f"Claude Code {CLAUDE_VERSION}",
    )


def codex_binary() -> Path:
    """Codex's platform binary."""
    return _installed(
        _cache()
        / "codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
        f"Codex {CODEX_VERSION}",
    )


def gemini_script() -> Path:
    """Gemini CLI's bundled script (run with Node), unpacked from its npm package."""
    return _installed(
        _cache() / "gemini-cli/package/bundle/gemini.js", f"Gemini CLI {GEMINI_VERSION}"
    )


def _installed(path: Path, what: str, setup: str = "scripts/setup-agents.sh") -> Path:
    if not path.is_file():
        raise AssertionError(f"{what} is not installed ({path} missing): run {setup}")
    return path


PLAN = """\
# Plan

- [ ] write the parser
- [x] write the notes
- [ ] ship the release
"""
OPEN_LINES = (3, 5)  # the 1-based lines of PLAN's open items


class Project:
    """A temporary project (`PLAN.md`, `todo-ls.toml` subscribing it) with its own HOME,
    CODEX_HOME, TMPDIR and todo-ls state folder beside it."""

    def __init__(self, base: Path) -> None:
        self.root = base / "project"
        self.home = base / "home"
        self.codex_home = self.home / ".codex"
        self.tmp = base / "tmp"
        self.state = base / "state"
        for folder in (self.root, self.home, self.codex_home, self.tmp, self.state):
            folder.mkdir(parents=True, exist_ok=True)
        self.plan_path = self.root / "PLAN.md"
        self.plan_path.write_text(PLAN, encoding="utf-8")
        self.settings({})

    def settings(self, supervisor: Json) -> None:
        """Write `todo-ls.toml`: PLAN.md subscribed, and the given `[supervisor]` keys."""
        lines = ['markdownFiles = ["PLAN.md"]', "", "[supervisor]"]
        lines += [f"{key} = {json.dumps(value)}" for key, value in supervisor.items()]
        (self.root / "todo-ls.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")

    def env(self) -> dict[str, str]:
        """The environment every process of the test runs with (the venv's todo-ls first on
        PATH, as in a shell where the user installed it)."""
        passed = {k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ}
        return {
            **passed,  # the todo-ls under test, if the caller points Python at another copy
            "PATH": os.pathsep.join([str(VENV_BIN), os.environ.get("PATH", "/usr/bin:/bin")]),
            "LANG": "C.UTF-8",
            "HOME": str(self.home),
            "CODEX_HOME": str(self.codex_home),
            "TMPDIR": str(self.tmp),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_STATE_HOME": str(self.home / ".local" / "state"),
            "TODO_LS_STATE_DIR": str(self.state),
        }

    def install(self, host: str, *args: str, module: bool = False, ok: bool = True) -> str:
        """Run `todo-ls install <host> <args>` for this project (as the script, or as
        `python -m todo_ls` when `module`: the hook command then differs) and return its
        output; AssertionError when it does not succeed (or, with `ok=False`, does not fail)."""
        start = [sys.executable, "-m", "todo_ls"] if module else [str(VENV_BIN / "todo-ls")]
        command = [*start, "install", host, "--directory", str(self.root), *args]
        done = subprocess.run(
            command, env=self.env(), cwd=self.root, capture_output=True, text=True, timeout=30
        )
        if (done.returncode == 0) != ok:
            raise AssertionError(
                f"todo-ls install {host} {' '.join(args)} exited {done.returncode}: "
                f"{done.stdout}{done.stderr}"
            )
        return done.stdout + done.stderr

    def open_items(self) -> int:
        return self.plan_path.read_text(encoding="utf-8").count("- [ ]")

    def hook_log(self) -> list[str]:
        """The lines `todo-ls hook` logged: its log in the state folder, or in the temp
        folder when the state folder cannot be written."""
        lines: list[str] = []
        for log in (self.state / "hook.log", *self.tmp.glob("todo-ls-*/hook.log")):
            if log.is_file():
                lines += log.read_text(encoding="utf-8").splitlines()
        return lines

    def language_server(self) -> StdioLanguageServer:
        """A todo-ls language server over stdio with this project as its workspace and the
        same state folder as the hooks (started beside the agent, as an editor would, with
        PLAN.md subscribed in its settings too)."""
        settings: Json = {"markdownFiles": ["PLAN.md"]}
        return StdioLanguageServer(
            [sys.executable, "-m", "todo_ls"], self.env(), self.root, with_no_host(settings)
        )


@dataclass
class AgentRun:
    """One finished agent process: exit code, its JSONL events, stderr."""

    returncode: int
    events: list[Json]
    stderr: str

    def of_type(self, kind: str) -> list[Json]:
        return [e for e in self.events if e.get("type") == kind]


def run_to_end(command: list[str], env: dict[str, str], cwd: Path) -> AgentRun:
    """Run an agent with no input to its exit."""
    done = subprocess.run(
        command,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    return AgentRun(done.returncode, _jsonl(done.stdout), done.stderr)


def _jsonl(text: str) -> list[Json]:
    events = []
    for line in text.splitlines():
        if line.startswith("{"):
            try:
                events.append(json.loads(line))
            except ValueError:
                continue
    return events


class LineProcess:
    """A child process talking JSON lines on stdin/stdout; a reader thread keeps every
    message it prints."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: Path, name: str) -> None:
        self.name = name
        self.messages: list[Json] = []
        self.proc = subprocess.Popen(
            command,
            env=env,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.messages += _jsonl(line)

    def send(self, message: Json) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def wait_message(self, match: Callable[[Json], bool], what: str, timeout: float = 60.0) -> Json:
        """The first message `match` accepts, waiting up to `timeout` seconds for it."""
        found: list[Json] = []

        def seen() -> bool:
            if self.proc.poll() is not None and not found:
                raise AssertionError(f"{self.name} exited ({self.proc.returncode}) before {what}")
            found[:] = [m for m in self.messages if match(m)][:1]
            return bool(found)

        wait_until(seen, timeout, f"{self.name}: {what}")
        return found[0]

    def stop(self) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(OSError):  # it may have exited already
                self.proc.stdin.close()
        end_process(self.proc)  # type: ignore[arg-type]


class ClaudeCode:
    """Claude Code in print mode against `FakeMessagesAPI`."""

    host = "claude-code"
    stop_event = "Stop"

    def __init__(self, project: Project, model: FakeMessagesAPI) -> None:
        self.binary = claude_binary()
        self.project = project
        self.model = model
        self.project_settings = project.root / ".claude" / "settings.json"
        self.user_settings = project.home / ".claude" / "settings.json"
        self._todo_tools: dict[str, str] = {}

    def env(self) -> dict[str, str]:
        return {
            **self.project.env(),
            "ANTHROPIC_BASE_URL": self.model.origin,
            "ANTHROPIC_API_KEY": "sk-ant-fake-key",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            **self._todo_tools,
        }

    def enable_todo_list(self) -> None:
        """Offer the model its todo list: this build's default model gets none; the legacy
        `TodoWrite` (kept in the transcript, seen by the PostToolUse hook) with these."""
        self._todo_tools = {"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1", "CLAUDE_CODE_ENABLE_TASKS": "0"}

    def todo_list(self, todos: list[tuple[str, str]], first: bool = False) -> list[Reply]:
        return claude_todo_write(todos, first)

    def _args(self) -> list[str]:
        # `--include-hook-events`: each hook's exit code, stdout and stderr in the output.
        # Bash runs without a permission prompt (the fake model ticks boxes with it).
        return [
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-hook-events",
            "--allowedTools",
            "Bash",
        ]

    def run(self, prompt: str = "Work through PLAN.md.", wrap: Sequence[str] = ()) -> AgentRun:
        """`claude -p <prompt>` to its end (started through the `wrap` command, if any)."""
        command = [*wrap, str(self.binary), "-p", prompt, *self._args()]
        return run_to_end(command, self.env(), self.project.root)

    def shell(self, command: str) -> Reply:
        return claude_bash(command)

    def session_of(self, run: AgentRun) -> str:
        return str(next(e for e in run.events if e.get("subtype") == "init")["session_id"])

    def finished(self, run: AgentRun) -> bool:
        """Whether the run ended its turn normally (not an error, not an override)."""
        results = run.of_type("result")
        return run.returncode == 0 and bool(results) and results[-1].get("is_error") is False

    def conversation(self) -> ClaudeConversation:
        """Claude Code driven over stream-json on stdin, as an IDE or the Agent SDK does."""
        command = [str(self.binary), "--input-format", "stream-json", *self._args()]
        return ClaudeConversation(command, self.env(), self.project.root)


class ClaudeConversation(LineProcess):
    """A stream-json conversation, one user turn at a time: `start_turn`, `interrupt`,
    `finish_turn`."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: Path) -> None:
        super().__init__(command, env, cwd, "claude (stream-json)")
        self._ids = itertools.count(1)
        self.turns = 0

    def start_turn(self, text: str) -> None:
        """Send a real user prompt."""
        self.turns += 1
        self.send({"type": "user", "message": {"role": "user", "content": text}})

    def interrupt(self) -> None:
        """What Esc does in the TUI: a `control_request` interrupt."""
        request_id = f"req_{next(self._ids)}"
        request = {"subtype": "interrupt"}
        self.send({"type": "control_request", "request_id": request_id, "request": request})

    def finish_turn(self, timeout: float = 60.0) -> str:
        """Wait for the current turn's result: `completed`, or `interrupted` for a turn the
        user interrupted (`error_during_execution`)."""
        count = self.turns
        self.wait_message(lambda _m: len(self.results()) >= count, f"turn #{count}", timeout)
        result = self.results()[count - 1]
        if result.get("subtype") == "success" and not result.get("is_error"):
            return "completed"
        return "interrupted" if result.get("subtype") == "error_during_execution" else str(result)

    def results(self) -> list[Json]:
        return [m for m in self.messages if m.get("type") == "result"]

    @property
    def session_id(self) -> str:
        init = self.wait_message(lambda m: m.get("subtype") == "init", "its init message")
        return str(init["session_id"])

    def hook_responses(self, event: str = "Stop") -> list[Json]:
        return hook_responses(self.messages, event)


def hook_responses(events: list[Json], event: str = "Stop") -> list[Json]:
    """Claude Code's `hook_response` events (with `--include-hook-events`) of one hook event."""
    return [
        e for e in events if e.get("subtype") == "hook_response" and e.get("hook_event") == event
    ]


class Codex:
    """Codex CLI against `FakeResponsesAPI`: `codex exec --json` and `codex app-server`."""

    host = "codex"
    stop_event = "Stop"

    def __init__(self, project: Project, model: FakeResponsesAPI) -> None:
        self.binary = codex_binary()
        self.project = project
        self.model = model
        self.project_settings = project.root / ".codex" / "hooks.json"
        self.user_settings = project.codex_home / "hooks.json"
        config = f"""\
model = "fake-model"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "{model.base_url}"
env_key = "FAKE_MODEL_KEY"
wire_api = "responses"

[analytics]
enabled = false

[projects."{project.root}"]
trust_level = "trusted"
"""
        (project.codex_home / "config.toml").write_text(config, encoding="utf-8")

    def env(self) -> dict[str, str]:
        return {**self.project.env(), "FAKE_MODEL_KEY": "fake-key"}

    def run(self, prompt: str = "Work through PLAN.md.", wrap: Sequence[str] = ()) -> AgentRun:
        """`codex exec --json <prompt>` to its end (started through the `wrap` command, if
        any). Hook trust is bypassed with Codex's own flag (a user trusts the hooks once with
        /hooks; `conversation` goes that way)."""
        command = [
            *wrap,
            str(self.binary),
            "exec",
            "--json",
            "--skip-git-repo-check",
            "--dangerously-bypass-hook-trust",
            prompt,
        ]
        return run_to_end(command, self.env(), self.project.root)

    def shell(self, command: str) -> Reply:
        return codex_shell(command)

    def enable_todo_list(self) -> None:
        """Offer the model `update_plan` (not offered to an unknown model by default)."""
        config = self.project.codex_home / "config.toml"
        text = config.read_text(encoding="utf-8")
        config.write_text(text + "\n[tools.update_plan]\nenabled = true\n", encoding="utf-8")

    def todo_list(self, todos: list[tuple[str, str]], first: bool = False) -> list[Reply]:
        return codex_update_plan(todos, first)

    def session_of(self, run: AgentRun) -> str:
        return str(run.of_type("thread.started")[0]["thread_id"])

    def finished(self, run: AgentRun) -> bool:
        """Whether the run ended its turn normally."""
        return run.returncode == 0 and bool(run.of_type("turn.completed"))

    def app_server(self) -> CodexAppServer:
        return CodexAppServer([str(self.binary), "app-server"], self.env(), self.project.root)

    def conversation(self) -> CodexThread:
        """A thread of `codex app-server` with the project's hooks trusted (as the user does
        once with /hooks: the app-server has no way around hook trust)."""
        server = self.app_server()
        try:
            server.trust_hooks()
            return CodexThread(server)
        except BaseException:
            server.stop()
            raise


class CodexAppServer(LineProcess):
    """`codex app-server`: JSON-RPC over stdio, as the Codex IDE extension drives it."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: Path) -> None:
        super().__init__(command, env, cwd, "codex app-server")
        self.cwd = cwd
        self._ids = itertools.count(1)
        self.request("initialize", {"clientInfo": {"name": "todo-ls-tests", "version": "0"}})
        self.send({"method": "initialized"})

    def request(self, method: str, params: Json, timeout: float = 30.0) -> Json:
        """Send a request and return its result; AssertionError on an error answer."""
        request_id = next(self._ids)
        self.send({"id": request_id, "method": method, "params": params})
        answer = self.wait_message(
            lambda m: m.get("id") == request_id and "method" not in m,
            f"the answer to {method}",
            timeout,
        )
        if "error" in answer:
            raise AssertionError(f"{method} failed: {answer['error']}")
        return dict(answer.get("result") or {})

    def trust_hooks(self) -> int:
        """Trust every hook of the project, as the user does with /hooks in the TUI (Codex
        skips untrusted hooks silently; todo-ls itself never trusts them). Returns how many
        hooks were trusted."""
        listed = self.request("hooks/list", {"cwds": [str(self.cwd)]})
        hooks = [h for entry in listed["data"] for h in entry["hooks"]]
        state = {h["key"]: {"trusted_hash": h["currentHash"]} for h in hooks}
        edit = {"keyPath": "hooks.state", "value": state, "mergeStrategy": "upsert"}
        self.request("config/batchWrite", {"edits": [edit]})
        listed = self.request("hooks/list", {"cwds": [str(self.cwd)]})
        untrusted = [
            h["command"]
            for entry in listed["data"]
            for h in entry["hooks"]
            if h["trustStatus"] != "trusted"
        ]
        assert not untrusted, f"hooks still untrusted: {untrusted}"
        return len(hooks)

    def start_thread(self) -> str:
        return str(self.request("thread/start", {"cwd": str(self.cwd)})["thread"]["id"])

    def start_turn(self, thread: str, text: str) -> str:
        params = {"threadId": thread, "input": [{"type": "text", "text": text}]}
        return str(self.request("turn/start", params)["turn"]["id"])

    def interrupt(self, thread: str, turn: str) -> None:
        self.request("turn/interrupt", {"threadId": thread, "turnId": turn})

    def wait_turn(self, turn: str, timeout: float = 60.0) -> str:
        """The status a turn completed with (`completed`, `interrupted`, …)."""
        done = self.wait_message(
            lambda m: m.get("method") == "turn/completed" and m["params"]["turn"]["id"] == turn,
            f"turn {turn} completed",
            timeout,
        )
        return str(done["params"]["turn"]["status"])


class CodexThread:
    """One app-server thread, one user turn at a time (the surface of `ClaudeConversation`)."""

    def __init__(self, server: CodexAppServer) -> None:
        self.server = server
        self.session_id = server.start_thread()
        self.turn = ""

    def start_turn(self, text: str) -> None:
        self.turn = self.server.start_turn(self.session_id, text)

    def interrupt(self) -> None:
        """What Esc does in the TUI: `turn/interrupt`."""
        self.server.interrupt(self.session_id, self.turn)

    def finish_turn(self, timeout: float = 60.0) -> str:
        """Wait for the current turn's end: `completed` or `interrupted`."""
        return self.server.wait_turn(self.turn, timeout)

    def stop(self) -> None:
        self.server.stop()


class GeminiCli:
    """Gemini CLI against `FakeGeminiAPI`: `gemini -p` (stream-json) and its TUI under tmux.
    The project folder is trusted in `~/.gemini/trustedFolders.json` (Gemini CLI drops a
    project's hooks in an untrusted folder), and the model is named, so no routing call is
    made."""

    host = "gemini-cli"
    stop_event = "AfterAgent"

    def __init__(self, project: Project, model: FakeGeminiAPI) -> None:
        self.script = gemini_script()
        self.project = project
        self.model = model
        self.project_settings = project.root / ".gemini" / "settings.json"
        self.user_settings = project.home / ".gemini" / "settings.json"
        self.user_settings.parent.mkdir(parents=True, exist_ok=True)
        settings = {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "general": {"enableAutoUpdate": False},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "model": {"name": "gemini-2.5-flash"},
        }
        self.user_settings.write_text(json.dumps(settings, indent=2), encoding="utf-8")
        self.trust(True)

    def trust(self, trusted: bool) -> None:
        """Trust the project folder in Gemini CLI's own list (or take it out)."""
        folders = {str(self.project.root): "TRUST_FOLDER"} if trusted else {}
        path = self.project.home / ".gemini" / "trustedFolders.json"
        path.write_text(json.dumps(folders), encoding="utf-8")

    def env(self) -> dict[str, str]:
        return {
            **self.project.env(),
            "GEMINI_API_KEY": "fake-key",
            "GOOGLE_GEMINI_BASE_URL": self.model.origin,
            "GEMINI_CLI_NO_RELAUNCH": "true",  # one process, no re-exec with more memory
        }

    def _command(self) -> list[str]:
        node = shutil.which("node")
        if node is None:
            raise AssertionError("Gemini CLI needs Node, and node is not on PATH")
        # Tools run without a confirmation (the fake model ticks boxes with the shell).
        return [node, str(self.script), "--approval-mode", "yolo"]

    def run(
        self, prompt: str = "Work through PLAN.md.", wrap: Sequence[str] = (), *extra: str
    ) -> AgentRun:
        """`gemini -p <prompt> -o stream-json` to its end (through `wrap`, if any)."""
        command = [*wrap, *self._command(), "-p", prompt, "-o", "stream-json", *extra]
        return run_to_end(command, self.env(), self.project.root)

    def shell(self, command: str) -> Reply:
        return gemini_shell(command)

    def enable_todo_list(self) -> None:
        """Nothing to do: with `--approval-mode yolo` the model is offered `write_todos`."""

    def todo_list(self, todos: list[tuple[str, str]], first: bool = False) -> list[Reply]:
        return gemini_write_todos(todos, first)

    def session_of(self, run: AgentRun) -> str:
        return str(run.of_type("init")[0]["session_id"])

    def finished(self, run: AgentRun) -> bool:
        """Whether the run ended its turn normally."""
        results = run.of_type("result")
        return run.returncode == 0 and bool(results) and results[-1].get("status") == "success"

    def conversation(self) -> GeminiTui:
        """The interactive TUI in a tmux session, typed into as a user does."""
        return GeminiTui(self)


class TuiAgent(Protocol):
    """An agent whose TUI `GeminiTui` drives: Gemini CLI, and Qwen Code (its fork)."""

    project: Project

    def env(self) -> dict[str, str]: ...

    def _command(self) -> list[str]: ...


class GeminiTui:
    """Gemini CLI's TUI under tmux (its own socket in the test's temp folder): a turn is typed
    text and Enter, Esc interrupts. A turn has ended when the session's hook record (found by
    the prompt as its title) is no longer `working`."""

    READY = "Type your message"

    def __init__(self, gemini: TuiAgent) -> None:
        self.gemini = gemini
        self.socket = gemini.project.tmp / "tmux.sock"
        self.store = Store.open(gemini.project.state)
        self.prompts: list[str] = []
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in gemini.env().items())
        command = f"exec env -i {env} {shlex.join(gemini._command())}"
        size = ["-x", "160", "-y", "50"]
        self._tmux("new-session", "-d", "-s", "gemini", *size, "-c", str(gemini.project.root))
        self._tmux("send-keys", "-t", "gemini", "-l", command + "\n")
        wait_until(lambda: self.READY in self.screen(), 90.0, "the Gemini CLI prompt")

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-S", str(self.socket), *args], capture_output=True, text=True, timeout=30
        )
        if done.returncode != 0:
            raise AssertionError(f"tmux {args[0]} failed: {done.stderr.strip()}")
        return done.stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "gemini")

    def start_turn(self, text: str) -> None:
        """Type a real user prompt (each prompt of a test must differ: it finds the turn)."""
        assert text not in self.prompts, f"prompt {text!r} used twice"
        self.prompts.append(text)
        self._tmux("send-keys", "-t", "gemini", "-l", text)
        wait_until(lambda: text in self.screen(), 30.0, f"{text!r} typed into the TUI")
        # An Enter right after the text (or while the TUI is still starting) may be taken as
        # part of the input: press it again until the prompt reached the hook (an Enter on
        # an empty input does nothing).
        for _ in range(5):
            self._tmux("send-keys", "-t", "gemini", "Enter")
            with contextlib.suppress(AssertionError):
                wait_until(lambda: self.record() is not None, 8.0, "the prompt's hook event")
                return
        raise AssertionError(f"the TUI did not take the prompt {text!r}:\n{self.screen()}")

    def interrupt(self) -> None:
        """Esc, as the user presses it."""
        self._tmux("send-keys", "-t", "gemini", "Escape")

    def record(self) -> HookSession | None:
        """The hook record of the session of the latest prompt."""
        prompt = self.prompts[-1] if self.prompts else None
        found = [s for s in self.store.hook_sessions() if s.title == prompt]
        return found[-1] if found else None

    def finish_turn(self, timeout: float = 60.0) -> str:
        """Wait for the current turn's end: `completed`, or `interrupted` when the hook
        recorded an interrupt."""
        ended: list[HookSession] = []

        def done() -> bool:
            found = self.record()
            ended[:] = [found] if found is not None and found.state != "working" else []
            return bool(ended)

        try:
            wait_until(done, timeout, f"the end of turn {self.prompts[-1]!r}")
        except AssertionError as exc:
            raise AssertionError(f"{exc}; the screen:\n{self.screen()}") from None
        return "interrupted" if ended[0].detail == "interrupted" else "completed"

    @property
    def session_id(self) -> str:
        wait_until(lambda: self.record() is not None, 30.0, "the session's first hook event")
        found = self.record()
        assert found is not None
        return found.session_id

    def stop(self) -> None:
        with contextlib.suppress(AssertionError, subprocess.TimeoutExpired):
            self._tmux("kill-server")
        self.store.close()


Agent = ClaudeCode | Codex
HookAgent = ClaudeCode | Codex | GeminiCli
Conversation = ClaudeConversation | CodexThread | GeminiTui
HELD = 120.0  # seconds a held answer waits for `release()` (tests release it long before)


def start_held_turn(
    agent: HookAgent, conversation: Conversation, answer: str, *then: Reply
) -> None:
    """Start a turn whose first model answer (`answer`, ending the turn) is held back until
    `agent.model.release()`, with `then` scripted after it; returns once the model holds it."""
    agent.model.script(stall(HELD, answer), *then)
    conversation.start_turn("Work through PLAN.md.")
    agent.model.wait_for(lambda m: m.pending() == len(then))


def hook_session(server: StdioLanguageServer, session_id: str) -> Json | None:
    """The session's entry in the language server's latest `todoLs/status`."""
    for session in server.supervisor.get("sessions") or []:
        if session.get("id") == session_id:
            return dict(session)
    return None


def wait_session(
    server: StdioLanguageServer,
    session_id: str,
    match: Callable[[Json], bool],
    what: str,
    timeout: float = 10.0,
) -> Json:
    """Wait until the language server shows the session in a state `match` accepts; the
    failure names what was expected and what the status showed."""
    found: list[Json] = []

    def shown() -> bool:
        entry = hook_session(server, session_id)
        found[:] = [entry] if entry is not None and match(entry) else []
        return bool(found)

    try:
        wait_until(shown, timeout, what)
    except AssertionError as exc:
        sessions = server.supervisor.get("sessions")
        raise AssertionError(f"{exc}; session {session_id}; status sessions: {sessions}") from None
    return found[0]


def wait_paused(
    server: StdioLanguageServer, session_id: str, reason: str, timeout: float = 10.0
) -> Json:
    """Wait until the language server shows the session `paused` for `reason`."""
    return wait_session(
        server,
        session_id,
        lambda s: s.get("state") == "paused" and s.get("pausedReason") == reason,
        f"paused {reason}",
        timeout,
    )
