"""Parse benchmark: the engine vs a full markdown-it-py parse of a ~1 MB, 10,000-item plan.

Prints one JSON object: medians of repeated runs of both, their ratio against the budget (the
engine >= 20x faster), and whether both found identical items in this same run. The runs of the
two alternate, so that a change in the machine's load during the run affects both alike, and
the budget is judged on CPU time: both are single-threaded, and wall-clock time (also reported)
counts the time other processes on a shared machine hold the CPU, which inflates the longer
markdown-it-py runs more.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import make_corpus

from todo_ls.checklist import parse
from todo_ls.checklist.reference import reference_markdown_it, reference_parse

BUDGET_RATIO = 20.0


def _seconds(run: Callable[[], object], repeats: int) -> list[tuple[float, float]]:
    """(CPU, wall-clock) seconds of `repeats` runs."""
    times = []
    for _ in range(repeats):
        cpu, wall = time.process_time(), time.perf_counter()
        run()
        times.append((time.process_time() - cpu, time.perf_counter() - wall))
    return times


def _interleaved_medians(
    engine: Callable[[], object], reference: Callable[[], object], rounds: int
) -> tuple[tuple[float, float], tuple[float, float], list[float]]:
    """Median (CPU, wall-clock) seconds of the engine and the reference over `rounds`
    alternating rounds: 3 engine runs, then one reference run. Also the CPU-time ratio of
    each round (its reference run over its median engine run): the spread of single runs."""
    engine_times: list[tuple[float, float]] = []
    reference_times: list[tuple[float, float]] = []
    round_ratios: list[float] = []
    for _ in range(rounds):
        engine_round = _seconds(engine, 3)
        reference_round = _seconds(reference, 1)
        engine_times += engine_round
        reference_times += reference_round
        round_ratios.append(reference_round[0][0] / statistics.median(t[0] for t in engine_round))
    return (
        (
            statistics.median(t[0] for t in engine_times),
            statistics.median(t[1] for t in engine_times),
        ),
        (
            statistics.median(t[0] for t in reference_times),
            statistics.median(t[1] for t in reference_times),
        ),
        round_ratios,
    )


def main() -> None:
    text = make_corpus()
    markdown_it = reference_markdown_it(tasklists=True)
    engine_items = parse(text).items
    identical = engine_items == reference_parse(text).items
    (engine, engine_wall), (reference, reference_wall), rounds = _interleaved_medians(
        lambda: parse(text), lambda: markdown_it.parse(text), rounds=9
    )
    ratio = reference / engine
    report = {
        "benchmark": "parse",
        "bytes": len(text.encode()),
        "lines": text.count("\n"),
        "items": len(engine_items),
        "engine_ms": round(engine * 1000, 2),
        "markdown_it_ms": round(reference * 1000, 2),
        "ratio": round(ratio, 2),
        "round_ratios": {"min": round(min(rounds), 1), "max": round(max(rounds), 1)},
        "wall_clock_ratio": round(reference_wall / engine_wall, 2),
        "budget_ratio": BUDGET_RATIO,
        "within_budget": ratio >= BUDGET_RATIO,
        "identical_items": identical,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "loadavg_1m": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
