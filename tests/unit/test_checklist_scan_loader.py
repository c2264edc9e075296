"""Which scanner the package parses with: the compiled one built from the scan.py beside it,
else scan.py itself (todo_ls/checklist/scan_loader.py).

The choice is made at import, so each case runs a fresh Python on a copy of the package: with
the compiled scanner as scripts/setup-compiled.sh leaves it, with scan.py edited since that
build, and without any compiled module (what the default wheel installs).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import todo_ls
from todo_ls.checklist import parse, scan_loader
from todo_ls.checklist.model import TaskItem

PACKAGE = Path(todo_ls.__file__).resolve().parent
SETUP_HINT = "run scripts/setup-compiled.sh"
PROBE = (
    "from todo_ls.checklist import scan_loader, parse\n"
    "print(scan_loader.COMPILED, [i.text for i in parse('- [ ] a\\n  - [x] b\\n').items])"
)


def _copy_package(tmp_path: Path, *, compiled: bool) -> Path:
    """A copy of the todo_ls package under `tmp_path`, with or without the compiled scanner."""
    skip = shutil.ignore_patterns("__pycache__", *(() if compiled else ("*.so", "*.pyd")))
    shutil.copytree(PACKAGE, tmp_path / "todo_ls", ignore=skip)
    return tmp_path / "todo_ls" / "checklist" / "scan.py"


def _probe(root: Path) -> tuple[str, str]:
    """(stdout, stderr) of a fresh Python importing the package copy under `root`."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=root, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip(), done.stderr


def _require_compiled() -> None:
    if not scan_loader.COMPILED:
        pytest.fail(f"the package parses with the pure scanner: {SETUP_HINT}", pytrace=False)


def test_the_package_parses_with_the_compiled_scanner() -> None:
    _require_compiled()
    items = parse("- [ ] a\n  - [x] b\n").items
    # Real TaskItems (the compiled scanner switches the class of its items as the pure one does).
    assert [type(i) for i in items] == [TaskItem, TaskItem]
    assert [(i.text, i.parent, i.end_line) for i in items] == [("a", None, 1), ("b", 0, 1)]


def test_a_compiled_scanner_built_from_an_older_scan_py_is_not_used(tmp_path: Path) -> None:
    _require_compiled()
    source = _copy_package(tmp_path, compiled=True)
    assert _probe(tmp_path) == ("True ['a', 'b']", "")
    source.write_text(source.read_text("utf-8") + "# edited since the build\n", "utf-8")
    out, err = _probe(tmp_path)
    assert out == "False ['a', 'b']"
    assert "built from another scan.py" in err and SETUP_HINT in err, err


def test_a_compiled_scanner_built_against_an_older_model_is_not_used(tmp_path: Path) -> None:
    # mypyc compiles against the kinds of the model's classes (a named tuple to tuple
    # operations): a build against another model.py must not parse.
    _require_compiled()
    model = _copy_package(tmp_path, compiled=True).with_name("model.py")
    model.write_text(model.read_text("utf-8") + "# edited since the build\n", "utf-8")
    out, err = _probe(tmp_path)
    assert out == "False ['a', 'b']"
    assert "model.py" in err and SETUP_HINT in err, err


def test_without_a_compiled_scanner_scan_py_is_used_without_a_word(tmp_path: Path) -> None:
    _copy_package(tmp_path, compiled=False)
    assert _probe(tmp_path) == ("False ['a', 'b']", "")
