"""A project with PLAN.md subscribed and a state folder of its own, for tests that run the
hook in-process (`todo_ls.hook.run.main`) as one host's session."""

from __future__ import annotations

from pathlib import Path

from todo_ls.store import Store

PLAN = "# Plan\n\n- [ ] write the parser\n- [x] tokens\n- [ ] ship it\n"


def project_folder(tmp_path: Path, plan: str, transcript: bool = False) -> Path:
    """`tmp_path/project` holding `plan` as PLAN.md, subscribed by its `todo-ls.toml`, and
    with `transcript` a one-record `transcript.jsonl`, for tests that run the hook as a
    process."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "PLAN.md").write_text(plan, encoding="utf-8")
    (folder / "todo-ls.toml").write_text('markdownFiles = ["PLAN.md"]\n', encoding="utf-8")
    if transcript:
        (folder / "transcript.jsonl").write_text("{}\n", encoding="utf-8")
    return folder


class HookProject:
    """The project folder, its `todo-ls.toml` (with an optional `[supervisor]` body) and the
    environment the hook runs with."""

    def __init__(self, tmp_path: Path, host: str, supervisor: str = "") -> None:
        self.host = host
        self.project = tmp_path / "project"
        self.project.mkdir()
        (self.project / "PLAN.md").write_text(PLAN, encoding="utf-8")
        toml = 'markdownFiles = ["PLAN.md"]\n' + (
            f"[supervisor]\n{supervisor}\n" * bool(supervisor)
        )
        (self.project / "todo-ls.toml").write_text(toml, encoding="utf-8")
        self.home = tmp_path / "home"
        self.env = {"TODO_LS_STATE_DIR": str(tmp_path / "state"), "HOME": str(self.home)}

    def store(self) -> Store:
        return Store.open(Path(self.env["TODO_LS_STATE_DIR"]))
