"""The workspace index: subscriptions, globs, freshness of parses, path rules."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from todo_ls.checklist import StateRegistry
from todo_ls.checklist.lines import split_lines
from todo_ls.store import Store
from todo_ls.workspace import (
    Folder,
    SubscriptionError,
    WorkspaceIndex,
    expand_patterns,
    glob_regex,
    innermost_folder,
)


@pytest.fixture
def folder(tmp_path: Path) -> Folder:
    root = tmp_path / "proj"
    root.mkdir()
    return Folder.from_path(root)


def index_for(folder: Folder, patterns: list[str], store: Store | None = None) -> WorkspaceIndex:
    index = WorkspaceIndex(store)
    index.set_folders([folder])
    index.configure(patterns, StateRegistry.default())
    return index


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("*.md", "PLAN.md", True),
        ("*.md", "docs/PLAN.md", False),
        ("**/*.md", "PLAN.md", True),
        ("**/*.md", "a/b/c.md", True),
        ("docs/**", "docs/a/b.txt", True),
        ("?.md", "a.md", True),
        ("?.md", "ab.md", False),
        ("[!a]*.md", "b.md", True),
        ("[!a]*.md", "a.md", False),
        ("[ab].md", "b.md", True),
        ("plan (1).md", "plan (1).md", True),
    ],
)
def test_glob_regex(pattern: str, path: str, matches: bool) -> None:
    assert bool(glob_regex(pattern).fullmatch(path)) is matches


def test_expand_patterns_keeps_missing_paths_and_survives_symlink_loops(folder: Folder) -> None:
    docs = folder.path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "sub" / "loop").symlink_to(docs, target_is_directory=True)
    (docs / "a.md").write_text("x", encoding="utf-8")
    (docs / "sub" / "b.md").write_text("x", encoding="utf-8")
    (docs / "node_modules").mkdir()
    (docs / "node_modules" / "c.md").write_text("x", encoding="utf-8")
    found = list(expand_patterns(folder.path, ["docs/**/*.md", "TODO.md"]))
    assert found == [docs / "a.md", docs / "sub" / "b.md", folder.path / "TODO.md"]


def test_effective_subscriptions_settings_plus_added_minus_removed(
    folder: Folder, tmp_path: Path
) -> None:
    store = Store.open(tmp_path / "state")
    index = index_for(folder, ["PLAN.md", "NOTES.md"], store)
    extra = tmp_path / "elsewhere.md"
    index.subscribe(extra)
    index.unsubscribe(folder.path / "NOTES.md")
    expected = sorted([folder.path / "PLAN.md", extra])
    assert index.subscribed(folder) == expected
    # A second index on the same store (another process, a restart) sees the same set.
    assert index_for(folder, ["PLAN.md", "NOTES.md"], store).subscribed(folder) == expected


def test_resolve_target_refuses_relative_paths_leaving_the_folder(folder: Folder) -> None:
    index = index_for(folder, [])
    assert index.resolve_target("docs/../PLAN.md") == folder.path / "PLAN.md"
    assert index.resolve_target(folder.path.parent.as_posix() + "/x.md") == (
        folder.path.parent / "x.md"
    )
    with pytest.raises(SubscriptionError, match="outside the workspace folder"):
        index.resolve_target("../x.md")
    with pytest.raises(SubscriptionError, match="not a file URI"):
        index.resolve_target("untitled:Untitled-1")


def test_disk_parse_is_fresh_and_open_text_wins(folder: Folder) -> None:
    plan = folder.path / "PLAN.md"
    index = index_for(folder, ["PLAN.md"])
    assert index.state(plan).missing
    plan.write_text("- [ ] a\n", encoding="utf-8")
    first = index.state(plan)
    assert first.progress.open == 1
    assert index.state(plan) is first  # unchanged on disk: cached
    plan.write_text("- [x] a\n- [ ] b\n", encoding="utf-8")
    os.utime(plan, ns=(first.stamp[0] + 10**9, first.stamp[0] + 10**9) if first.stamp else None)
    assert [i.ref for i in index.open_items(folder)] == ["PLAN.md:2"]
    index.open_document(plan.as_uri(), 3, "- [ ] x\n- [ ] y\n- [/] z\n")
    assert index.state(plan).progress.open == 3
    index.close_document(plan.as_uri())
    assert index.state(plan).progress.open == 1


def test_split_lines_only_on_lsp_line_breaks() -> None:
    assert split_lines("a\r\nb\rc\nd\u2028e\x0cf") == ["a", "b", "c", "d\u2028e\x0cf"]


def test_a_final_line_end_is_an_empty_line_for_lsp_and_none_for_markdown() -> None:
    assert split_lines("a\n") == ["a", ""]
    assert split_lines("a\r\n", final_empty=False) == ["a"]
    assert split_lines("", final_empty=False) == [""]


def test_innermost_folder_picks_the_deepest_folder() -> None:
    folders = ["/w/a", "/w/a/b", "/w/c"]
    assert innermost_folder("/w/a/b/x", folders) == "/w/a/b"
    assert innermost_folder("/w/a", folders) == "/w/a"
    assert innermost_folder("/w/ab", folders) is None
    assert innermost_folder(None, folders) is None
