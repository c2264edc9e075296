"""`todo-ls supervise` reads the folder's project file, under `--settings` and `--url`."""

from __future__ import annotations

from pathlib import Path

import pytest

from todo_ls.commands.supervise import headless_settings


def test_project_file_under_settings_and_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "todo-ls.toml").write_text(
        'markdownFiles = ["PLAN.md"]\n[supervisor]\nsettleMs = 100\nmaxNoProgressNudges = 2\n'
        'stallMinutes = "soon"\n',
        encoding="utf-8",
    )
    settings = headless_settings(
        '{"supervisor": {"settleMs": 900}}', "http://127.0.0.1:9", tmp_path
    )
    assert not isinstance(settings, str)
    assert settings.markdown_files == ["PLAN.md"]
    supervisor = settings.supervisor
    assert (supervisor.settle_ms, supervisor.max_no_progress_nudges) == (900, 2)
    assert supervisor.url == "http://127.0.0.1:9"
    (warning,) = capsys.readouterr().err.splitlines()
    assert warning.startswith("todo-ls supervise: Invalid setting todoLs.supervisor.stallMinutes")


def test_broken_project_file_is_reported_and_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "todo-ls.toml").write_text("markdownFiles = [", encoding="utf-8")
    settings = headless_settings(None, None, tmp_path)
    assert not isinstance(settings, str) and settings.markdown_files == []
    assert "not valid TOML" in capsys.readouterr().err
