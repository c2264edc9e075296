"""`todo-ls install pi`: the extension written where pi loads it, naming this todo-ls; the
install says pi loads it without asking; a second install changes nothing; `--dry-run` writes
nothing; `--uninstall` leaves the folders as they were and never removes a file that is not
todo-ls's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_install_new_hook_hosts import options, printed

from todo_ls.install import Options
from todo_ls.install import pi as install_pi

COMMAND = "/opt/tools/todo-ls"  # what test_install_new_hook_hosts.options installs
EXTENSION = Path(".pi") / "extensions" / "todo-ls.ts"
SHIPPED = Path(__file__).resolve().parents[2] / "editors" / "pi" / "todo-ls.ts"


def run(tmp_path: Path, **extra: Any) -> tuple[int, Options]:
    opts = options(tmp_path, **extra)
    return install_pi.install(opts), opts


def command_of(text: str) -> list[str]:
    """The argv the extension runs (its COMMAND line)."""
    (line,) = [x for x in text.splitlines() if x.startswith(install_pi.COMMAND_LINE)]
    found: list[str] = json.loads(line.removeprefix(install_pi.COMMAND_LINE).rstrip(";"))
    return found


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under `folder`."""
    return {
        str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(folder.rglob("*"))
    }


def test_writes_the_extension_with_this_todo_ls_and_names_the_missing_trust_step(
    tmp_path: Path,
) -> None:
    code, opts = run(tmp_path)
    assert code == 0
    written = (tmp_path / "project" / EXTENSION).read_text(encoding="utf-8")
    assert command_of(written) == [COMMAND, "hook", "--host", "pi"]
    shipped = SHIPPED.read_text(encoding="utf-8")
    assert command_of(shipped) == ["todo-ls", "hook", "--host", "pi"]
    # Only the command line differs from what todo-ls ships.
    changed = [
        (a, b) for a, b in zip(shipped.splitlines(), written.splitlines(), strict=True) if a != b
    ]
    assert len(changed) == 1, changed
    said = printed(opts)
    assert "without asking" in said and "--scope user" in said, said


def test_a_second_install_changes_nothing(tmp_path: Path) -> None:
    run(tmp_path)
    before = tree(tmp_path / "project")
    code, opts = run(tmp_path)
    assert code == 0 and "already installed" in printed(opts)
    assert tree(tmp_path / "project") == before


def test_dry_run_shows_the_file_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    code, opts = run(tmp_path, dry_run=True)
    assert code == 0
    said = printed(opts)
    assert "+const COMMAND: string[] = " in said and "dry run" in said
    assert tree(tmp_path / "project") == {}
    assert not (tmp_path / "state" / "install").exists()


def test_uninstall_leaves_a_project_without_pi_folders_as_it_was(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "PLAN.md").write_text("- [ ] a\n", encoding="utf-8")
    before = tree(project)
    run(tmp_path)
    assert (project / EXTENSION).is_file()

    code, opts = run(tmp_path, uninstall=True)

    assert code == 0 and "removed" in printed(opts)
    assert tree(project) == before  # .pi/extensions/ and .pi/ went with the file
    assert list((tmp_path / "state" / "install").glob("*")) == []


def test_uninstall_keeps_foreign_files_and_folders_that_were_there(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".pi" / "extensions").mkdir(parents=True)
    (project / ".pi" / "settings.json").write_text('{"theme": "dark"}\n', encoding="utf-8")
    (project / ".pi" / "extensions" / "mine.ts").write_text("export default () => {}\n", "utf-8")
    before = tree(project)
    run(tmp_path)
    run(tmp_path, uninstall=True)
    assert tree(project) == before


def test_a_foreign_file_of_that_name_is_refused_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "project" / EXTENSION
    path.parent.mkdir(parents=True)
    path.write_text("export default function mine() {}\n", encoding="utf-8")
    code, opts = run(tmp_path)
    assert code == 1 and "not todo-ls's extension" in printed(opts)
    code, opts = run(tmp_path, uninstall=True)
    assert code == 0 and "not in" in printed(opts)
    assert path.read_text(encoding="utf-8") == "export default function mine() {}\n"


def test_an_extension_changed_since_the_install_is_not_deleted(tmp_path: Path) -> None:
    run(tmp_path)
    path = tmp_path / "project" / EXTENSION
    edited = path.read_text(encoding="utf-8").replace("10_000", "20_000")
    path.write_text(edited, encoding="utf-8")
    code, opts = run(tmp_path, uninstall=True)
    assert code == 1 and "changed since" in printed(opts)
    assert path.read_text(encoding="utf-8") == edited


def test_a_moved_todo_ls_replaces_its_older_extension(tmp_path: Path) -> None:
    path = tmp_path / "project" / EXTENSION
    path.parent.mkdir(parents=True)
    older = install_pi.render(SHIPPED.read_text(encoding="utf-8"), "/old/place/todo-ls")
    path.write_text(older, encoding="utf-8")
    code, opts = run(tmp_path)
    assert code == 0 and "replaced" in printed(opts)
    assert command_of(path.read_text(encoding="utf-8"))[0] == COMMAND


@pytest.mark.parametrize("agent_dir", [None, "custom-agent"])
def test_user_scope_writes_to_pis_agent_folder(tmp_path: Path, agent_dir: str | None) -> None:
    env = {"HOME": str(tmp_path / "home"), "TODO_LS_STATE_DIR": str(tmp_path / "state")}
    if agent_dir:
        env["PI_CODING_AGENT_DIR"] = str(tmp_path / agent_dir)
    (tmp_path / "home").mkdir()
    code, _ = run(tmp_path, scope="user", env=env)
    assert code == 0
    folder = tmp_path / agent_dir if agent_dir else tmp_path / "home" / ".pi" / "agent"
    assert (folder / "extensions" / "todo-ls.ts").is_file()
    assert not (tmp_path / "project").exists()
    run(tmp_path, scope="user", env=env, uninstall=True)
    assert not (folder / "extensions").exists()
    if not agent_dir:  # ~/.pi/agent and ~/.pi were made by the install, and went with it
        assert not (tmp_path / "home" / ".pi").exists()
