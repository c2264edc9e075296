"""Memory after long use: a real todo-ls over stdio, as an editor left open for days uses it.

- Documents: ten ~1 MB plans (bench/corpus.py, 10,000 items each, each its own seed), all
  subscribed; each in turn opened, its diagnostics pulled (so it is parsed), outlined
  (`textDocument/documentSymbol` + `textDocument/foldingRange`, as an editor asks for both) and
  closed. The server's VmRSS (/proc) after each one. Judged: RSS after the tenth at most 40 MB
  above RSS after the first (what a closed document leaves behind must not add up). The
  in-run baseline is the first document's RSS; RSS before any was opened is reported beside.
- Workspace: peak RSS (VmHWM) of a server indexing a vault of 20,000 files holding 1,000,000
  items (bench/corpus.py `vault_note`: a heading, five subsections and 50 items per file, one in
  three done), read once the first `todoLs/status` counts every item and the server had a
  moment to settle. Judged: at most 300 MB. Baseline in the same run: the same at 1,000 files
  (the ratio says how memory grows with the workspace). Then `SYMBOL_QUERIES` different
  `workspace/symbol` queries, each answered from another file (as a long session's varied
  queries are) and each searching every file: peak RSS after them, judged the same.

Budgets: docs/performance.md, "Memory after long use".
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_views import view_capabilities
from benchutil import ms, report, rss_kib
from corpus import VAULT_ITEMS, make_corpus, write_vault
from lsp_client import LspClient, ResponseError

BUDGETS = {"documents_growth_mb": 40.0, "workspace_peak_mb": 300.0}
DOCUMENT_SETTINGS = {"markdownFiles": ["docs/*.md"], "supervisor": {"enabled": False}}
VAULT_SETTINGS = {"markdownFiles": ["notes/**/*.md"], "supervisor": {"enabled": False}}
SETTLE_S = 1.0
SYMBOL_QUERIES = 20


def mb(kib: int) -> float:
    return round(kib / 1024, 1)


async def ready(client: LspClient, root: Path, settings: dict[str, Any], total: int) -> float:
    """`initialize` on `root`; seconds from `initialized` to a status counting `total` items."""
    await client.initialize(root, view_capabilities(), {"todoLs": settings})
    began = time.perf_counter()
    status = client.wait_for("todoLs/status", lambda s: s["total"] == total)
    return (await asyncio.wait_for(status, 900)).at - began


async def barrier(client: LspClient, uri: str) -> None:
    """A no-op request answered after everything sent before it (hover: not implemented),
    which reads nothing of the document."""
    params = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}
    with contextlib.suppress(ResponseError):
        await client.request("textDocument/hover", params)


async def documents_run(root: Path, documents: int, items: int) -> dict[str, Any]:
    docs = root / "docs"
    docs.mkdir(parents=True)
    paths = []
    for n in range(documents):
        path = docs / f"plan{n:02d}.md"
        path.write_text(make_corpus(items=items, seed=100 + n))
        paths.append(path)
    client = await LspClient.spawn(cwd=root, settings={"todoLs": DOCUMENT_SETTINGS})
    pid = client.process.pid
    try:
        await ready(client, root, DOCUMENT_SETTINGS, documents * items)
        await asyncio.sleep(SETTLE_S)
        before = rss_kib(pid)["VmRSS"]
        after: list[int] = []
        for path in paths:
            uri = path.as_uri()
            text = path.read_text()
            item = {"uri": uri, "languageId": "markdown", "version": 1, "text": text}
            client.notify("textDocument/didOpen", {"textDocument": item})
            document = {"textDocument": {"uri": uri}}
            await client.request("textDocument/diagnostic", document)
            await client.request("textDocument/documentSymbol", document)
            await client.request("textDocument/foldingRange", document)
            client.notify("textDocument/didClose", document)
            await barrier(client, uri)
            await asyncio.sleep(SETTLE_S)
            after.append(rss_kib(pid)["VmRSS"])
    finally:
        await client.close()
    growth = mb(after[-1] - after[0])
    return {
        "documents": documents,
        "bytes_each": len(paths[0].read_bytes()),
        "items_each": items,
        "rss_mb_before_open": mb(before),
        "rss_mb_after_each": [mb(kib) for kib in after],
        "rss_mb_first": mb(after[0]),
        "rss_mb_last": mb(after[-1]),
        "growth_mb": growth,
        "budget_growth_mb": BUDGETS["documents_growth_mb"],
        "within_budget": growth <= BUDGETS["documents_growth_mb"],
    }


async def workspace_peak(files: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="todo-ls-bench-memory-") as tmp:
        root = Path(tmp)
        total = write_vault(root, files)
        client = await LspClient.spawn(cwd=root, settings={"todoLs": VAULT_SETTINGS})
        try:
            ready_s = await ready(client, root, VAULT_SETTINGS, total)
            await asyncio.sleep(SETTLE_S)
            found = rss_kib(client.process.pid)
            began = time.perf_counter()
            answered = await symbol_queries(client, files)
            queries_s = time.perf_counter() - began
            await asyncio.sleep(SETTLE_S)
            after = rss_kib(client.process.pid)
        finally:
            await client.close()
    return {
        "files": files,
        "items": total,
        "ready_ms": ms(ready_s),
        "peak_rss_mb": mb(found["VmHWM"]),
        "rss_mb": mb(found["VmRSS"]),
        "symbol_queries": SYMBOL_QUERIES,
        "symbol_entries": answered,
        "symbol_queries_ms": ms(queries_s),
        "peak_rss_mb_after_symbols": mb(after["VmHWM"]),
        "rss_mb_after_symbols": mb(after["VmRSS"]),
    }


async def symbol_queries(client: LspClient, files: int) -> int:
    """`SYMBOL_QUERIES` queries spread over the vault: `task 12345.7` (fuzzy) matches the open
    items of note 12345 whose number ends in 7, and a five-digit note's number hardly any
    other's; returns how many entries they answered."""
    answered = 0
    for q in range(SYMBOL_QUERIES):
        n = files // 2 + q * (files // 2) // SYMBOL_QUERIES
        found = await client.request("workspace/symbol", {"query": f"task {n}.7"})
        answered += len(found or [])
    return answered


async def main_async(documents: int, items: int, files: int, baseline_files: int) -> None:
    with tempfile.TemporaryDirectory(prefix="todo-ls-bench-memory-") as tmp:
        document_run = await documents_run(Path(tmp), documents, items)
    baseline = await workspace_peak(baseline_files)
    big = await workspace_peak(files)
    big["baseline_files"] = baseline_files
    big["ratio_to_baseline"] = round(big["peak_rss_mb"] / baseline["peak_rss_mb"], 2)
    big["budget_peak_rss_mb"] = BUDGETS["workspace_peak_mb"]
    big["within_budget"] = (
        max(big["peak_rss_mb"], big["peak_rss_mb_after_symbols"]) <= BUDGETS["workspace_peak_mb"]
    )
    report(
        "memory",
        {
            "documents": document_run,
            "workspace_baseline": baseline,
            "workspace": big,
            "items_per_file": VAULT_ITEMS,
            "within_budget": document_run["within_budget"] and big["within_budget"],
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=10, help="documents opened and closed")
    parser.add_argument("--items", type=int, default=10_000, help="items per document (~1 MB)")
    parser.add_argument("--files", type=int, default=20_000, help="files of the big workspace")
    parser.add_argument("--baseline-files", type=int, default=1_000, help="files of the baseline")
    args = parser.parse_args()
    asyncio.run(main_async(args.documents, args.items, args.files, args.baseline_files))


if __name__ == "__main__":
    main()
