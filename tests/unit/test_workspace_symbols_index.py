"""`workspace/symbol` answered from its index equals a fresh scan of the files, ranked by the
same rule worked out naively, after seeded random edits on disk (told to the index as a
watched-file event would) and in open documents; a query reads and stats no file; the ranking
puts the query at a name's or word's start before the letters scattered, and holds its cap
(docs/performance.md, "Scale")."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from todo_ls.checklist import StateRegistry, fuzzy_match, parse, symbol_name, text_span
from todo_ls.checklist.model import OPEN_STATES
from todo_ls.server import workspace_symbols as symbols_module
from todo_ls.server.positions import Encoding
from todo_ls.server.workspace_symbols import (
    LIMIT,
    RANKED_LIMIT,
    SEPARATOR,
    workspace_symbols,
)
from todo_ls.workspace import CLOSED_PARSE_BYTES, Folder, WorkspaceIndex

WORDS = ["parse", "render", "`code`", "*em*", "[link](u)", "fix", "é", "漢字", "a&amp;b", "x"]
MARKERS = [" ", " ", "x", "/", "-", "?", "~"]
QUERIES = [
    "",
    "p",
    "par",
    "rnd",
    "code",
    "link",
    "é",
    "a&b",
    "zzz",
    "漢",
    "e",
    "r",
    "x p",
    "ix",
    "ex",
    "kl",
]


def random_plan(rng: random.Random) -> str:
    lines = []
    for section in range(rng.randint(0, 3)):
        lines += [f"## {' '.join(rng.choices(WORDS, k=2))} {section}", ""]
        for _ in range(rng.randint(0, 6)):
            indent = rng.choice(["", "", "  "])
            text = " ".join(rng.choices(WORDS, k=rng.randint(0, 4)))
            lines.append(f"{indent}- [{rng.choice(MARKERS)}] {text}".rstrip())
        lines.append("")
    return "\n".join(lines)


Entry = tuple[str, str, int, int, int, str]


def naive_rank(query: str, name: str) -> int:
    """0: `name` starts with the query; 1: a word of it does; 2: it holds the query as one
    run; 3: its letters are scattered (worked out position by position)."""
    needle, name = query.lower().strip(), name.lower()
    starts = [p for p in range(len(name)) if name.startswith(needle, p)]
    if not starts:
        return 3
    if starts[0] == 0:
        return 0
    return 1 if any(not name[p - 1].isalnum() for p in starts) else 2


def fresh_scan(
    root: Path,
    texts: dict[Path, str],
    query: str,
    limit: int,
    candidates: int = 1000,
    scan: int = 50_000,
) -> list[Entry]:
    """The answer worked out from scratch: every `.md` file under `root` in path order (an
    open document by its editor text), its open items whose shown name matches. For a query:
    open documents first; the files holding the first `scan` open items searched for the
    query as one run, the first `candidates` of those taken; when they are fewer than `limit`,
    those files' scattered matches fill up, then the next files' matches (runs, then
    scattered, file by file); ranked: `naive_rank`, open documents, shorter names, scan
    order."""
    ranked = bool(query.strip())
    paths = sorted(root.rglob("*.md"))
    if ranked:
        paths = [p for p in paths if p in texts] + [p for p in paths if p not in texts]
    files: list[tuple[int, list[tuple[str, bool, Entry]]]] = []  # open items, matches
    for path in paths:
        text = texts[path] if path in texts else path.read_text(encoding="utf-8")
        checklist = parse(text, StateRegistry.default())
        if not checklist.items:
            continue
        lines = text.split("\n")
        rel = path.relative_to(root).as_posix()
        matches, count = [], 0
        for item in checklist.items:
            name = symbol_name(item.text)
            if item.state not in OPEN_STATES:
                continue
            count += 1
            if not fuzzy_match(query, name.lower()):
                continue
            if not item.text and query:
                continue  # an empty item is named "(no text)" but has no text to match
            start, end = text_span(lines[item.line], item.text, item.marker_col + 2)
            column = Encoding.UTF16.column
            heading = (
                symbol_name(checklist.headings[item.heading].text)
                if item.heading is not None
                else ""
            )
            entry = (
                name,
                path.as_uri(),
                item.line,
                column(lines[item.line], start),
                column(lines[item.line], end),
                rel + SEPARATOR + heading if heading else rel,
            )
            matches.append((name, path in texts, entry))
        files.append((count, matches))
    if not ranked:
        return [e for _, found in files for _, _, e in found][:limit]
    searched, total = 0, 0
    for count, _ in files:
        searched, total = searched + 1, total + count
        if total >= scan:
            break
    order = 0
    scanned: list[list[tuple[int, tuple[str, bool, Entry]]]] = []  # per file, in scan order
    for _, found in files:
        scanned.append([(order + k, m) for k, m in enumerate(found)])
        order += len(found)
    head = [s for f in scanned[:searched] for s in f]
    picked = [s for s in head if naive_rank(query, s[1][0]) < 3][:candidates]
    if len(picked) < limit:
        picked += [s for s in head if naive_rank(query, s[1][0]) == 3][: limit - len(picked)]
    for f in scanned[searched:]:
        if len(picked) >= limit:
            break
        runs = [s for s in f if naive_rank(query, s[1][0]) < 3]
        rest = [s for s in f if naive_rank(query, s[1][0]) == 3]
        picked += (runs + rest)[: limit - len(picked)]
    picked.sort(key=lambda s: (naive_rank(query, s[1][0]), not s[1][1], len(s[1][0]), s[0]))
    return [e for _, (_, _, e) in picked[:limit]]


def answered(
    index: WorkspaceIndex,
    query: str,
    limit: int | None,
    candidates: int = 1000,
    scan: int = 50_000,
) -> list[Entry]:
    return [
        (
            e["name"],
            e["location"]["uri"],
            e["location"]["range"]["start"]["line"],
            e["location"]["range"]["start"]["character"],
            e["location"]["range"]["end"]["character"],
            e["containerName"],
        )
        for e in json.loads(
            workspace_symbols(index, Encoding.UTF16, query, limit, candidates, scan)
        )
    ]


# parse_bytes 0: the workspace keeps no closed file's parse but the last (docs/performance.md,
# "Memory"), so the entries of the others are encoded from a re-read; encoded_bytes 0: no
# entry is kept encoded past its answer.
@pytest.mark.parametrize(
    ("parse_bytes", "encoded_bytes"),
    [(CLOSED_PARSE_BYTES, symbols_module.ENCODED_BYTES), (0, symbols_module.ENCODED_BYTES), (0, 0)],
)
@pytest.mark.parametrize("seed", range(6))
def test_the_index_answers_what_a_fresh_scan_does(
    tmp_path: Path,
    seed: int,
    parse_bytes: int,
    encoded_bytes: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(symbols_module, "ENCODED_BYTES", encoded_bytes)
    rng = random.Random(seed)
    root = tmp_path / "ws"
    paths = [root / folder / f"plan{n}.md" for folder in ("a", "b/c") for n in range(3)]
    for path in paths[:4]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(random_plan(rng), encoding="utf-8")
    index = WorkspaceIndex(parse_bytes=parse_bytes)
    index.set_folders([Folder.from_path(root)])
    index.configure(["**/*.md"], StateRegistry.default())
    open_texts: dict[Path, str] = {}
    version = 0
    for step in range(40):
        path = rng.choice(paths)
        action = rng.choice(["rewrite", "rewrite", "delete", "open", "edit", "close"])
        if action == "rewrite" or (action == "edit" and path not in open_texts):
            created = not path.exists()
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(random_plan(rng), encoding="utf-8")
            index.forget(path)  # what a watched-file event does
            if created:
                index.invalidate_globs()
        elif action == "delete" and path.exists() and path not in open_texts:
            path.unlink()
            index.forget(path)
            index.invalidate_globs()
        elif action in ("open", "edit") and path.exists():
            version += 1
            text = random_plan(rng) if action == "edit" else path.read_text(encoding="utf-8")
            open_texts[path] = text
            index.open_document(path.as_uri(), version, text)
        elif action == "close" and path in open_texts:
            del open_texts[path]
            index.close_document(path.as_uri())
        for query in rng.sample(QUERIES, 3):
            limit, candidates = rng.choice([(1000, 1000), (3, 1000), (3, 5), (1000, 4)])
            scan = rng.choice([50_000, 50_000, 1, 4])  # small: the budget cuts the run pass
            expected = fresh_scan(root, open_texts, query, limit, max(candidates, limit), scan)
            got = answered(index, query, limit, candidates, scan)
            assert got == expected, (step, action, query, limit, candidates, scan)


def test_a_query_reads_and_stats_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for n in range(5):
        (tmp_path / f"p{n}.md").write_text(f"# P{n}\n\n- [ ] fix `parse` {n}\n- [x] done\n")
    index = WorkspaceIndex()
    index.set_folders([Folder.from_path(tmp_path)])
    index.configure(["*.md"], StateRegistry.default())
    assert len(answered(index, "", 1000)) == 5
    calls: list[str] = []
    real_stat = Path.stat

    def counting(self: Path, **kwargs: bool) -> object:
        calls.append(str(self))
        return real_stat(self, **kwargs)

    monkeypatch.setattr(Path, "stat", counting)
    assert [e[0] for e in answered(index, "fix parse", 1000)] == [
        f"fix parse {n}" for n in range(5)
    ]
    assert answered(index, "zzz", 1000) == []
    assert calls == []


def test_ranking_puts_the_query_at_a_start_before_scattered_letters(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(
        "- [ ] pick a rough route\n"  # p…a…r scattered
        "- [ ] compare it\n"  # "par" inside a word
        "- [ ] the parser\n"  # a word starts with "par"
        "- [ ] parse it all\n"  # the name starts with "par", longer
        "- [ ] parse\n"  # the name starts with "par", shorter
    )
    (tmp_path / "b.md").write_text("- [ ] prepare a release\n")  # "par" inside a word
    index = WorkspaceIndex()
    index.set_folders([Folder.from_path(tmp_path)])
    index.configure(["*.md"], StateRegistry.default())
    names = [e[0] for e in answered(index, "Par", None)]
    assert names == [
        "parse",
        "parse it all",
        "the parser",
        "compare it",
        "prepare a release",
        "pick a rough route",
    ]
    # An open document's match of a rank comes before the closed files' of the same rank.
    index.open_document((tmp_path / "b.md").as_uri(), 1, "- [ ] prepare a release\n")
    names = [e[0] for e in answered(index, "par", None)]
    assert names.index("prepare a release") < names.index("compare it")


def test_the_caps_hold(tmp_path: Path) -> None:
    lines = [f"- [ ] task {n} {'x' * (n % 7)}" for n in range(1500)]
    (tmp_path / "a.md").write_text("\n".join(lines) + "\n- [ ] a stray task\n")
    index = WorkspaceIndex()
    index.set_folders([Folder.from_path(tmp_path)])
    index.configure(["*.md"], StateRegistry.default())
    assert len(answered(index, "", None)) == LIMIT  # the empty query: in document order
    ranked = answered(index, "task", None)
    assert len(ranked) == RANKED_LIMIT
    # Best first: every name starting with "task" before the one where a word does.
    assert "a stray task" not in [e[0] for e in ranked]
    assert [len(e[0]) for e in ranked] == sorted(len(e[0]) for e in ranked)


def _encoded_bytes(index: WorkspaceIndex) -> int:
    """What the index's encoded entries hold: their strings and lists (but empty ones)."""
    entries = symbols_module._indexes.get(index, {})
    return sum(
        sys.getsizeof(f.encoded) + sum(sys.getsizeof(e) for e in f.encoded if e is not None)
        for f in entries.values()
        if f.encoded
    )


def test_encoded_entries_stay_within_their_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Queries that each answer from other files (as a long session's do) would otherwise
    # keep the JSON of every item of every file.
    for n in range(40):
        items = "".join(f"- [ ] note{n:02d} task {k}\n" for k in range(20))
        (tmp_path / f"n{n:02d}.md").write_text(f"# N{n}\n\n{items}")
    index = WorkspaceIndex()
    index.set_folders([Folder.from_path(tmp_path)])
    index.configure(["*.md"], StateRegistry.default())
    unbounded = {n: answered(index, f"note{n:02d}", 1000) for n in range(40)}
    assert _encoded_bytes(index) > 40 * 20 * 200  # every entry encoded, ~250 B each
    bound = 30_000  # about six files' entries
    monkeypatch.setattr(symbols_module, "ENCODED_BYTES", bound, raising=False)
    index = WorkspaceIndex()
    index.set_folders([Folder.from_path(tmp_path)])
    index.configure(["*.md"], StateRegistry.default())
    for _ in range(2):
        for n in range(40):
            assert answered(index, f"note{n:02d}", 1000) == unbounded[n]
            assert _encoded_bytes(index) <= bound
    assert len(answered(index, "", 1000)) == 800
    assert _encoded_bytes(index) <= bound
