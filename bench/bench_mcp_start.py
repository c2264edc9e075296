"""MCP start: process spawn of `todo-ls mcp` → its `initialize` answer on stdout.

OpenCode starts one `todo-ls mcp` per project and waits for this answer before the agent can see
the tools. Baseline measured alternately in the same run: a bare `python -c pass` (spawn to exit).
The CPU time of each start (user + sys, until the answer and exit) is reported too: on a shared
machine it varies far less than the wall time.

Budget: CPU time of a start p50 <= 250 ms (the MCP SDK's server took about 600 ms).
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

BUDGET_CPU_P50_MS = 250.0
TODO_LS = Path(sys.executable).with_name("todo-ls")
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def initialize_once(project: Path, state: Path) -> tuple[float, float]:
    """Seconds from spawning `todo-ls mcp` to its `initialize` answer (then close its stdin),
    and the CPU seconds the process used."""
    cpu = children_cpu()
    start = time.perf_counter()
    server = subprocess.Popen(
        [str(TODO_LS), "mcp", "--directory", str(project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "TODO_LS_STATE_DIR": str(state)},
    )
    assert server.stdin and server.stdout
    server.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    server.stdin.flush()
    answer = json.loads(server.stdout.readline())
    elapsed = time.perf_counter() - start
    assert answer["result"]["serverInfo"]["name"] == "todo", answer
    server.stdin.close()
    server.wait(timeout=30)
    return elapsed, children_cpu() - cpu


def bare_python() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15, help="samples per measurement")
    repeats = parser.parse_args().repeats
    with tempfile.TemporaryDirectory() as tmp:
        project, state = Path(tmp, "project"), Path(tmp, "state")
        project.mkdir()
        initialize_once(project, state)  # warm the file cache and create the store
        samples, cpu, baseline = [], [], []
        for _ in range(repeats):
            elapsed, used = initialize_once(project, state)
            samples.append(elapsed)
            cpu.append(used)
            baseline.append(bare_python())
    report(
        "mcp_start",
        {
            "initialize": summary(samples),
            "cpu": summary(cpu),
            "baseline_python_pass": summary(baseline),
            "budget_cpu_p50_ms": BUDGET_CPU_P50_MS,
            "within_budget": ms(statistics.median(cpu)) <= BUDGET_CPU_P50_MS,
        },
    )


if __name__ == "__main__":
    main()
