"""Workspace scale: the same server at two sizes in one run, 1,000 and 20,000 subscribed files.

Every file has one shape (a heading, five subsections of ten items, 50 items; one in three
done), so the bigger workspace differs only by its size, and each figure at 20,000 files is
judged against the same figure at 1,000 measured in the same run (docs/performance.md, "Scale"):

- cold index: from `initialized` to the first `todoLs/status` that counts every item, and
  whether work-done progress (`$/progress` begin … end) was reported meanwhile; cold growth is
  judged at most linear (20,000's time at most 20× 1,000's);
- the status payload (the `todoLs/status` params as the server sent them, bytes): at most 1.5×;
- status after one file changes: from `workspace/didChangeWatchedFiles` (a file rewritten on
  disk) and from `textDocument/didChange` (an open file) to the status that shows it: p50 at
  20,000 at most 2× the p50 at 1,000 plus 5 ms, max at most 250 ms;
- `workspace/symbol`, warm, p50 of an empty query, a prefix and a fuzzy one: at most 50 ms;
- memory: VmRSS and VmHWM (peak) of the server once indexed and measured: peak at most 300 MB
  at 20,000 files;
- a second start on the unchanged files (from `initialized` to the full status again), and its
  ratio to the first: reported; judged (at most 0.35×) only with `--judge-warm`, for a server
  that keeps a warm index;
- the memory run: ten 1 MB documents (bench/corpus.py) opened, outlined (`documentSymbol` and
  `foldingRange`) and closed one after another by one server: its RSS after the tenth at most
  40 MB above its RSS after the first.

`--only changes` measures the cold index and the status after a change alone (and judges only
those): the quick loop for the change figures, e.g. `--sizes 1000,5000`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchutil import ms, report, rss_kib, summary
from corpus import WORDS, make_corpus
from lsp_client import LspClient, ResponseError, capabilities

SETTINGS = {"markdownFiles": ["docs/**/*.md"], "supervisor": {"enabled": False}}
MEMORY_SETTINGS = {"markdownFiles": ["*.md"], "supervisor": {"enabled": False}}
BUDGETS = {
    "change_p50_factor": 2.0,  # p50 at the big size <= factor x p50 at the small one + slack
    "change_p50_slack_ms": 5.0,
    "change_max_ms": 250.0,
    "payload_ratio": 1.5,
    "cold_growth": "linear",  # big cold index / small cold index <= big files / small files
    "peak_rss_mb": 300.0,
    "workspace_symbol_p50_ms": 50.0,
    "warm_ratio": 0.35,
    "memory_growth_mb": 40.0,
}
QUERIES = {"empty": "", "prefix": "pars", "fuzzy": "tkrdr"}
_OPEN_ITEM = re.compile(r"^(\s*[-*+] )\[ \](?! not an item)", re.MULTILINE)


def shaped_plan(n: int) -> str:
    """File `n` of the workspace: `# Plan n`, five `##` subsections of ten items (every fifth
    a child of the one before), one item in three done."""
    lines = [f"# Plan {n}", ""]
    for part in range(5):
        lines += [f"## Part {part} of plan {n}", ""]
        for i in range(10):
            k = part * 10 + i
            words = " ".join(WORDS[(n * 7 + k * 3 + j) % len(WORDS)] for j in range(4))
            mark = "x" if k % 3 == 2 else " "
            indent = "  " if i % 5 == 4 else ""
            lines.append(f"{indent}- [{mark}] task {k} {words}")
        lines.append("")
    return "\n".join(lines)


ITEMS_PER_SHAPED_FILE = 50


def write_shaped_workspace(root: Path, files: int) -> int:
    """`files` shaped plans under `root/docs` (100 per folder); returns the item count."""
    for n in range(files):
        folder = root / "docs" / f"area{n // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"plan{n:05d}.md").write_text(shaped_plan(n))
    return files * ITEMS_PER_SHAPED_FILE


def write_workspace(root: Path, files: int, items_per_file: int) -> int:
    """`files` corpus plans of `items_per_file` items under `root/docs` (10 per folder): the
    workspace of bench_views.py."""
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


def payload_bytes(received: Any) -> int:
    return len(json.dumps(received.message["params"], separators=(",", ":")).encode())


async def start(root: Path, total: int) -> tuple[LspClient, float, Any]:
    """A server on `root`; seconds from `initialized` to a status counting `total` items."""
    client = await LspClient.spawn(cwd=root, settings={"todoLs": SETTINGS})
    await client.initialize(root, capabilities(pull=True, watch=True), {"todoLs": SETTINGS})
    # `initialize` answered and `initialized` sent: the clock starts when indexing may start.
    start_at = time.perf_counter()
    ready = client.wait_for("todoLs/status", lambda s: s["total"] == total)
    received = await asyncio.wait_for(ready, 600)
    return client, received.at - start_at, received


def progress_kinds(client: LspClient) -> list[str]:
    return [value.get("kind") for _, value in client.progress if isinstance(value, dict)]


async def status_latency(client: LspClient, trigger: Any, expect_open: int) -> tuple[float, Any]:
    """Seconds from `trigger()` to the status whose open count is `expect_open`, and it."""
    await asyncio.sleep(0.25)  # out of the status publisher's coalescing window
    waiter = client.wait_for("todoLs/status", lambda s: s["open"] == expect_open)
    start_at = time.perf_counter()
    trigger()
    received = await asyncio.wait_for(waiter, 60)
    return received.at - start_at, received


async def changes(client: LspClient, target: Path, open_count: int, repeats: int) -> dict[str, Any]:
    """Status latency after `repeats` disk changes, then `repeats` edits of the open file."""
    uri = target.as_uri()
    disk: list[float] = []
    last: Any = None
    for _ in range(repeats):
        text = target.read_text()
        changed = toggle_first_open(text)
        if changed == text:
            break
        open_count -= 1

        def rewrite(changed: str = changed) -> None:
            target.write_text(changed)
            client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri, "type": 2}]})

        took, last = await status_latency(client, rewrite, open_count)
        disk.append(took)
    text = target.read_text()
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}},
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

        took, last = await status_latency(client, edit, open_count)
        edits.append(took)
    return {
        "status_after_disk_change": summary(disk),
        "status_after_edit": summary(edits),
        "payload_after_change_bytes": payload_bytes(last) if last is not None else None,
    }


async def symbol_queries(client: LspClient, repeats: int) -> dict[str, Any]:
    """Warm `workspace/symbol` round trips per query, asked in turn (after one warm-up)."""
    times: dict[str, list[float]] = {name: [] for name in QUERIES}
    counts: dict[str, int] = {}
    for n in range(repeats + 1):
        for name, query in QUERIES.items():
            start_at = time.perf_counter()
            found = await client.request("workspace/symbol", {"query": query})
            if n:
                times[name].append(time.perf_counter() - start_at)
            counts[name] = len(found)
    return {name: {**summary(times[name]), "results": counts[name]} for name in QUERIES}


async def measure_size(
    tmp: Path, files: int, repeats: int, changes_only: bool = False
) -> dict[str, Any]:
    root = tmp / f"ws{files}"
    total = write_shaped_workspace(root, files)
    client, cold_s, first = await start(root, total)
    try:
        indexed = rss_kib(client.process.pid)
        kinds = progress_kinds(client)
        target = root / "docs" / "area000" / "plan00000.md"
        found = await changes(client, target, first.message["params"]["open"], repeats)
        if changes_only:
            return {"files": files, "items": total, "cold_index_ms": ms(cold_s), **found}
        before_symbols = rss_kib(client.process.pid)
        symbols = await symbol_queries(client, repeats)
        after = rss_kib(client.process.pid)
    finally:
        await client.close()
    # A second start on the files as the first left them (the same items, some ticked).
    second, warm_s, _ = await start(root, total)
    await second.close()
    return {
        "files": files,
        "items": total,
        "cold_index_ms": ms(cold_s),
        "progress": {
            "reported": bool(kinds) and kinds[0] == "begin" and kinds[-1] == "end",
            "notifications": len(kinds),
        },
        "payload_bytes": payload_bytes(first),
        **found,
        "workspace_symbol": symbols,
        "rss_mb": round(max(indexed["VmRSS"], after["VmRSS"]) / 1024, 1),
        # What workspace/symbol's index added (its queries ran last).
        "rss_before_symbols_mb": round(before_symbols["VmRSS"] / 1024, 1),
        "peak_rss_mb": round(after["VmHWM"] / 1024, 1),
        "second_start_ms": ms(warm_s),
        "second_start_ratio": round(warm_s / cold_s, 2),
    }


async def memory_run(tmp: Path, documents: int, items: int) -> dict[str, Any]:
    """`documents` ~1 MB plans opened, outlined and closed in turn; RSS after each."""
    root = tmp / "memory"
    root.mkdir()
    paths = []
    for n in range(documents):
        path = root / f"doc{n}.md"
        path.write_text(make_corpus(items=items, seed=100 + n))
        paths.append(path)
    client = await LspClient.spawn(cwd=root, settings={"todoLs": MEMORY_SETTINGS})
    rss: list[float] = []
    try:
        caps = capabilities(pull=True)
        caps["textDocument"]["documentSymbol"] = {"hierarchicalDocumentSymbolSupport": True}
        caps["textDocument"]["foldingRange"] = {"lineFoldingOnly": True}
        await client.initialize(root, caps, {"todoLs": MEMORY_SETTINGS})
        for path in paths:
            uri = path.as_uri()
            doc = {"uri": uri, "languageId": "markdown", "version": 1, "text": path.read_text()}
            client.notify("textDocument/didOpen", {"textDocument": doc})
            ident = {"textDocument": {"uri": uri}}
            await client.request("textDocument/documentSymbol", ident)
            await client.request("textDocument/foldingRange", ident)
            client.notify("textDocument/didClose", ident)
            # Answered after the close is handled (a no-op: the server has no hover).
            with contextlib.suppress(ResponseError):
                hover = {**ident, "position": {"line": 0, "character": 0}}
                await client.request("textDocument/hover", hover)
            rss.append(round(rss_kib(client.process.pid)["VmRSS"] / 1024, 1))
    finally:
        await client.close()
    return {
        "documents": documents,
        "document_bytes": len(paths[0].read_bytes()),
        "rss_mb_after_each": rss,
        "growth_mb": round(rss[-1] - rss[0], 1),
    }


def judge(
    small: dict[str, Any], big: dict[str, Any], memory: dict[str, Any], warm: bool
) -> dict[str, Any]:
    """Each ratio of the big size to the small, and whether it is within its budget."""
    b = BUDGETS
    verdicts = judge_changes(small, big)
    payload = big["payload_bytes"] / small["payload_bytes"]
    verdicts["payload"] = {
        "ratio": round(payload, 2),
        "bound": b["payload_ratio"],
        "ok": payload <= b["payload_ratio"],
    }
    growth = big["cold_index_ms"] / small["cold_index_ms"]
    linear = big["files"] / small["files"]
    verdicts["cold_growth"] = {"ratio": round(growth, 2), "bound": linear, "ok": growth <= linear}
    verdicts["peak_rss"] = {
        "mb": big["peak_rss_mb"],
        "bound": b["peak_rss_mb"],
        "ok": big["peak_rss_mb"] <= b["peak_rss_mb"],
    }
    for name, found in big["workspace_symbol"].items():
        verdicts[f"workspace_symbol_{name}"] = {
            "p50_ms": found["p50_ms"],
            "bound_ms": b["workspace_symbol_p50_ms"],
            "ok": found["p50_ms"] <= b["workspace_symbol_p50_ms"],
        }
    verdicts["warm_start"] = {
        "ratio": big["second_start_ratio"],
        "bound": b["warm_ratio"],
        "judged": warm,
    }
    if warm:
        verdicts["warm_start"]["ok"] = big["second_start_ratio"] <= b["warm_ratio"]
    verdicts["memory"] = {
        "growth_mb": memory["growth_mb"],
        "bound": b["memory_growth_mb"],
        "ok": memory["growth_mb"] <= b["memory_growth_mb"],
    }
    return verdicts


def judge_changes(small: dict[str, Any], big: dict[str, Any]) -> dict[str, Any]:
    """The verdicts of the status-after-a-change figures alone (`--only changes`)."""
    b = BUDGETS
    verdicts: dict[str, Any] = {}
    for name in ("status_after_disk_change", "status_after_edit"):
        bound = b["change_p50_factor"] * small[name]["p50_ms"] + b["change_p50_slack_ms"]
        verdicts[f"{name}_p50"] = {
            "big_ms": big[name]["p50_ms"],
            "bound_ms": round(bound, 3),
            "ok": big[name]["p50_ms"] <= bound,
        }
        verdicts[f"{name}_max"] = {
            "big_ms": big[name]["max_ms"],
            "bound_ms": b["change_max_ms"],
            "ok": big[name]["max_ms"] <= b["change_max_ms"],
        }
    return verdicts


async def main_async(
    sizes: list[int], repeats: int, documents: int, doc_items: int, warm: bool, only: str
) -> None:
    changes_only = only == "changes"
    with tempfile.TemporaryDirectory(prefix="todo-ls-bench-") as tmp:
        measured = [await measure_size(Path(tmp), files, repeats, changes_only) for files in sizes]
        memory = None if changes_only else await memory_run(Path(tmp), documents, doc_items)
    small, big = measured[0], measured[-1]
    verdicts = judge_changes(small, big) if memory is None else judge(small, big, memory, warm)
    report(
        "workspace",
        {
            "sizes": {str(m["files"]): m for m in measured},
            "memory": memory,
            "judged": verdicts,
            "budget": BUDGETS,
            "within_budget": all(v.get("ok", True) for v in verdicts.values()),
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,20000", help="files per workspace, small,big")
    parser.add_argument("--repeats", type=int, default=15, help="samples per latency")
    parser.add_argument("--documents", type=int, default=10, help="documents of the memory run")
    parser.add_argument(
        "--document-items", type=int, default=10_000, help="items per document (10,000: ~1 MB)"
    )
    parser.add_argument("--judge-warm", action="store_true", help="judge the second start too")
    parser.add_argument(
        "--only",
        choices=("all", "changes"),
        default="all",
        help="changes: only cold index and status after a change (no symbols, restart, memory)",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    asyncio.run(
        main_async(
            sizes, args.repeats, args.documents, args.document_items, args.judge_warm, args.only
        )
    )


if __name__ == "__main__":
    main()
