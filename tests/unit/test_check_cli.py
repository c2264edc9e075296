"""`todo-ls check`: output formats, exit codes and one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from todo_ls.commands.check import run_check

PLAN = """# Plan

- [x] done thing
- [ ] open thing
  - [/] working on it
- [~] dropped
- [?] ask the user

```
- [ ] in a fence, not an item
```
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "PLAN.md").write_text(PLAN, encoding="utf-8")
    return tmp_path


def test_text_lists_open_items_with_path_and_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_check(["PLAN.md"], "text") == 1
    out = capsys.readouterr()
    assert out.out.splitlines() == [
        "PLAN.md:4: [open] open thing",
        "PLAN.md:5: [inProgress] working on it",
        "PLAN.md:7: [blocked] ask the user",
        "PLAN.md: 3 open, 1 done, 1 canceled of 5",
    ]
    assert out.err == ""


def test_all_closed_exits_0(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "done.md").write_text("- [x] a\n- [X] b\n- [-] c\n", encoding="utf-8")
    assert run_check(["done.md"], "text") == 0
    assert capsys.readouterr().out == "done.md: 0 open, 2 done, 1 canceled of 3\n"


def test_file_without_items_exits_0(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "notes.md").write_text("just prose\n", encoding="utf-8")
    assert run_check(["notes.md"], "text") == 0
    assert capsys.readouterr().out == "notes.md: 0 open, 0 done of 0\n"


def test_directory_is_searched_recursively_skipping_vendor_dirs(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "docs" / "sub").mkdir(parents=True)
    (project / "docs" / "sub" / "release.md").write_text("- [ ] ship\n", encoding="utf-8")
    (project / "docs" / "readme.txt").write_text("- [ ] not markdown\n", encoding="utf-8")
    for skipped in (".git", "node_modules"):
        (project / skipped).mkdir()
        (project / skipped / "x.md").write_text("- [ ] vendored\n", encoding="utf-8")
    assert run_check(["."], "text") == 1
    lines = capsys.readouterr().out.splitlines()
    refs = [line.split(": ")[0] for line in lines if ": [" in line]
    assert refs == [
        os.path.join(".", "PLAN.md:4"),
        os.path.join(".", "PLAN.md:5"),
        os.path.join(".", "PLAN.md:7"),
        os.path.join(".", "docs", "sub", "release.md:1"),
    ]
    assert lines[-1] == "total (2 files): 4 open, 1 done, 1 canceled of 6"


def test_symlink_loop_is_not_followed(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "d").mkdir()
    (project / "d" / "a.md").write_text("- [ ] a\n", encoding="utf-8")
    (project / "d" / "loop").symlink_to(project / "d", target_is_directory=True)
    assert run_check(["d"], "text") == 1
    assert capsys.readouterr().out.splitlines() == [
        "d/a.md:1: [open] a",
        "d/a.md: 1 open, 0 done of 1",
    ]


def test_json_format(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_check(["PLAN.md"], "json") == 1
    report = json.loads(capsys.readouterr().out)
    assert report["totals"] == {"open": 3, "done": 1, "canceled": 1, "total": 5, "files": 1}
    (plan,) = report["files"]
    assert plan["path"] == "PLAN.md"
    assert (plan["open"], plan["total"]) == (3, 5)
    assert plan["items"][0] == {
        "line": 3,
        "state": "done",
        "marker": "x",
        "open": False,
        "text": "done thing",
    }
    assert [i["state"] for i in plan["items"]] == [
        "done",
        "open",
        "inProgress",
        "canceled",
        "blocked",
    ]


def test_github_format_escapes_annotation(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "a,b.md").write_text("- [ ] 100% done: really\n", encoding="utf-8")
    assert run_check(["a,b.md"], "github") == 1
    assert capsys.readouterr().out.splitlines()[0] == (
        "::warning file=a%2Cb.md,line=1,title=todo-ls::[open] 100%25 done: really"
    )


def test_bom_and_crlf_are_fine(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "bom.md").write_bytes("\ufeff# T\r\n- [ ] é\r\n".encode())
    assert run_check(["bom.md"], "text") == 1
    assert capsys.readouterr().out.splitlines()[0] == "bom.md:2: [open] é"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.md", None, "missing.md: no such file or directory"),
        ("bin.md", b"- [ ] a\x00b\n", "bin.md: binary file (contains NUL bytes)"),
        ("latin1.md", "- [ ] caf\xe9\n".encode("latin-1"), "latin1.md: not UTF-8 (byte 0xe9"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_exit_2(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: bytes | None,
    message: str,
) -> None:
    if content is not None:
        (project / name).write_bytes(content)
    assert run_check(["PLAN.md", name], "text") == 2
    out = capsys.readouterr()
    (line,) = out.err.splitlines()
    assert line.startswith(f"todo-ls: {message}")
    assert "PLAN.md:4: [open] open thing" in out.out  # the readable file is still reported


def test_directory_without_markdown_is_an_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "empty").mkdir()
    assert run_check(["empty"], "text") == 2
    assert capsys.readouterr().err == (
        "todo-ls: empty: no markdown (*.md) files in this directory\n"
    )


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "todo_ls", "check", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )


def test_real_process_exit_codes_and_output(project: Path) -> None:
    done = project / "done.md"
    done.write_text("- [x] é\n", encoding="utf-8")
    result = _cli(project, "PLAN.md")
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout.splitlines()[0] == "PLAN.md:4: [open] open thing"
    assert _cli(project, "done.md").returncode == 0
    json_result = _cli(project, "--format", "json", "done.md")
    assert json.loads(json_result.stdout)["files"][0]["items"][0]["text"] == "é"


def test_real_process_never_prints_a_traceback(project: Path) -> None:
    (project / "bin.md").write_bytes(b"\x00\x01\x02")
    result = _cli(project, "bin.md", "nope.md")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [
        "todo-ls: bin.md: binary file (contains NUL bytes)",
        "todo-ls: nope.md: no such file or directory",
    ]


def test_no_paths_checks_the_project_files_markdown_files(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "docs").mkdir()
    (project / "docs" / "release.md").write_text("- [ ] tag it\n", encoding="utf-8")
    (project / "todo-ls.toml").write_text(
        'markdownFiles = ["PLAN.md", "docs/*.md", "LATER.md"]\n', encoding="utf-8"
    )
    assert run_check([], "text") == 1
    out = capsys.readouterr().out
    assert "PLAN.md:4" in out and "docs/release.md:1" in out
    assert "LATER.md" not in out  # subscribed but not written yet: nothing to check


def test_no_paths_and_no_project_file_exit_2_with_the_reason(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_check([], "text") == 2
    err = capsys.readouterr().err
    assert err.startswith("todo-ls check: no paths given and no todo-ls.toml or .todo-ls.toml")
    assert err.count("\n") == 1


def test_project_file_states_and_bad_values(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "TASKS.md").write_text("- [D] shipped\n- [ ] open\n", encoding="utf-8")
    (project / ".todo-ls.toml").write_text(
        'markdownFiles = ["TASKS.md"]\nstateDir = 7\n[states]\ndone = ["D"]\n'
        "[supervisor]\nmaxNoProgressNudges = 0\n",
        encoding="utf-8",
    )
    assert run_check([], "json") == 1
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["totals"]["done"] == 1 and report["totals"]["open"] == 1
    # stateDir is not the project file's to set: ignored, whatever its value (docs/security.md)
    ignored, invalid = captured.err.splitlines()
    assert ignored.startswith(f"todo-ls: {project / '.todo-ls.toml'}: ignoring todoLs.stateDir: ")
    assert invalid == (
        "todo-ls: .todo-ls.toml: Invalid setting todoLs.supervisor.maxNoProgressNudges: "
        "must be a whole number of at least 1; using the default."
    )
