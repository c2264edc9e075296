"""Parse benchmark: the engine vs a full markdown-it-py parse of a ~1 MB, 10,000-item plan.

Prints one JSON object: medians of repeated runs of both, their ratio against the budget (the
engine >= 20x faster), and whether both found identical items in this same run.
"""

from __future__ import annotations

import json
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


def _median_seconds(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    text = make_corpus()
    markdown_it = reference_markdown_it(tasklists=True)
    engine_items = parse(text).items
    identical = engine_items == reference_parse(text).items
    engine = _median_seconds(lambda: parse(text), 15)
    reference = _median_seconds(lambda: markdown_it.parse(text), 7)
    ratio = reference / engine
    report = {
        "benchmark": "parse",
        "bytes": len(text.encode()),
        "lines": text.count("\n"),
        "items": len(engine_items),
        "engine_ms": round(engine * 1000, 2),
        "markdown_it_ms": round(reference * 1000, 2),
        "ratio": round(ratio, 2),
        "budget_ratio": BUDGET_RATIO,
        "within_budget": ratio >= BUDGET_RATIO,
        "identical_items": identical,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
