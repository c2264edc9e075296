"""A push client typing in a huge document: diagnostics stay bounded (docs/settings.md,
`diagnostics.maxPerDocument`).

A document of `--items` task items (250,000 by default, about 20 MB) is opened by a push client
(no pull diagnostics), then `--burst` one-character edits are sent back to back, as a fast
typist's keystrokes arrive. Measured: the time from the burst to the `publishDiagnostics` of the
newest version, how many `publishDiagnostics` the burst caused and how many diagnostics the
last one carried, and the time from `didOpen` to the first one. Two servers in one run: one
with the default cap (1000) and one uncapped (`maxPerDocument` = 10⁹, every open item a
diagnostic), whose burst time is the baseline: `ratio_to_uncapped` is capped / uncapped.
Baseline of the machine, in the same run: the round trip of `textDocument/hover` (MethodNotFound).

Budget (no absolute time: the machine may be busy): the burst causes at most 3 notifications,
the last one carries at most cap + 1 diagnostics, and the capped server answers the burst in at
most 0.8 of the uncapped one's time. The time left is the document sync of each keystroke in a
20 MB text, which the cap does not touch (docs/performance.md, "A huge document").
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

from benchutil import ms, report, rss_kib, summary
from corpus import make_corpus
from lsp_client import LspClient, ResponseError, capabilities

PUBLISH = "textDocument/publishDiagnostics"
BUDGET = {"publishes": 3, "diagnostics_in_last": 1001, "ratio_to_uncapped": 0.8}
UNCAPPED = 10**9


async def hover_round_trip(client: LspClient, uri: str) -> float:
    params = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}
    started = time.perf_counter()
    with contextlib.suppress(ResponseError):
        await client.request("textDocument/hover", params)
    return time.perf_counter() - started


async def session(root: Path, cap: int | None, burst: int) -> dict[str, Any]:
    """One push-client server over the big document; the figures of one cap."""
    settings: dict[str, Any] = {"markdownFiles": ["*.md"], "supervisor": {"enabled": False}}
    if cap is not None:
        settings["diagnostics"] = {"maxPerDocument": cap}
    client = await LspClient.spawn(cwd=root, settings={"todoLs": settings})
    try:
        await client.initialize(root, capabilities(pull=False), {"todoLs": settings})
        path = root / "big.md"
        uri = path.as_uri()
        text = path.read_text()
        lines = text.split("\n")
        line = next(i for i in range(len(lines) // 2, len(lines)) if "- [ ]" in lines[i])
        first = client.wait_for(PUBLISH, lambda p: p["uri"] == uri)
        opened = time.perf_counter()
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}},
        )
        received = await asyncio.wait_for(first, 600)
        open_ms = ms(received.at - opened)
        baseline = summary([await hover_round_trip(client, uri) for _ in range(10)])

        count = 0

        def counting(params: Any) -> bool:
            nonlocal count
            if params["uri"] == uri:
                count += 1
            return bool(params["uri"] == uri and params.get("version") == 1 + burst)

        last = client.wait_for(PUBLISH, counting)
        end = len(lines[line])
        started = time.perf_counter()
        for n in range(burst):
            at = {"line": line, "character": end + n}
            client.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": 2 + n},
                    "contentChanges": [{"range": {"start": at, "end": at}, "text": "z"}],
                },
            )
        done = await asyncio.wait_for(last, 900)
        return {
            "max_per_document": cap if cap is not None else "default",
            "open_ms": round(open_ms, 1),
            "burst_ms": round(ms(done.at - started), 1),
            "publishes": count,
            "diagnostics_in_last": len(done.message["params"]["diagnostics"]),
            "server_rss_kib": rss_kib(client.process.pid),
            "baseline_round_trip": baseline,
        }
    finally:
        await client.close()


async def main_async(items: int, burst: int) -> None:
    with tempfile.TemporaryDirectory(prefix="todo-ls-bench-") as tmp:
        root = Path(tmp)
        text = make_corpus(items=items)
        (root / "big.md").write_text(text)
        capped = await session(root, None, burst)
        uncapped = await session(root, UNCAPPED, burst)
    base = uncapped["burst_ms"]
    capped["ratio_to_uncapped"] = round(capped["burst_ms"] / base, 3) if base else 0.0
    capped["budget"] = BUDGET
    within = all(capped[key] <= limit for key, limit in BUDGET.items())
    capped["within_budget"] = within
    report(
        "flood",
        {
            "document": {"bytes": len(text.encode()), "items": items},
            "burst": burst,
            "capped": capped,
            "uncapped": uncapped,
            "within_budget": within,
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=250_000, help="items of the document")
    parser.add_argument("--burst", type=int, default=20, help="edits sent back to back")
    args = parser.parse_args()
    asyncio.run(main_async(args.items, args.burst))


if __name__ == "__main__":
    main()
