"""Compiles the checklist scanner (todo_ls/checklist/scan.py) with mypyc, in place.

The extension modules land beside scan.py, where `import todo_ls.checklist.scan` finds them
before the source, with `scan.compiled-from`: the SHA-256 of the scan.py they were built from
and of the modules it imports classes from. `todo_ls.checklist.scan_loader` uses the compiled scanner
only while that matches the sources beside it, so a build left over from an older source is
never used. The same source stays the pure
engine every platform installs (docs/packaging.md).

Used by scripts/setup-compiled.sh (tests and benchmarks) and by hatch_build.py (the opt-in
compiled wheel). Needs mypy (mypyc), setuptools, a C compiler and the Python headers.

    python scripts/compile_engine.py          # build when missing or stale, print the files
    python scripts/compile_engine.py --check  # exit 1 when missing or stale, build nothing
"""

from __future__ import annotations

import hashlib
import os
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path("todo_ls", "checklist")
SOURCE = PACKAGE / "scan.py"
STAMP = PACKAGE / "scan.compiled-from"


# scan.py and the modules it imports classes from (`todo_ls.checklist.scan_loader.COMPILED_FROM`).
COMPILED_FROM = ("scan.py", "assemble.py", "lines.py", "model.py")


def source_hash(root: Path) -> str:
    """The SHA-256 of scan.py and the modules it is compiled against, as
    `todo_ls.checklist.scan_loader` computes it."""
    digest = hashlib.sha256()
    for name in COMPILED_FROM:
        digest.update((root / PACKAGE / name).read_bytes())
    return digest.hexdigest()


def built_files(root: Path) -> list[Path]:
    """The compiled scanner of this Python (its module and mypyc's runtime library) and the
    stamp, relative to `root`; empty when any is missing or the stamp names another source."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    files = [PACKAGE / f"scan{suffix}", PACKAGE / f"scan__mypyc{suffix}", STAMP]
    if not all((root / f).is_file() for f in files):
        return []
    if (root / STAMP).read_text("utf-8").strip() != source_hash(root):
        return []
    return files


def compile_in_place(root: Path) -> list[Path]:
    """Build the compiled scanner beside scan.py unless it is already built from this source;
    returns `built_files`."""
    if files := built_files(root):
        return files
    # Imported here: a check needs neither, and the pure build never imports this module.
    from mypyc.build import mypycify
    from setuptools import Distribution

    (root / STAMP).unlink(missing_ok=True)
    digest = source_hash(root)  # before the build: an edit during it makes the stamp stale
    cwd = Path.cwd()
    os.chdir(root)  # mypycify and build_ext --inplace work on paths relative to the root
    try:
        # The scanner imports markdown-it-py only for the documents it hands over: a build
        # environment without it (the compiled wheel's) compiles the same code.
        args = ["--ignore-missing-imports", str(SOURCE)]
        extensions = mypycify(args, opt_level="3", target_dir="build/mypyc")
        # A bare Distribution: setup() would read pyproject.toml, which is hatchling's.
        distribution = Distribution({"ext_modules": extensions})
        build_ext = distribution.get_command_obj("build_ext")
        build_ext.inplace = True
        build_ext.build_temp = "build/mypyc/temp"
        distribution.run_command("build_ext")
    finally:
        os.chdir(cwd)
    (root / STAMP).write_text(digest + "\n", "utf-8")
    files = built_files(root)
    if not files:
        raise RuntimeError(f"mypyc ran but the compiled scanner is not beside {SOURCE}")
    return files


def main() -> int:
    if sys.argv[1:] == ["--check"]:
        return 0 if built_files(ROOT) else 1
    if sys.argv[1:]:
        sys.stderr.write(__doc__ or "")
        return 2
    for path in compile_in_place(ROOT):
        sys.stdout.write(f"{path}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
