"""Editor latency over stdio with a real JSON-RPC client.

A one-character `didChange` → the diagnostics of that version, on the ~1 MB / 10,000-item plan
and on a 1,000-line plan, for a push client (the `publishDiagnostics` carrying the new version)
and for a pull client (`textDocument/diagnostic` answered right after the change); inlay hints
for a 100-line viewport and code actions at an item line. Baseline, in the same run: the round
trip of a request the server answers trivially (`textDocument/hover`, which it does not
implement: MethodNotFound), so the pure server cost is visible as a ratio. Each change figure
also carries the server's CPU time per change (`/proc`, 10 ms ticks: meaningful for the 1 MB
document), which a busy machine inflates far less than latency.

Budgets (README, "Performance"): 1 MB change → diagnostics p50 <= 30 ms, p95 <= 60 ms;
1,000-line plan p50 <= 3 ms; inlay hints and code actions p50 <= 5 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchutil import cpu_seconds, report, summary
from corpus import make_corpus
from lsp_client import LspClient, ResponseError, capabilities

BUDGETS_MS = {
    "change_1mb": {"p50_ms": 30.0, "p95_ms": 60.0},
    "change_1000_lines": {"p50_ms": 3.0},
    "inlay_hints_100_lines": {"p50_ms": 5.0},
    "code_actions": {"p50_ms": 5.0},
}
SETTINGS = {"markdownFiles": ["*.md"], "supervisor": {"enabled": False}}


class Document:
    """An open document whose edits toggle one character at the end of a chosen line."""

    def __init__(self, client: LspClient, path: Path, text: str) -> None:
        self.client = client
        self.uri = path.as_uri()
        self.lines = text.split("\n")
        self.version = 1
        middle = len(self.lines) // 2
        self.edit_line = next(
            i for i in range(middle, len(self.lines)) if self.lines[i].lstrip().startswith("- [")
        )
        self._inserted = False
        self._line_added = False
        client.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": self.uri,
                    "languageId": "markdown",
                    "version": 1,
                    "text": text,
                }
            },
        )

    def change(self) -> int:
        """Insert or remove one character (alternately); returns the new version."""
        line = self.edit_line
        end = len(self.lines[line])  # ASCII-safe: the corpus' item lines end in ASCII words
        if self._inserted:
            rng = {
                "start": {"line": line, "character": end},
                "end": {"line": line, "character": end + 1},
            }
            text = ""
        else:
            rng = {
                "start": {"line": line, "character": end},
                "end": {"line": line, "character": end},
            }
            text = "z"
        self._inserted = not self._inserted
        return self._send(rng, text)

    def change_line(self) -> int:
        """Insert a new item line below the edited line or remove it again (alternately): the
        lines after it move, as when a user presses Enter; returns the new version."""
        below = {"line": self.edit_line + 1, "character": 0}
        if self._line_added:
            rng, text = {"start": below, "end": {"line": self.edit_line + 2, "character": 0}}, ""
        else:
            rng, text = {"start": below, "end": below}, "- [ ] a new item\n"
        self._line_added = not self._line_added
        return self._send(rng, text)

    def _send(self, rng: dict[str, Any], text: str) -> int:
        self.version += 1
        self.client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": self.uri, "version": self.version},
                "contentChanges": [{"range": rng, "text": text}],
            },
        )
        return self.version


async def open_document(client: LspClient, path: Path, pull: bool) -> Document:
    """Open `path` and wait for its first diagnostics (the document is indexed then)."""
    uri = path.as_uri()
    first = client.wait_for("textDocument/publishDiagnostics", lambda p: p["uri"] == uri)
    doc = Document(client, path, path.read_text())
    if pull:
        first.cancel()
        await client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
    else:
        await asyncio.wait_for(first, 60)
    return doc


async def timed(repeats: int, run: Callable[[], Awaitable[float]]) -> list[float]:
    """`repeats` samples of `run` (which returns its own latency) after a short warm-up."""
    for _ in range(min(3, repeats)):
        await run()
    return [await run() for _ in range(repeats)]


async def push_change(doc: Document) -> float:
    client = doc.client
    expected = doc.version + 1
    waiter = client.wait_for(
        "textDocument/publishDiagnostics",
        lambda p: p["uri"] == doc.uri and p.get("version") == expected,
    )
    start = time.perf_counter()
    doc.change()
    received = await asyncio.wait_for(waiter, 30)
    return received.at - start


async def pull_change(doc: Document) -> float:
    client = doc.client
    start = time.perf_counter()
    doc.change()
    received = await asyncio.wait_for(
        client.send_request("textDocument/diagnostic", {"textDocument": {"uri": doc.uri}}), 30
    )
    assert received.message["result"]["kind"] == "full"
    return received.at - start


async def round_trip(client: LspClient, method: str, params: Any) -> float:
    start = time.perf_counter()
    future = client.send_request(method, params)
    try:
        received = await asyncio.wait_for(future, 30)
    except ResponseError:
        return time.perf_counter() - start  # the baseline's MethodNotFound
    return received.at - start


async def session(root: Path, pull: bool, repeats: int) -> dict[str, Any]:
    """One server; every measurement of one diagnostics model."""
    client = await LspClient.spawn(cwd=root, settings={"todoLs": SETTINGS})
    results: dict[str, Any] = {}
    try:
        await client.initialize(root, capabilities(pull=pull), {"todoLs": SETTINGS})
        big = await open_document(client, root / "big.md", pull)
        small = await open_document(client, root / "plan.md", pull)
        change = pull_change if pull else push_change
        hover = {"textDocument": {"uri": small.uri}, "position": {"line": 0, "character": 0}}
        baseline = await timed(repeats, lambda: round_trip(client, "textDocument/hover", hover))
        results["baseline_round_trip"] = summary(baseline)
        pid = client.process.pid
        for name, doc, n in (
            ("change_1mb", big, max(5, repeats // 2)),
            ("change_1000_lines", small, repeats),
        ):
            cpu = cpu_seconds(pid)
            results[name] = summary(await timed(n, lambda doc=doc: change(doc)))  # type: ignore[misc]
            # The server's CPU time per change (warm-up included): what load does not add to.
            per_change = (cpu_seconds(pid) - cpu) / (n + min(3, n))
            results[name]["server_cpu_ms_per_change"] = round(per_change * 1000, 2)
        if not pull:
            # Viewport requests do not depend on the diagnostics model: measured once.
            first = big.edit_line - 50
            hints = {
                "textDocument": {"uri": big.uri},
                "range": {
                    "start": {"line": first, "character": 0},
                    "end": {"line": first + 100, "character": 0},
                },
            }
            results["inlay_hints_100_lines"] = summary(
                await timed(repeats, lambda: round_trip(client, "textDocument/inlayHint", hints))
            )
            at = {"line": big.edit_line, "character": 0}
            actions = {
                "textDocument": {"uri": big.uri},
                "range": {"start": at, "end": at},
                "context": {"diagnostics": []},
            }
            results["code_actions"] = summary(
                await timed(repeats, lambda: round_trip(client, "textDocument/codeAction", actions))
            )
        base = results["baseline_round_trip"]["p50_ms"]
        for name, figures in results.items():
            if name != "baseline_round_trip":
                figures["ratio_to_baseline"] = round(figures["p50_ms"] / base, 1) if base else None
    finally:
        await client.close()
    return results


def judge(results: dict[str, Any]) -> bool:
    ok = True
    for name, budget in BUDGETS_MS.items():
        for mode in ("push", "pull"):
            figures = results[mode].get(name)
            if figures is None:
                continue
            within = all(figures[key] <= limit for key, limit in budget.items())
            figures["budget"] = budget
            figures["within_budget"] = within
            ok = ok and within
    return ok


def plan_of_lines(lines: int) -> str:
    """A plan cut from the corpus at `lines` lines."""
    text = make_corpus(items=lines)
    return "\n".join(text.split("\n")[:lines]) + "\n"


async def main_async(items: int, plan_lines: int, repeats: int) -> None:
    with tempfile.TemporaryDirectory(prefix="todo-ls-bench-") as tmp:
        root = Path(tmp)
        text = make_corpus(items=items)
        (root / "big.md").write_text(text)
        (root / "plan.md").write_text(plan_of_lines(plan_lines))
        results = {
            "push": await session(root, pull=False, repeats=repeats),
            "pull": await session(root, pull=True, repeats=repeats),
        }
    ok = judge(results)
    report(
        "editor",
        {
            "document": {"bytes": len(text.encode()), "items": items, "plan_lines": plan_lines},
            "repeats": repeats,
            **results,
            "within_budget": ok,
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000, help="items of the big document")
    parser.add_argument("--plan-lines", type=int, default=1_000, help="lines of the small plan")
    parser.add_argument("--repeats", type=int, default=60, help="samples per measurement")
    args = parser.parse_args()
    asyncio.run(main_async(args.items, args.plan_lines, args.repeats))


if __name__ == "__main__":
    main()
