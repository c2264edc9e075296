"""The project file (`todo-ls.toml`): found, read, layered under the editor's settings."""

from __future__ import annotations

from pathlib import Path

from todo_ls.settings import project_file


def test_no_file_means_no_settings_and_no_error(tmp_path: Path) -> None:
    found = project_file.read(tmp_path)
    assert found.settings == {} and found.error is None and found.path is None


def test_keys_of_the_section_are_read(tmp_path: Path) -> None:
    (tmp_path / "todo-ls.toml").write_text(
        'markdownFiles = ["PLAN.md"]\n[supervisor]\nmaxNoProgressNudges = 3\n', encoding="utf-8"
    )
    found = project_file.read(tmp_path)
    assert found.settings == {
        "markdownFiles": ["PLAN.md"],
        "supervisor": {"maxNoProgressNudges": 3},
    }
    assert found.path == tmp_path / "todo-ls.toml"


def test_hidden_name_and_a_wrapping_table_are_accepted(tmp_path: Path) -> None:
    (tmp_path / ".todo-ls.toml").write_text('[todoLs]\nmarkdownFiles = ["a.md"]\n', "utf-8")
    assert project_file.read(tmp_path).settings == {"markdownFiles": ["a.md"]}


def test_the_visible_name_wins_over_the_hidden_one(tmp_path: Path) -> None:
    (tmp_path / ".todo-ls.toml").write_text('markdownFiles = ["hidden.md"]\n', "utf-8")
    (tmp_path / "todo-ls.toml").write_text('markdownFiles = ["shown.md"]\n', "utf-8")
    assert project_file.read(tmp_path).settings == {"markdownFiles": ["shown.md"]}


def test_broken_toml_is_one_line_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "todo-ls.toml").write_text("markdownFiles = [\n", "utf-8")
    found = project_file.read(tmp_path)
    assert found.settings == {}
    assert found.error is not None and "todo-ls.toml" in found.error and "\n" not in found.error


def test_non_utf8_file_is_an_error_not_an_exception(tmp_path: Path) -> None:
    (tmp_path / "todo-ls.toml").write_bytes(b"markdownFiles = ['\xff']\n")
    assert "cannot read" in (project_file.read(tmp_path).error or "")


def test_editor_settings_override_key_by_key() -> None:
    base = {"markdownFiles": ["PLAN.md"], "supervisor": {"settleMs": 100, "stallMinutes": 2}}
    over = {"supervisor": {"settleMs": 5}, "codeLens": {"enabled": False}}
    assert project_file.layered(base, over) == {
        "markdownFiles": ["PLAN.md"],
        "supervisor": {"settleMs": 5, "stallMinutes": 2},
        "codeLens": {"enabled": False},
    }
    assert project_file.layered(base, None) == base
    assert base["supervisor"] == {"settleMs": 100, "stallMinutes": 2}  # not mutated
