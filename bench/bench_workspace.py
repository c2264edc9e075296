"""Workspace scale: 1,000 subscribed files holding 100,000 items.

- initial index: from `initialized` to the first `todoLs/status` that counts every item, and
  whether the server reported work-done progress (`$/progress` begin … end) meanwhile;
- memory: VmRSS and VmHWM (peak) of the server process once indexed;
- status after one file changes: from `workspace/didChangeWatchedFiles` (a file rewritten on
  disk by someone else) and from `textDocument/didChange` (an open file) to the `todoLs/status`
  that shows the change.

Baseline, in the same run: a server with a single subscribed file of 100 items (start to
first status), so the part that scales with the workspace is visible as a ratio.

Budgets (README, "Performance"): initial index <= 2 s with progress, RSS <= 150 MB, status <= 20 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchutil import ms, report, rss_kib, summary
from corpus import make_corpus
from lsp_client import LspClient, capabilities

BUDGETS = {"index_s": 2.0, "rss_mb": 150.0, "status_p50_ms": 20.0}
SETTINGS = {"markdownFiles": ["docs/**/*.md"], "supervisor": {"enabled": False}}
_OPEN_ITEM = re.compile(r"^(\s*[-*+] )\[ \](?! not an item)", re.MULTILINE)


def write_workspace(root: Path, files: int, items_per_file: int) -> int:
    """`files` plans of `items_per_file` items under `root/docs` (10 per folder)."""
    total = 0
    for n in range(files):
        folder = root / "docs" / f"area{n // 10:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        text = make_corpus(items=items_per_file, seed=n)
        (folder / f"plan{n:04d}.md").write_text(text)
        total += items_per_file
    return total


def toggle_first_open(text: str) -> str:
    """Close the first open `- [ ]` item (one marker character changes)."""
    return _OPEN_ITEM.sub(r"\1[x]", text, count=1)


async def start(root: Path, total: int) -> tuple[LspClient, float, dict[str, Any]]:
    """A server on `root`; seconds from `initialized` to a status counting `total` items."""
    client = await LspClient.spawn(cwd=root, settings={"todoLs": SETTINGS})
    await client.initialize(root, capabilities(pull=True, watch=True), {"todoLs": SETTINGS})
    # `initialize` answered and `initialized` sent: the clock starts when indexing may start.
    start_at = time.perf_counter()
    ready = client.wait_for("todoLs/status", lambda s: s["total"] == total)
    received = await asyncio.wait_for(ready, 120)
    return client, received.at - start_at, received.message["params"]


def progress_kinds(client: LspClient) -> list[str]:
    return [value.get("kind") for _, value in client.progress if isinstance(value, dict)]


async def status_latency(client: LspClient, trigger: Any, expect_open: int) -> float:
    """Seconds from `trigger()` to the status whose open count is `expect_open`."""
    await asyncio.sleep(0.25)  # out of the status publisher's coalescing window
    waiter = client.wait_for("todoLs/status", lambda s: s["open"] == expect_open)
    start_at = time.perf_counter()
    trigger()
    received = await asyncio.wait_for(waiter, 30)
    return received.at - start_at


async def main_async(files: int, items_per_file: int, repeats: int) -> None:
    with tempfile.TemporaryDirectory(prefix="todo-ls-bench-") as tmp:
        root = Path(tmp) / "big"
        small = Path(tmp) / "small"
        total = write_workspace(root, files, items_per_file)
        write_workspace(small, 1, items_per_file)

        baseline_client, baseline_s, _ = await start(small, items_per_file)
        await baseline_client.close()

        client, index_s, status = await start(root, total)
        memory = rss_kib(client.process.pid)
        try:
            target = root / "docs" / "area000" / "plan0000.md"
            uri = target.as_uri()
            open_count = status["open"]
            disk: list[float] = []
            for _ in range(repeats):
                text = target.read_text()
                changed = toggle_first_open(text)
                if changed == text:
                    break
                open_count -= 1

                def rewrite(changed: str = changed) -> None:
                    target.write_text(changed)
                    client.notify(
                        "workspace/didChangeWatchedFiles",
                        {"changes": [{"uri": uri, "type": 2}]},
                    )

                disk.append(await status_latency(client, rewrite, open_count))
            text = target.read_text()
            client.notify(
                "textDocument/didOpen",
                {
                    "textDocument": {
                        "uri": uri,
                        "languageId": "markdown",
                        "version": 1,
                        "text": text,
                    }
                },
            )
            edits: list[float] = []
            for version in range(2, repeats + 2):
                changed = toggle_first_open(text)
                if changed == text:
                    break
                text = changed
                open_count -= 1

                def edit(text: str = text, version: int = version) -> None:
                    client.notify(
                        "textDocument/didChange",
                        {
                            "textDocument": {"uri": uri, "version": version},
                            "contentChanges": [{"text": text}],
                        },
                    )

                edits.append(await status_latency(client, edit, open_count))
            memory_after = rss_kib(client.process.pid)
            kinds = progress_kinds(client)
        finally:
            await client.close()

    rss_mb = max(memory["VmRSS"], memory_after["VmRSS"]) / 1024
    peak_mb = memory_after["VmHWM"] / 1024
    progress_ok = bool(kinds) and kinds[0] == "begin" and kinds[-1] == "end"
    disk_summary = summary(disk)
    edit_summary = summary(edits)
    within = (
        index_s <= BUDGETS["index_s"]
        and progress_ok
        and rss_mb <= BUDGETS["rss_mb"]
        and disk_summary["p50_ms"] <= BUDGETS["status_p50_ms"]
        and edit_summary["p50_ms"] <= BUDGETS["status_p50_ms"]
    )
    report(
        "workspace",
        {
            "files": files,
            "items": total,
            "index_ms": ms(index_s),
            "baseline_one_file_ms": ms(baseline_s),
            "ratio_to_baseline": round(index_s / baseline_s, 1),
            "progress": {"reported": progress_ok, "notifications": len(kinds)},
            "rss_mb": round(rss_mb, 1),
            "peak_rss_mb": round(peak_mb, 1),
            "status_after_disk_change": disk_summary,
            "status_after_edit": edit_summary,
            "budget": BUDGETS,
            "within_budget": within,
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1_000, help="subscribed files")
    parser.add_argument("--items-per-file", type=int, default=100, help="task items per file")
    parser.add_argument("--repeats", type=int, default=15, help="samples per status latency")
    args = parser.parse_args()
    asyncio.run(main_async(args.files, args.items_per_file, args.repeats))


if __name__ == "__main__":
    main()
