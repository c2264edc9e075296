"""Outline, folding and search latency over stdio with a real JSON-RPC client.

- `textDocument/documentSymbol` and `textDocument/foldingRange` on the ~1 MB / 10,000-item plan
  and on a 1,000-line plan, each sample on a new document version: a one-character edit, a
  diagnostic pull (so the server has parsed that version) and the status window before the
  clock starts. An editor asks for both after every edit; the figure is what the request
  itself costs then. Reported beside, not judged: the same after an edit that adds or removes
  a line (Enter: every later line moves), and the same requests repeated on an unchanged
  version (the outline, breadcrumbs and sticky scroll asking again).
- `workspace/symbol` over 1,000 subscribed files holding 100,000 items (unopened, read from
  disk): an empty query (every open item, capped at 1,000) and a 3-letter query; a query that
  matches nothing (every open item searched) is reported, not judged.

Baseline, in the same run: a request the server answers trivially (`textDocument/hover`,
which it does not implement: MethodNotFound), asked the way the requests it is compared with
are, and in turn with them, round after round (`noop_<size><condition>`): after the same
edit, pull and status window for a request on a new version (a server that slept through
the window answers its next request from cold caches, which costs even a no-op 0.5-0.8 ms of
CPU more than one asked right after another), back to back for the repeated and the
workspace requests. Each request reports its round trip, its no-op's round trip and the
server's time, twice: the server's own CPU time in the request (Linux schedstat of its main
thread, `cpu_p50_ms`) minus the no-op's (`server_cpu_p50_ms`, what the budget is compared
with), and the round-trip p50 minus the no-op's (`server_p50_ms`). The pipe, the JSON-RPC
framing and the cold start after a pause every request pays are the baseline's; on a shared
machine the round trip also counts each wait for a core, which the CPU time does not.

Budgets (README, "Performance"): documentSymbol and foldingRange p50 <= 20 ms on the 1 MB plan
and <= 1 ms on the 1,000-line plan; workspace/symbol p50 <= 50 ms with either query; each is
compared with the server's time.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_editor import Document, open_document, plan_of_lines, round_trip
from bench_workspace import write_workspace
from benchutil import report, summary
from corpus import make_corpus
from lsp_client import LspClient, capabilities

BUDGETS_MS = {
    "document_symbol_1mb": 20.0,
    "folding_range_1mb": 20.0,
    "document_symbol_1000_lines": 1.0,
    "folding_range_1000_lines": 1.0,
    "workspace_symbol_empty_query": 50.0,
    "workspace_symbol_3_letters": 50.0,
}
NOOP = "textDocument/hover"  # not implemented by the server: answered MethodNotFound at once
VIEWS = {
    "textDocument/documentSymbol": "document_symbol",
    "textDocument/foldingRange": "folding_range",
}
THREE_LETTERS = "srv"  # "server", "subscribe … resume", "session … verify": many matches
NO_MATCH = "qqq"
STATUS_WINDOW_S = 0.25
DOCUMENT_SETTINGS = {"markdownFiles": ["*.md"], "supervisor": {"enabled": False}}
WORKSPACE_SETTINGS = {"markdownFiles": ["docs/**/*.md"], "supervisor": {"enabled": False}}


def view_capabilities() -> dict[str, Any]:
    """A pull client that takes hierarchical symbols and folding ranges (VS Code, Neovim)."""
    caps = capabilities(pull=True)
    caps["textDocument"]["documentSymbol"] = {
        "hierarchicalDocumentSymbolSupport": True,
        "tagSupport": {"valueSet": [1]},
    }
    caps["textDocument"]["foldingRange"] = {
        "lineFoldingOnly": True,
        "foldingRange": {"collapsedText": True},
    }
    return caps


class ServerCpu:
    """The server's CPU time spent in each measured request (Linux `/proc/<pid>/schedstat`,
    nanoseconds on the CPU): on a shared, busy machine it says what the server itself costs,
    where the round trip also counts the time it waited for a core."""

    def __init__(self, client: LspClient) -> None:
        self.path = Path(f"/proc/{client.process.pid}/schedstat")

    def now(self) -> float:
        return int(self.path.read_text().split()[0]) / 1e9

    async def measure(self, run: Awaitable[float]) -> tuple[float, float]:
        """`run`'s latency and the server's CPU seconds in it."""
        before = self.now()
        latency = await run
        return latency, self.now() - before


Samples = dict[str, tuple[list[float], list[float]]]  # per method: latencies, CPU seconds


async def interleaved(
    methods: tuple[str, ...], rounds: int, ask: Callable[[str], Awaitable[tuple[float, float]]]
) -> Samples:
    """`rounds` rounds asking each of `methods` in turn (`ask`: its latency and server CPU
    seconds), after one round of warm-up: the no-op and the requests it is the baseline of
    take their samples side by side, so a machine that gets busier or quieter during the run
    moves them alike."""
    found: Samples = {method: ([], []) for method in methods}
    for n in range(rounds + 1):
        for method in methods:
            latency, used = await ask(method)
            if n:
                found[method][0].append(latency)
                found[method][1].append(used)
    return found


def figures(samples: tuple[list[float], list[float]], **extra: Any) -> dict[str, Any]:
    latencies, used = samples
    return {**summary(latencies), "cpu_p50_ms": summary(used)["p50_ms"], **extra}


async def after_edit(
    doc: Document, method: str, edit: Callable[[], int], cpu: ServerCpu
) -> tuple[float, float]:
    """`method` on a new version of `doc` (made by `edit`), parsed before the clock starts:
    its latency and server CPU seconds."""
    edit()
    await doc.client.request("textDocument/diagnostic", {"textDocument": {"uri": doc.uri}})
    # Past the status the edit schedules (coalesced, at most ~10 a second), whose work would
    # otherwise land in some samples; editors ask for these after a debounce of their own.
    await asyncio.sleep(STATUS_WINDOW_S)
    return await cpu.measure(round_trip(doc.client, method, params_of(doc.uri, method)))


def params_of(uri: str, method: str) -> dict[str, Any]:
    """The params of `method` on `uri` (the no-op, hover, also takes a position)."""
    params: dict[str, Any] = {"textDocument": {"uri": uri}}
    if method == NOOP:
        params["position"] = {"line": 0, "character": 0}
    return params


async def document_session(root: Path, repeats: int) -> dict[str, Any]:
    client = await LspClient.spawn(cwd=root, settings={"todoLs": DOCUMENT_SETTINGS})
    results: dict[str, Any] = {}
    try:
        await client.initialize(root, view_capabilities(), {"todoLs": DOCUMENT_SETTINGS})
        big = await open_document(client, root / "big.md", pull=True)
        small = await open_document(client, root / "plan.md", pull=True)
        cpu = ServerCpu(client)
        methods = (NOOP, *VIEWS)
        for doc, size, n in ((big, "1mb", max(5, repeats // 2)), (small, "1000_lines", repeats)):
            for condition, edit in (("", doc.change), ("_new_line", doc.change_line), (None, None)):
                if edit is None:  # the same version asked again: nothing to wait for
                    condition = "_unchanged"
                    found = await interleaved(
                        methods,
                        n,
                        lambda m, d=doc: cpu.measure(round_trip(client, m, params_of(d.uri, m))),  # type: ignore[misc]
                    )
                else:
                    found = await interleaved(
                        methods,
                        n,
                        lambda m, d=doc, e=edit: after_edit(d, m, e, cpu),  # type: ignore[misc]
                    )
                results[f"noop_{size}{condition}"] = figures(found[NOOP])
                for method, name in VIEWS.items():
                    results[f"{name}_{size}{condition}"] = figures(
                        found[method], baseline=f"noop_{size}{condition}"
                    )
    finally:
        await client.close()
    return results


async def workspace_session(root: Path, repeats: int) -> dict[str, Any]:
    client = await LspClient.spawn(cwd=root, settings={"todoLs": WORKSPACE_SETTINGS})
    results: dict[str, Any] = {}
    try:
        await client.initialize(root, view_capabilities(), {"todoLs": WORKSPACE_SETTINGS})
        some = next((root / "docs").rglob("*.md")).as_uri()
        queries = {
            "workspace_symbol_empty_query": "",
            "workspace_symbol_3_letters": THREE_LETTERS,
            "workspace_symbol_no_match": NO_MATCH,
        }
        counts = {
            name: len(await client.request("workspace/symbol", {"query": query}))
            for name, query in queries.items()
        }

        cpu = ServerCpu(client)

        async def ask(name: str) -> tuple[float, float]:
            if name == NOOP:
                return await cpu.measure(round_trip(client, NOOP, params_of(some, NOOP)))
            query = {"query": queries[name]}
            return await cpu.measure(round_trip(client, "workspace/symbol", query))

        found = await interleaved((NOOP, *queries), repeats, ask)
        results["noop"] = figures(found[NOOP])
        for name in queries:
            results[name] = figures(found[name], baseline="noop", results=counts[name])
    finally:
        await client.close()
    return results


def judge(results: dict[str, Any]) -> bool:
    """Each request's server time (its p50 minus its no-op's, CPU and wall clock) and ratio;
    those with a budget are judged by the server's CPU time."""
    ok = True
    for part in ("document", "workspace"):
        for name, found in results[part].items():
            if "baseline" not in found:
                continue
            base = results[part][found["baseline"]]
            p50 = found["p50_ms"]
            found["ratio_to_baseline"] = round(p50 / base["p50_ms"], 1) if base["p50_ms"] else None
            found["baseline_p50_ms"] = base["p50_ms"]
            found["baseline_cpu_p50_ms"] = base["cpu_p50_ms"]
            found["server_p50_ms"] = round(p50 - base["p50_ms"], 3)
            found["server_cpu_p50_ms"] = round(found["cpu_p50_ms"] - base["cpu_p50_ms"], 3)
            budget = BUDGETS_MS.get(name)
            if budget is None:
                continue
            found["budget_p50_ms"] = budget
            found["within_budget"] = found["server_cpu_p50_ms"] <= budget
            ok = ok and found["within_budget"]
    return ok


async def main_async(items: int, plan_lines: int, files: int, per_file: int, repeats: int) -> None:
    with tempfile.TemporaryDirectory(prefix="todo-ls-bench-") as tmp:
        documents = Path(tmp) / "documents"
        documents.mkdir()
        text = make_corpus(items=items)
        (documents / "big.md").write_text(text)
        (documents / "plan.md").write_text(plan_of_lines(plan_lines))
        workspace = Path(tmp) / "workspace"
        total = write_workspace(workspace, files, per_file)
        results = {
            "document": await document_session(documents, repeats),
            "workspace": await workspace_session(workspace, repeats),
        }
    ok = judge(results)
    report(
        "views",
        {
            "plan": {"bytes": len(text.encode()), "items": items, "plan_lines": plan_lines},
            "workspace_size": {"files": files, "items": total},
            "repeats": repeats,
            **results,
            "within_budget": ok,
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000, help="items of the big document")
    parser.add_argument("--plan-lines", type=int, default=1_000, help="lines of the small plan")
    parser.add_argument("--files", type=int, default=1_000, help="subscribed files")
    parser.add_argument("--items-per-file", type=int, default=100, help="task items per file")
    parser.add_argument("--repeats", type=int, default=40, help="samples per measurement")
    args = parser.parse_args()
    asyncio.run(
        main_async(args.items, args.plan_lines, args.files, args.items_per_file, args.repeats)
    )


if __name__ == "__main__":
    main()
