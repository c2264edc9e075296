"""The differential fuzz test of the editor path (editor_fuzz.py): seeded random edits over
stdio, after every step compared with markdown-it-py on the client's text.

Each kind of client (utf-8 and utf-16 positions, pulled and pushed diagnostics) gets
`TODO_LS_FUZZ_STEPS` steps (default 150: the four runs take well under a minute on two busy
cores) drawn from seed `TODO_LS_FUZZ_SEED` (default 19; each kind of client its own sequence).
A longer run: `TODO_LS_FUZZ_STEPS=5000 TODO_LS_FUZZ_SEED=$RANDOM pytest
tests/lsp/test_editor_fuzz.py`. A disagreement fails with the seed and a shrunk repro.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from support.editor_fuzz import fuzz
from support.lsp_harness import TIMEOUT, start_editor

CLIENTS = ["neovim", "vscode", "push-only", "neovim-push"]  # utf-8/16 × pull/push


def _setting(name: str, default: int) -> int:
    raw = os.environ.get(name, "")
    try:
        return int(raw) if raw else default
    except ValueError:
        pytest.fail(f"{name} must be an integer, not {raw!r}", pytrace=False)


@pytest.mark.parametrize("caps", CLIENTS)
async def test_editor_path_agrees_with_markdown_it(caps: str, tmp_path: Path) -> None:
    steps = _setting("TODO_LS_FUZZ_STEPS", 150)
    seed = _setting("TODO_LS_FUZZ_SEED", 19)
    folder = tmp_path / "project"
    folder.mkdir()
    settings = {"markdownFiles": ["*.md"], "supervisor": {"enabled": False}}
    editor = await start_editor(folder, caps, settings, tmp_path / "state")
    try:
        await editor.wait_status(lambda s: True)
        editor.incremental = True  # applied edits come back as incremental changes
        assert await fuzz(editor, seed, steps) == steps
    finally:
        await asyncio.wait_for(editor.client.shutdown_session(), TIMEOUT)
        await editor.client.stop()
