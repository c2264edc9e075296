"""A deterministic ~1 MB markdown plan with 10,000 task items, for the benchmarks.

It mixes what real plans hold: headings (ATX and setext), nested bullet and ordered lists in
every state, block quotes with items, fenced and indented code holding fake items, HTML blocks,
prose paragraphs and front matter. `python bench/corpus.py > plan.md` writes it out.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

STATE_MARKERS = (" ", " ", " ", "/", "?", "x", "X", "~", "-")
WORDS = [
    *("parse", "render", "index", "cache", "token", "editor", "status", "nudge", "session"),
    *("server", "client", "hint", "lens", "diagnostic", "marker", "heading", "section"),
    *("report", "budget", "latency", "stream", "event", "retry", "backoff", "pause", "resume"),
    *("subscribe", "file", "watcher", "store", "ledger", "claim", "schema", "verify", "é", "漢字"),
]


def _words(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def _item(rng: random.Random, prefix: str, low: int, high: int) -> str:
    return f"{prefix}[{rng.choice(STATE_MARKERS)}] {_words(rng, low, high)}"


def _section(rng: random.Random, n: int, budget: int) -> tuple[list[str], int]:
    """One `## ` section with at most `budget` task items; returns its lines and item count."""
    out = [f"## {_words(rng, 2, 4).capitalize()} {n}", "", _words(rng, 30, 60), _words(rng, 20, 50)]
    out.append("")
    items = 0
    for _ in range(rng.randint(4, 9)):
        if items == budget:
            break
        out.append(_item(rng, rng.choice(("- ", "* ", "+ ", "1. ")), 3, 14))
        items += 1
        for _ in range(rng.randint(0, 3)):
            if items == budget:
                break
            out.append(_item(rng, "   - ", 3, 12))
            items += 1
            if rng.random() < 0.3 and items < budget:
                out.append(_item(rng, "     1) ", 2, 8))
                items += 1
        if rng.random() < 0.15:
            out.append(f"  {_words(rng, 5, 12)}")  # continuation line of the item's paragraph
    out.append("")
    kind = rng.random()
    if kind < 0.25:
        out += ["```python", "- [ ] not an item: fenced", "x = 1", "```", ""]
    elif kind < 0.45 and items < budget:
        out += ["> Notes from review:", _item(rng, "> - ", 2, 6), ">", f"> {_words(rng, 5, 15)}"]
        out.append("")
        items += 1
    elif kind < 0.55:
        out += [_words(rng, 8, 20), "", "    - [ ] not an item: indented code", ""]
        out += ["<details>", "- [ ] not an item: html", "</details>", ""]
    elif kind < 0.65:
        out += [f"{_words(rng, 2, 5)}", "---------", ""]
    else:
        out += [_words(rng, 20, 40), ""]
    return out, items


def make_corpus(items: int = 10_000, seed: int = 7) -> str:
    """A markdown document with exactly `items` task items (LF line ends)."""
    rng = random.Random(seed)
    lines = ["---", "title: benchmark plan", "tags: [bench]", "---", "", "# Benchmark plan", ""]
    count = 0
    section = 0
    while count < items:
        part, n = _section(rng, section, items - count)
        section += 1
        lines += part
        count += n
    return "\n".join(lines) + "\n"


VAULT_ITEMS = 50


def vault_note(n: int, items: int = VAULT_ITEMS) -> str:
    """File `n` of a big workspace, as a notes vault holds them: a heading, five subsections
    and `items` task items, one in three done."""
    lines = [f"# Note {n}", ""]
    per_part = max(1, items // 5)
    for k in range(items):
        if k % per_part == 0 and k // per_part < 5:
            lines += [f"## Part {k // per_part}", ""]
        lines.append(f"- [{'x' if k % 3 == 0 else ' '}] task {n}.{k} with some words")
    return "\n".join(lines) + "\n"


def write_vault(root: Path, files: int, items: int = VAULT_ITEMS) -> int:
    """`files` vault notes under `root/notes`, 50 per folder; returns the task items."""
    for n in range(files):
        folder = root / "notes" / f"d{n // 50:04d}"
        if n % 50 == 0:
            folder.mkdir(parents=True, exist_ok=True)
        (folder / f"n{n:05d}.md").write_text(vault_note(n, items))
    return files * items


if __name__ == "__main__":
    sys.stdout.write(make_corpus())
