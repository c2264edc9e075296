"""Which scanner parses: the compiled one when it was built from the scan.py beside it, else
scan.py itself.

`scan.py` is the one source of the fast engine. A compiled build of it (mypyc: an extension
module beside it, which `import todo_ls.checklist.scan` finds before the source) is made by
scripts/setup-compiled.sh for tests and benchmarks, and by the opt-in compiled wheel
(docs/packaging.md); the default wheel every platform installs has only the source. The build
writes `scan.compiled-from`, the SHA-256 of the scan.py it compiled and of the modules it
imports classes from (`COMPILED_FROM`: mypyc compiles against their kinds, e.g. a named tuple
to tuple operations): a compiled module whose stamp does not match the sources beside it (an
edit since the build) is not used, and a warning on stderr says so.

This module is on the Stop hook's start-up path, which has a budget: it imports nothing it
does not need (no pathlib, no logging unless there is something to say).
"""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType

_HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(_HERE, "scan.py")
# What the compiled scanner was compiled against: scan.py and the modules it imports from.
COMPILED_FROM = ("scan.py", "assemble.py", "lines.py", "model.py")
STAMP = os.path.join(_HERE, "scan.compiled-from")
_PURE_NAME = "todo_ls.checklist.scan_pure"


class NoCompiledScanner(ImportError):
    """There is no compiled scanner for this Python, or it was built from another scan.py (or
    model)."""


def is_compiled(module: ModuleType) -> bool:
    """Whether `module` was loaded from an extension module rather than from Python source."""
    return not str(module.__file__).endswith(".py")


def load_pure() -> ModuleType:
    """scan.py, loaded from its source whatever compiled module sits beside it."""
    module = sys.modules.get(_PURE_NAME)
    if module is None:
        import importlib.util

        spec = importlib.util.spec_from_file_location(_PURE_NAME, SOURCE)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[_PURE_NAME] = module
        spec.loader.exec_module(module)
    return module


def _source_hash() -> str:
    import hashlib

    digest = hashlib.sha256()
    for name in COMPILED_FROM:
        with open(os.path.join(_HERE, name), "rb") as source:
            digest.update(source.read())
    return digest.hexdigest()


def load_compiled() -> ModuleType:
    """The compiled scanner; `NoCompiledScanner` says why there is none that may be used."""
    try:
        module = importlib.import_module("todo_ls.checklist.scan")
    except ImportError as error:  # e.g. built for another Python, a library missing
        raise NoCompiledScanner(f"the compiled scanner does not load: {error}") from error
    if not is_compiled(module):
        raise NoCompiledScanner(f"no compiled scanner for this Python beside {SOURCE}")
    try:
        with open(STAMP, encoding="utf-8") as stamp_file:
            stamp = stamp_file.read().strip()
    except OSError:
        stamp = ""
    if stamp != _source_hash():
        raise NoCompiledScanner(
            f"the compiled scanner {module.__file__} was built from another scan.py"
            f" (or {', '.join(COMPILED_FROM[1:])})"
            " (run scripts/setup-compiled.sh to rebuild it)"
        )
    return module


def _choose() -> ModuleType:
    try:
        return load_compiled()
    except NoCompiledScanner as error:
        module = sys.modules.get("todo_ls.checklist.scan")
        if module is not None and not is_compiled(module):
            return module  # only the source is installed: the usual case, nothing to say
        import logging

        logging.getLogger(__name__).warning("using the pure-Python scanner: %s", error)
        return load_pure()


SCANNER: ModuleType = _choose()
"""The scanner module `todo_ls.checklist.parse` uses."""
COMPILED = is_compiled(SCANNER)
