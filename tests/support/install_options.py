"""The options `todo-ls install` tests pass: a project and a home in `tmp_path`, the state
folder beside them, and what the install prints kept for the test to read."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from todo_ls.install import Options

COMMAND = "/opt/tools/todo-ls"


def options(tmp_path: Path, **extra: Any) -> Options:
    env = {"HOME": str(tmp_path / "home"), "TODO_LS_STATE_DIR": str(tmp_path / "state")}
    return Options(
        scope=extra.pop("scope", "project"),
        directory=tmp_path / "project",
        env=extra.pop("env", env),
        out=io.StringIO(),
        command=extra.pop("command", COMMAND),
        **extra,
    )


def printed(opts: Options) -> str:
    assert isinstance(opts.out, io.StringIO)
    return opts.out.getvalue()
