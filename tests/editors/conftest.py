"""The editor tests with an agent running reuse the other suites' doubles (the scripted fake
models, the real OpenCode 1.x launcher, the real Claude Code harness) by importing them from
tests/hosts and tests/agents rather than copying them. The self-contained .vsix is built here
once per session for every VS Code test module that installs it."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent


@pytest.fixture(scope="session")
def bundled_vsix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The linux-x64 .vsix as the release builds it (scripts/build-vsix.sh), once per session;
    its wheel downloads are cached, so a rebuild costs the build and packaging only. Without
    `npm run check`: test_extension_typechecks_lints_and_passes_its_unit_tests runs it."""
    out = tmp_path_factory.mktemp("vsix")
    started = time.monotonic()
    build = subprocess.run(
        [str(REPO / "scripts" / "build-vsix.sh"), "--no-check", "--out", str(out), "linux-x64"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-4000:]
    print(f"scripts/build-vsix.sh linux-x64: {time.monotonic() - started:.1f} s")
    [vsix] = out.glob("todo-ls-linux-x64-*.vsix")
    return vsix
