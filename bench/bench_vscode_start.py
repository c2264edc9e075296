"""VS Code first start: a fresh profile opens the plan → its counts in the status bar.

Real VS Code (code-server + headless Chromium, as tests/editors/test_vscode.py drives it; needs
scripts/setup-vscode.sh). Two kinds of start, alternated in the same run, each on a new profile
(new user-data and extensions folders, the .vsix installed anew):

- `bundled`: the self-contained linux-x64 .vsix (scripts/build-vsix.sh) with no todo-ls on PATH
  and pip pointed at a closed port: the extension finds python3 and runs the server it carries.
  PATH starts with the folder of the interpreter running this script, so `python3` is a real
  interpreter as on most machines, not a version manager's shim (pyenv's costs ~0.2 s a call);
- `installed` (the baseline): the same .vsix told to start an installed server
  (`todoLs.server.command` = this checkout's `.venv/bin/todo-ls`).

Figures per kind: the plan opened → the counts shown (`open_to_counts`), and the workbench
loaded → the counts (`workbench_to_counts`, which also holds opening the file). Budget
(issue 20): the bundled first start's `open_to_counts` p50 at most 1.2× the installed one's.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
# The tests' support package and the VS Code test module whose drive this measures.
for helper in (REPO / "tests", REPO / "tests" / "editors"):
    sys.path.insert(0, str(helper))

from benchutil import report  # noqa: E402
from test_vscode import _drive, _offline_env, _path_without_todo_ls  # noqa: E402

BUDGET_RATIO = 1.2
INSTALLED = REPO / ".venv" / "bin" / "todo-ls"


def build_vsix(out: Path) -> Path:
    """The linux-x64 .vsix as the release builds it."""
    command = [str(REPO / "scripts" / "build-vsix.sh"), "--no-check", "--out", str(out)]
    subprocess.run([*command, "linux-x64"], check=True, capture_output=True, timeout=900)
    [vsix] = out.glob("todo-ls-linux-x64-*.vsix")
    return vsix


def one_start(kind: str, vsix: Path, base: Path) -> dict[str, int]:
    """One first start on a fresh profile; the driver's step times (ms since its start)."""
    tmp = Path(tempfile.mkdtemp(prefix=f"{kind}-", dir=base))
    interpreter = Path(sys.base_prefix) / "bin"
    env = _offline_env(os.pathsep.join([str(interpreter), _path_without_todo_ls()]))
    command = None if kind == "bundled" else [str(INSTALLED)]
    with contextlib.redirect_stdout(sys.stderr):  # the driver's story; stdout is the report
        steps = _drive(tmp, command, scenario={"SCENARIO": "start"}, vsix=vsix, env=env)
    at = {str(s["step"]): int(str(s["ms"])) for s in steps}
    return {
        "open_to_counts": at["status bar"] - at["PLAN.md open"],
        "workbench_to_counts": at["status bar"] - at["workbench loaded"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="starts of each kind (alternated)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-vscode-") as folder:
        base = Path(folder)
        vsix = build_vsix(base / "vsix")
        samples: dict[str, list[dict[str, int]]] = {"bundled": [], "installed": []}
        for _ in range(args.rounds):
            for kind in samples:
                samples[kind].append(one_start(kind, vsix, base))
    results: dict[str, object] = {}
    for kind, runs in samples.items():
        results[kind] = {
            figure: {
                "p50_ms": statistics.median(r[figure] for r in runs),
                "all_ms": [r[figure] for r in runs],
            }
            for figure in ("open_to_counts", "workbench_to_counts")
        }
    p50 = {k: statistics.median(r["open_to_counts"] for r in runs) for k, runs in samples.items()}
    ratio = p50["bundled"] / p50["installed"]
    total = {
        k: statistics.median(r["workbench_to_counts"] for r in runs) for k, runs in samples.items()
    }
    report(
        "vscode_start",
        {
            **results,
            "ratio": round(ratio, 2),
            "ratio_workbench_to_counts": round(total["bundled"] / total["installed"], 2),
            "budget_ratio": BUDGET_RATIO,
            "within_budget": ratio <= BUDGET_RATIO,
        },
    )


if __name__ == "__main__":
    main()
