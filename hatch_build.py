"""hatchling build hook: the opt-in compiled wheel (docs/packaging.md).

With `TODO_LS_COMPILED=1` in the environment, a wheel build compiles the checklist scanner with
mypyc (scripts/compile_engine.py) and ships the compiled module beside scan.py, as a platform
wheel for the Python that builds it; only then does the build need mypy and setuptools. Without
it the hook does nothing: the wheel is pure Python (py3-none-any) and nothing more is installed
to build it. Both wheels hold scan.py, the engine a missing or stale compiled module falls back
to.
"""

from __future__ import annotations

import os
import runpy
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

ENABLE = "TODO_LS_COMPILED"


def _enabled() -> bool:
    return os.environ.get(ENABLE, "") == "1"


class CompiledEngineHook(BuildHookInterface):  # type: ignore[type-arg]
    """Adds the compiled scanner to the wheel when `TODO_LS_COMPILED=1`."""

    def dependencies(self) -> list[str]:
        return ["mypy>=1.10", "setuptools>=65"] if _enabled() else []

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if not _enabled() or self.target_name != "wheel" or version == "editable":
            return  # an editable install uses what scripts/setup-compiled.sh builds in place
        root = Path(self.root)
        compile_engine = runpy.run_path(str(root / "scripts" / "compile_engine.py"))
        for path in compile_engine["compile_in_place"](root):
            # The built files are git-ignored, which hatchling leaves out unless told.
            build_data["force_include"][str(root / path)] = path.as_posix()
        build_data["pure_python"] = False
        build_data["infer_tag"] = True  # e.g. cp311-cp311-linux_x86_64
