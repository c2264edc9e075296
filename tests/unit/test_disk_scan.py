"""The disk re-check (todo_ls/disk_scan.py) and the glob matcher that lets a file event update
an expansion in place (todo_ls/globs.py, `Matcher`): both agree with a full expansion."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from todo_ls.disk_scan import Delta, DiskScanner, diff, plan_of
from todo_ls.globs import Matcher, expand_inside, expand_patterns, walk_files

PATTERNS = [
    ["**/*.md"],
    ["docs/*.md", "PLAN.md"],
    ["docs/**/plan?.md", "notes/[a-c]*.md"],
    ["node_modules/**/*.md", "*.md"],
    ["../outside/*.md"],
]


def _tree(root: Path) -> None:
    for rel in [
        "PLAN.md",
        "docs/plan1.md",
        "docs/deep/plan2.md",
        "docs/deep/other.md",
        "docs/readme.txt",
        "notes/alpha.md",
        "notes/delta.md",
        "node_modules/pkg/README.md",
        ".git/x.md",
        "src/node_modules/y.md",
    ]:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("- [ ] x\n")


@pytest.mark.parametrize("confined", [False, True])
@pytest.mark.parametrize("patterns", PATTERNS)
def test_matcher_agrees_with_the_expansion(
    tmp_path: Path, patterns: list[str], confined: bool
) -> None:
    root = tmp_path / "proj"
    _tree(root)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "o.md").write_text("")
    os.symlink(tmp_path / "outside", root / "docs" / "link")
    if confined:
        expanded = set(expand_inside(root, patterns).paths)
    else:
        expanded = set(expand_patterns(root, patterns))
    matcher = Matcher(root, patterns, confined=confined)
    every = {Path(p) for p in walk_files(tmp_path)}  # files that exist: a glob names no other
    for path in every:
        assert matcher(path) == (path in expanded), (patterns, path)


def test_diff_names_what_came_went_and_changed() -> None:
    a, b, c = Path("/w/a.md"), Path("/w/b.md"), Path("/w/c.md")
    delta = diff({a: (1, 1), b: (1, 1), c: None}, {b: (2, 1), c: (3, 3), Path("/w/d.md"): None})
    assert delta == Delta(created=[Path("/w/d.md")], deleted=[a], changed=[b, c])
    assert not diff({a: (1, 1)}, {a: (1, 1)})


def test_a_round_reports_only_what_changed_since_the_baseline(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    one, two = tmp_path / "docs" / "one.md", tmp_path / "docs" / "two.md"
    one.write_text("- [ ] a\n")
    st = one.stat()
    plan = plan_of([(tmp_path, ["docs/*.md"], False)], [tmp_path / "extra.md"])
    scanner = DiskScanner(plan, {one: (st.st_mtime_ns, st.st_size)}, lambda _: None, floor=1.0)
    assert scanner.round() == Delta(created=[tmp_path / "extra.md"])
    two.write_text("")
    os.utime(one, ns=(st.st_mtime_ns + 10**9, st.st_mtime_ns + 10**9))
    assert scanner.round() == Delta(created=[two], changed=[one])
    two.unlink()
    (tmp_path / "extra.md").write_text("")
    assert scanner.round() == Delta(deleted=[two], changed=[tmp_path / "extra.md"])
    assert not scanner.round()
