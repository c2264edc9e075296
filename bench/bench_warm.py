"""A second start on unchanged files: the persisted file index (todo_ls/file_index.py, the
store's `file_summaries`) against a cold start, at 1,000 and 20,000 files of 50 items.

Per size, in one run: a cold start (a fresh state folder), timed from `initialized` (when
indexing may start, as bench_workspace.py times it; process start and imports cost the same
either way) to the first `todoLs/status` that counts every item; `shutdown`; a warm start on
the same files and state, timed the same way; then a third start after one file was changed
and one deleted, which must show the counts a fresh parse gives. Before, a second start was as
slow as the first. Baseline in the same run: a two-file workspace's warm start, the part of
every start that does not depend on the files. Budget: warm <= 0.35x cold at the largest
size, and net of that fixed part at every size.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_watch import ITEMS, start, write_workspace
from benchutil import ms, report

BUDGETS = {"warm_ratio": 0.35}


async def measure(files: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="todo-ls-bench-warm-") as tmp:
        root = Path(tmp) / "ws"
        total = write_workspace(root, files)
        shutil.rmtree(root / ".state", ignore_errors=True)
        client, cold_s, _ = await start(root, total)
        await client.close()  # the index's rows are written by the exit at the latest
        client, warm_s, _ = await start(root, total)
        await client.close()
        # One file with every item done, one deleted: the third start must count as a fresh
        # parse does (each file: ITEMS items, every third one done).
        changed = root / "notes" / "d0000" / "n00000.md"
        changed.write_text(changed.read_text().replace("- [ ]", "- [x]"))
        (root / "notes" / "d0000" / "n00001.md").unlink()
        open_each = ITEMS - len(range(0, ITEMS, 3))
        client, again_s, status = await start(root, total - ITEMS)
        await client.close()
        correct = (status["open"], status["filesTotal"]) == (open_each * (files - 2), files - 1)
    return {
        "files": files,
        "items": total,
        "cold_ms": ms(cold_s),
        "warm_ms": ms(warm_s),
        "warm_ratio": round(warm_s / cold_s, 3),
        "after_change_ms": ms(again_s),
        "counts_after_change_correct": correct,
    }


async def main_async(sizes: list[int]) -> None:
    # The in-run baseline: a two-file workspace's warm start is what every start costs
    # whatever the files (the settings' validation after `initialize`, the settings pull, the
    # first status): about 0.6 s here, most of a 1,000-file warm start.
    fixed = await measure(2)  # two: the third start changes one and deletes one
    results = [await measure(n) for n in sizes]
    for r in results:
        net_cold, net_warm = r["cold_ms"] - fixed["warm_ms"], r["warm_ms"] - fixed["warm_ms"]
        r["net_warm_ratio"] = round(max(net_warm, 0.0) / net_cold, 3) if net_cold > 0 else None
    largest = max(results, key=lambda r: r["files"])
    within = largest["warm_ratio"] <= BUDGETS["warm_ratio"] and all(
        r["counts_after_change_correct"]
        and r["net_warm_ratio"] is not None
        and r["net_warm_ratio"] <= BUDGETS["warm_ratio"]
        for r in results
    )
    report(
        "warm",
        {
            "fixed_start_ms": fixed["warm_ms"],
            "sizes": results,
            "budget": BUDGETS,
            "within_budget": within,
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="+", default=[1_000, 20_000])
    args = parser.parse_args()
    asyncio.run(main_async(args.files))


if __name__ == "__main__":
    main()
