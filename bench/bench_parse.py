"""Parse benchmark: the engine vs a full markdown-it-py parse of a ~1 MB, 10,000-item plan.

Prints one JSON object: medians of repeated runs of both, their ratio against the budget (the
engine >= 20x faster), and whether both found identical items in this same run. The figure is
for the scanner the package parses with (`engine`: "compiled" when the mypyc build of scan.py
is there, else "pure", see docs/packaging.md); when that is the compiled one, the pure scanner
is measured in the same rounds and reported beside it (`pure`). The runs alternate, so that a
change in the machine's load during the run affects all alike, and the budget is judged on CPU
time: all are single-threaded, and wall-clock time (also reported) counts the time other
processes on a shared machine hold the CPU, which inflates the longer markdown-it-py runs more.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import make_corpus

from todo_ls.checklist import parse, scan_loader
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


@dataclass
class Timing:
    """The runs of one contender, and per round its CPU-time ratio to the reference."""

    runs: list[tuple[float, float]] = field(default_factory=list)
    round_ratios: list[float] = field(default_factory=list)

    def median(self, wall: bool = False) -> float:
        return statistics.median(t[1 if wall else 0] for t in self.runs)


def _interleaved(
    engines: dict[str, Callable[[], object]], reference: Callable[[], object], rounds: int
) -> tuple[dict[str, Timing], Timing]:
    """The engines' and the reference's runs over `rounds` alternating rounds: 3 runs of each
    engine, then one reference run. An engine's round ratio is that reference run over the
    median of its 3 runs in the round: the spread of single runs."""
    timings = {name: Timing() for name in engines}
    reference_timing = Timing()
    for _ in range(rounds):
        this_round = {name: _seconds(run, 3) for name, run in engines.items()}
        reference_round = _seconds(reference, 1)
        reference_timing.runs += reference_round
        for name, runs in this_round.items():
            timings[name].runs += runs
            engine_cpu = statistics.median(t[0] for t in runs)
            timings[name].round_ratios.append(reference_round[0][0] / engine_cpu)
    return timings, reference_timing


def _figures(timing: Timing, reference: Timing, identical: bool) -> dict[str, Any]:
    ratio = reference.median() / timing.median()
    return {
        "engine_ms": round(timing.median() * 1000, 2),
        "ratio": round(ratio, 2),
        "round_ratios": {
            "min": round(min(timing.round_ratios), 1),
            "max": round(max(timing.round_ratios), 1),
        },
        "wall_clock_ratio": round(reference.median(wall=True) / timing.median(wall=True), 2),
        "identical_items": identical,
    }


def main() -> None:
    text = make_corpus()
    markdown_it = reference_markdown_it(tasklists=True)
    reference_items = reference_parse(text).items
    name = "compiled" if scan_loader.COMPILED else "pure"
    scanners = {name: parse}
    if scan_loader.COMPILED:
        pure_scan = scan_loader.load_pure().scan
        scanners["pure"] = lambda text: pure_scan(text, None)
    items = {key: scan(text).items for key, scan in scanners.items()}
    timings, reference = _interleaved(
        {key: functools.partial(scan, text) for key, scan in scanners.items()},
        lambda: markdown_it.parse(text),
        rounds=9,
    )
    figures = _figures(timings[name], reference, items[name] == reference_items)
    report: dict[str, Any] = {
        "benchmark": "parse",
        "engine": name,
        "bytes": len(text.encode()),
        "lines": text.count("\n"),
        "items": len(items[name]),
        **figures,
        "markdown_it_ms": round(reference.median() * 1000, 2),
        "budget_ratio": BUDGET_RATIO,
        "within_budget": figures["ratio"] >= BUDGET_RATIO,
        "identical_items": all(found == reference_items for found in items.values()),
    }
    if "pure" in timings and name != "pure":
        report["pure"] = _figures(timings["pure"], reference, items["pure"] == reference_items)
    report |= {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "loadavg_1m": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
