"""The Stop hook: spawn → exit of `todo-ls hook` on every hook host's Stop, with a 1,000-line
plan and a 10 MB transcript.

The agent runs the hook at every turn end and waits for it, so it must cost about as much as
starting Python, however long the session's transcript has grown. Baseline measured
alternately in the same run: `python -c "import json, sqlite3"` (spawn to exit), the least a
hook that reads JSON and the shared store can load. Each hook run is a new session's Stop with
open items, in the host's own input (Claude Code's `Stop`, Codex's `Stop` with a `turn_id`,
Gemini CLI's `AfterAgent`, pi's extension's `turn_end`, Kimi Code's `Stop`, Mistral Vibe's
`post_agent`, OpenHands' `event_type` `Stop`): the full path (project file, store, the
transcript's tail read for the evidence of work and the own list, 1,000-line plan parsed, the
policy, a block claimed and written, the nudge printed). Each host's transcript is 10 MB in its
own format, ending in a tool call and an answer, with no own list in it (so Codex and Gemini CLI
look for one as far back as the hook ever reads: the worst case). Kimi Code, Mistral Vibe and
OpenHands name no transcript file (none, or a session folder), so theirs is the same path
without one; Kimi Code blocks by exit code 2 with the reason on stderr.

CPU time (user + system) of both is reported beside, as it varies less than wall time on a busy
machine. One extra run lists the modules the hook loaded: pygls, lsprotocol, httpx, pydantic, the
settings model, the supervisor runtime, the host adapters and dataclasses must not be among them.

Both run with bytecode caching on (in a temporary `PYTHONPYCACHEPREFIX`), as a pip-installed
todo-ls has its modules byte-compiled; a first run fills the cache.

Budget: hook p50 <= 3 x the baseline p50, on every host.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchutil import ms, report, summary

BUDGET_RATIO = 3.0
PLAN_LINES = 1000
TRANSCRIPT_BYTES = 10 * 1024 * 1024
HOSTS = (
    "claude-code",
    "codex",
    "gemini-cli",
    "qwen-code",
    "copilot-cli",
    "droid",
    "pi",
    "kimi-code",
    "mistral-vibe",
    "openhands",
)
# Hosts whose Stop names no transcript file: Kimi Code and OpenHands send none, Mistral Vibe's
# `transcript_path` is a session folder. Their hook reads the store only (work is the post-tool
# events).
NO_TRANSCRIPT = ("kimi-code", "mistral-vibe", "openhands")
FORBIDDEN_MODULES = (
    "pygls",
    "lsprotocol",
    "httpx",
    "httpx_sse",
    "pydantic",
    "todo_ls.settings.model",
    "todo_ls.server",
    "todo_ls.supervisor.runtime",
    "todo_ls.supervisor.activity",
    "todo_ls.hosts",
    "markdown_it",
    "asyncio",
    "dataclasses",  # with inspect, more than the rest of a Stop costs (settings/table.py)
)
# Runs the hook like the `todo-ls` script and lists what it loaded when it exits (the hook
# ends its process with os._exit right after answering).
PROBE = """
import json, os, sys
real_exit = os._exit
def report_and_exit(code):
    sys.stderr.write(json.dumps(sorted(sys.modules)))
    sys.stderr.flush()
    real_exit(code)
os._exit = report_and_exit
from todo_ls.cli import main
main(["hook", "--host", "HOST"])
"""


def hook_command() -> list[str]:
    """The installed `todo-ls` script beside this Python (what `todo-ls install` writes)."""
    script = Path(sys.executable).with_name("todo-ls")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "todo_ls"]


def make_project(root: Path) -> Path:
    """A project with a 1,000-line PLAN.md (headings, prose and items, half of them open)."""
    project = root / "project"
    project.mkdir()
    lines = []
    for i in range(PLAN_LINES):
        if i % 50 == 0:
            lines.append(f"## Part {i // 50}")
        elif i % 5 == 0:
            lines.append(f"Some notes about step {i}, with `code` and a [link](x.md).")
        else:
            lines.append(f"- [{'x' if i % 2 else ' '}] step {i}: do the thing number {i}")
    (project / "PLAN.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (project / "todo-ls.toml").write_text('markdownFiles = ["PLAN.md"]\n', encoding="utf-8")
    return project


def _records(host: str, n: int) -> list[dict[str, object]]:
    """One tool call with its result and an answer, in `host`'s transcript format."""
    command = f"grep -rn 'step {n}' src/ docs/ " + "--include='*.py' " * 20
    output = f"src/module_{n}.py:{n}: step {n}: " + "the thing that was found " * 30
    if host == "claude-code":
        call = {
            "type": "tool_use",
            "id": f"toolu_{n}",
            "name": "Bash",
            "input": {"command": command},
        }
        result = {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": output}
        return [
            {"type": "assistant", "message": {"role": "assistant", "content": [call]}},
            {"type": "user", "message": {"role": "user", "content": [result]}},
            {"type": "assistant", "message": {"content": [{"type": "text", "text": "Done."}]}},
        ]
    if host == "codex":
        args = json.dumps({"cmd": command})
        return [
            {
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "exec_command",
                    "arguments": args,
                    "call_id": f"c{n}",
                },
            },
            {
                "type": "response_item",
                "payload": {"type": "function_call_output", "call_id": f"c{n}", "output": output},
            },
            {
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "Done."}],
                },
            },
        ]
    if host in ("qwen-code", "copilot-cli", "droid"):
        return _chat_agent_records(host, n, command, output)
    if host == "pi":
        return _pi_records(n, command, output)
    call = {
        "id": f"run_shell_command_{n}",
        "name": "run_shell_command",
        "args": {"command": command},
    }
    response = {
        "functionResponse": {
            "id": f"run_shell_command_{n}",
            "name": "run_shell_command",
            "response": {"output": output},
        }
    }
    return [
        {"id": f"g{n}", "type": "gemini", "content": "", "toolCalls": [call]},
        {"id": f"u{n}", "type": "user", "content": [response]},
        {"id": f"a{n}", "type": "gemini", "content": "Done."},
    ]


def _chat_agent_records(host: str, n: int, command: str, output: str) -> list[dict[str, object]]:
    """The same in Qwen Code's (Gemini CLI's parts), Copilot CLI's (events) or Droid's
    (Claude Code's parts inside `message` records) transcript."""
    if host == "qwen-code":
        args = {"command": command}
        call = {"functionCall": {"id": f"c{n}", "name": "run_shell_command", "args": args}}
        result = {"functionResponse": {"id": f"c{n}", "response": {"output": output}}}
        return [
            {"type": "assistant", "message": {"role": "model", "parts": [call]}},
            {"type": "tool_result", "message": {"role": "user", "parts": [result]}},
            {"type": "assistant", "message": {"role": "model", "parts": [{"text": "Done."}]}},
        ]
    if host == "copilot-cli":
        request = {"toolCallId": f"c{n}", "name": "bash", "arguments": {"command": command}}
        return [
            {"type": "assistant.message", "data": {"content": "", "toolRequests": [request]}},
            {"type": "tool.execution_complete", "data": {"toolCallId": f"c{n}", "result": output}},
            {"type": "assistant.message", "data": {"content": "Done.", "toolRequests": []}},
        ]
    use = {"type": "tool_use", "id": f"c{n}", "name": "Execute", "input": {"command": command}}
    result = {"type": "tool_result", "tool_use_id": f"c{n}", "content": output}
    text = {"type": "text", "text": "Done."}
    return [
        {"type": "message", "message": {"role": "assistant", "content": [use]}},
        {"type": "message", "message": {"role": "user", "content": [result]}},
        {"type": "message", "message": {"role": "assistant", "content": [text]}},
    ]


def _pi_records(n: int, command: str, output: str) -> list[dict[str, object]]:
    """The same in pi's session file (`message` records, a tree by `parentId`)."""
    call = {"type": "toolCall", "id": f"c{n}", "name": "bash", "arguments": {"command": command}}
    messages: list[dict[str, object]] = [
        {"role": "assistant", "content": [call], "stopReason": "toolUse"},
        {
            "role": "toolResult",
            "toolCallId": f"c{n}",
            "toolName": "bash",
            "content": [{"type": "text", "text": output}],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "Done."}], "stopReason": "stop"},
    ]
    return [
        {"type": "message", "id": f"m{n}-{i}", "parentId": f"m{n}-{i - 1}", "message": m}
        for i, m in enumerate(messages)
    ]


def make_transcript(path: Path, host: str) -> int:
    """A transcript of about `TRANSCRIPT_BYTES` in `host`'s format; returns its size (0 for
    a host with none: Vibe's session folder is made, empty)."""
    if host in NO_TRANSCRIPT:
        if host == "mistral-vibe":
            (path / "journal").mkdir(parents=True)
        return 0
    with path.open("w", encoding="utf-8") as out:
        n = 0
        while out.tell() < TRANSCRIPT_BYTES:
            out.writelines(json.dumps(r) + "\n" for r in _records(host, n))
            n += 1
        return out.tell()


def stop_input(project: Path, host: str, n: int) -> bytes:
    """A new session's Stop, as `host` sends it."""
    data: dict[str, object] = {
        "session_id": f"bench-{host}-{n}",
        "transcript_path": str(project / f"transcript-{host}.jsonl"),
        "cwd": str(project),
        "stop_hook_active": False,
    }
    if host == "mistral-vibe":
        data = {
            "session_id": data["session_id"],
            "transcript_path": str(project / "transcript-mistral-vibe.jsonl"),
            "cwd": str(project),
            "parent_session_id": None,
            "hook_event_name": "post_agent",
            "agent_name": "accept-edits",
        }
    elif host == "openhands":
        data = {
            "event_type": "Stop",
            "tool_name": None,
            "tool_input": None,
            "tool_response": None,
            "message": None,
            "session_id": data["session_id"],
            "working_dir": str(project),
            "metadata": {"reason": "agent_finished"},
        }
    elif host == "gemini-cli":
        data.update(
            hook_event_name="AfterAgent",
            prompt="Work through PLAN.md.",
            prompt_response="Done.",
            timestamp="2026-12-01T20:00:00.000Z",
        )
    elif host == "copilot-cli":
        data.update(hook_event_name="Stop", stop_reason="end_turn")
    elif host == "droid":
        data.update(hook_event_name="Stop", message_id=f"m-{n}", tool_execution_count=1)
    elif host == "pi":
        data.update(
            hook_event_name="turn_end",
            prompt_id=f"prompt-{n}",
            stop_reason="stop",
            last_assistant_message="Done.",
        )
    elif host == "kimi-code":
        del data["transcript_path"]
        data.update(hook_event_name="Stop", client_type="kimi_code_cli")
    else:
        data.update(hook_event_name="Stop", last_assistant_message="Done.")
        data.update(turn_id=f"turn-{n}") if host == "codex" else data.update(
            prompt_id=f"prompt-{n}", background_tasks=[]
        )
    return json.dumps(data).encode()


def child_cpu() -> float:
    """CPU seconds (user + system) used by finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_hook(
    command: list[str], host: str, data: bytes, env: dict[str, str]
) -> tuple[float, float, bytes]:
    """Wall and CPU seconds of one hook process, and its block's reason (empty: none)."""
    cpu, start = child_cpu(), time.perf_counter()
    done = subprocess.run(
        [*command, "hook", "--host", host], input=data, capture_output=True, env=env
    )
    elapsed = time.perf_counter() - start
    if host == "kimi-code" and done.returncode == 2:  # its block: the reason on stderr
        return elapsed, child_cpu() - cpu, done.stderr
    if done.returncode != 0:
        raise SystemExit(f"the hook exited {done.returncode}: {done.stderr.decode()[-500:]}")
    reason = json.loads(done.stdout).get("reason", "") if done.stdout else ""
    return elapsed, child_cpu() - cpu, reason.encode()


def spawn_baseline(env: dict[str, str]) -> tuple[float, float]:
    cpu, start = child_cpu(), time.perf_counter()
    subprocess.run([sys.executable, "-c", "import json, sqlite3"], check=True, env=env)
    return time.perf_counter() - start, child_cpu() - cpu


def blocks(reason: bytes) -> bool:
    """Whether the hook's answer keeps the agent working: a nudge as its reason."""
    return reason.startswith(b"todo-ls: ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21, help="samples per measurement")
    args = parser.parse_args()
    command = hook_command()
    hook: dict[str, list[float]] = {host: [] for host in HOSTS}
    hook_cpu: dict[str, list[float]] = {host: [] for host in HOSTS}
    baseline: list[float] = []
    baseline_cpu: list[float] = []
    loaded: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="todo-ls-bench-hook-") as tmp:
        root = Path(tmp)
        project = make_project(root)
        sizes = {h: make_transcript(project / f"transcript-{h}.jsonl", h) for h in HOSTS}
        env = {
            **os.environ,
            "TODO_LS_STATE_DIR": str(root / "state"),
            "HOME": str(root),
            "PYTHONPYCACHEPREFIX": str(root / "pycache"),
        }
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        spawn_baseline(env)
        blocked = True
        for host in HOSTS:  # the first run creates the store and fills the bytecode cache
            blocked = blocks(run_hook(command, host, stop_input(project, host, -1), env)[2])
        for n in range(args.repeats):
            for host in HOSTS:
                elapsed, cpu, out = run_hook(command, host, stop_input(project, host, n), env)
                blocked = blocked and blocks(out)
                hook[host].append(elapsed)
                hook_cpu[host].append(cpu)
            elapsed, cpu = spawn_baseline(env)
            baseline.append(elapsed)
            baseline_cpu.append(cpu)
        for host in HOSTS:
            probe = subprocess.run(
                [sys.executable, "-c", PROBE.replace("HOST", host)],
                input=stop_input(project, host, 10_000),
                capture_output=True,
                env=env,
            )
            if probe.returncode not in (0, 2):  # 2: Kimi Code's block
                raise SystemExit(f"the probe exited {probe.returncode}: {probe.stderr[-500:]!r}")
            loaded |= set(json.loads(probe.stderr.decode().strip().splitlines()[-1]))
    heavy = sorted(
        name
        for name in loaded
        if any(name == f or name.startswith(f + ".") for f in FORBIDDEN_MODULES)
    )
    base_p50 = statistics.median(baseline)
    ratios = {host: round(statistics.median(hook[host]) / base_p50, 2) for host in HOSTS}
    per_host = {
        host: {
            "hook_stop": summary(hook[host]),
            "ratio_p50": ratios[host],
            "cpu_ms_p50": ms(statistics.median(hook_cpu[host])),
            "transcript_bytes": sizes[host],
        }
        for host in HOSTS
    }
    report(
        "hook",
        {
            "repeats": args.repeats,
            "plan_lines": PLAN_LINES,
            "transcript_bytes": TRANSCRIPT_BYTES,
            "command": Path(command[0]).name if len(command) == 1 else "python -m todo_ls",
            "hook_stop": summary(hook["claude-code"]),
            "python_import_json_sqlite3": summary(baseline),
            "ratio_p50": ratios["claude-code"],
            "hosts": per_host,
            # CPU time of the processes, less sensitive than wall time to a busy machine.
            "cpu_ms_p50": {
                "hook": ms(statistics.median(hook_cpu["claude-code"])),
                "baseline": ms(statistics.median(baseline_cpu)),
            },
            "every_run_blocked": blocked,
            "heavy_modules_loaded": heavy,
            "budget": {"ratio_p50_max": BUDGET_RATIO, "forbidden_modules": list(FORBIDDEN_MODULES)},
            "within_budget": max(ratios.values()) <= BUDGET_RATIO and not heavy and blocked,
        },
    )


if __name__ == "__main__":
    main()
