"""The Stop hook: spawn → exit of `todo-ls hook` on a Stop, with a 1,000-line plan.

The agent runs the hook at every turn end and waits for it, so it must cost about as much as
starting Python. Baseline measured alternately in the same run: `python -c "import json,
sqlite3"` (spawn to exit), the least a hook that reads JSON and the shared store can load.
Each hook run is a new session's Stop with open items: the full path (project file, store,
1,000-line plan parsed, the policy, a block claimed and written, the nudge printed).

CPU time (user + system) of both is reported beside, as it varies less than wall time on a busy
machine. One extra run lists the modules the hook loaded: pygls, lsprotocol, httpx, pydantic, the
settings model, the supervisor runtime and the host adapters must not be among them.

Both run with bytecode caching on (in a temporary `PYTHONPYCACHEPREFIX`), as a pip-installed
todo-ls has its modules byte-compiled; a first run fills the cache.

Budget: hook p50 <= 3 x the baseline p50.
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
FORBIDDEN_MODULES = (
    "pygls",
    "lsprotocol",
    "httpx",
    "httpx_sse",
    "pydantic",
    "todo_ls.config",
    "todo_ls.server",
    "todo_ls.supervisor.runtime",
    "todo_ls.supervisor.activity",
    "todo_ls.hosts",
    "markdown_it",
    "asyncio",
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
main(["hook"])
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


def stop_input(project: Path, n: int) -> bytes:
    return json.dumps(
        {
            "session_id": f"bench-{n}",
            "transcript_path": str(project / "transcript.jsonl"),
            "cwd": str(project),
            "prompt_id": f"prompt-{n}",
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": "I am done.",
            "background_tasks": [],
        }
    ).encode()


def child_cpu() -> float:
    """CPU seconds (user + system) used by finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_hook(command: list[str], data: bytes, env: dict[str, str]) -> tuple[float, float, bytes]:
    """Wall and CPU seconds of one hook process, and what it printed."""
    cpu, start = child_cpu(), time.perf_counter()
    done = subprocess.run([*command, "hook"], input=data, capture_output=True, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"the hook exited {done.returncode}: {done.stderr.decode()[-500:]}")
    return elapsed, child_cpu() - cpu, done.stdout


def spawn_baseline(env: dict[str, str]) -> tuple[float, float]:
    cpu, start = child_cpu(), time.perf_counter()
    subprocess.run([sys.executable, "-c", "import json, sqlite3"], check=True, env=env)
    return time.perf_counter() - start, child_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21, help="samples per measurement")
    args = parser.parse_args()
    command = hook_command()
    hook: list[float] = []
    baseline: list[float] = []
    hook_cpu: list[float] = []
    baseline_cpu: list[float] = []
    with tempfile.TemporaryDirectory(prefix="todo-ls-bench-hook-") as tmp:
        root = Path(tmp)
        project = make_project(root)
        (project / "transcript.jsonl").write_text("{}\n", encoding="utf-8")
        env = {
            **os.environ,
            "TODO_LS_STATE_DIR": str(root / "state"),
            "HOME": str(root),
            "PYTHONPYCACHEPREFIX": str(root / "pycache"),
        }
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        spawn_baseline(env)
        *_, first = run_hook(command, stop_input(project, -1), env)  # creates the store
        blocked = json.loads(first).get("decision") == "block"
        for n in range(args.repeats):
            elapsed, cpu, out = run_hook(command, stop_input(project, n), env)
            blocked = blocked and json.loads(out).get("decision") == "block"
            hook.append(elapsed)
            hook_cpu.append(cpu)
            elapsed, cpu = spawn_baseline(env)
            baseline.append(elapsed)
            baseline_cpu.append(cpu)
        probe = subprocess.run(
            [sys.executable, "-c", PROBE],
            input=stop_input(project, 10_000),
            capture_output=True,
            env=env,
            check=True,
        )
        loaded = set(json.loads(probe.stderr.decode().strip().splitlines()[-1]))
    heavy = sorted(
        name
        for name in loaded
        if any(name == f or name.startswith(f + ".") for f in FORBIDDEN_MODULES)
    )
    ratio = statistics.median(hook) / statistics.median(baseline)
    report(
        "hook",
        {
            "repeats": args.repeats,
            "plan_lines": PLAN_LINES,
            "command": Path(command[0]).name if len(command) == 1 else "python -m todo_ls",
            "hook_stop": summary(hook),
            "python_import_json_sqlite3": summary(baseline),
            "ratio_p50": round(ratio, 2),
            # CPU time of the processes, less sensitive than wall time to a busy machine.
            "cpu_ms_p50": {
                "hook": ms(statistics.median(hook_cpu)),
                "baseline": ms(statistics.median(baseline_cpu)),
            },
            "every_run_blocked": blocked,
            "heavy_modules_loaded": heavy,
            "budget": {"ratio_p50_max": BUDGET_RATIO, "forbidden_modules": list(FORBIDDEN_MODULES)},
            "within_budget": ratio <= BUDGET_RATIO and not heavy and blocked,
        },
    )


if __name__ == "__main__":
    main()
