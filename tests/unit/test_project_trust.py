"""A cloned repository cannot steer todo-ls (issue 22, docs/security.md): its `todo-ls.toml`
may say what the checklist is, never where todo-ls connects, what it sends or where it writes,
and its `markdownFiles` stay inside the folder. The user's own settings, command line and
environment keep every one of those choices.

The entry points without an editor run as processes, as users and agents run them:
`todo-ls check`, `todo-ls hook` with Claude Code's input, `todo-ls supervise` and `todo-ls mcp`,
against the repository of `hostile_repo`, with a loopback listener where the project file
points `supervisor.url`.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

# The fake OpenCode 2.x server of the host tests stands in for the user's own server.
from support.fake_v2 import FakeV2Server
from support.hostile_repo import (
    FORBIDDEN_KEYS,
    INSIDE_ITEM,
    LINKED_ITEM,
    OUTSIDE_ITEM,
    HostileRepo,
    hostile_env,
    hostile_repo,
)

from todo_ls.checklist import StateRegistry
from todo_ls.commands.supervise import run_supervise
from todo_ls.globs import expand_inside
from todo_ls.hook.run import LOG_NAME
from todo_ls.hosts.base import HostError
from todo_ls.hosts.http import HostHttp
from todo_ls.settings import project_file
from todo_ls.settings.model import Settings, load_settings
from todo_ls.store import DB_NAME, Store
from todo_ls.workspace import Folder, WorkspaceIndex

pytestmark = pytest.mark.timeout(60)

TODO_LS = [sys.executable, "-m", "todo_ls"]


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[HostileRepo]:
    with hostile_repo(tmp_path) as found:
        yield found


@pytest.fixture
def state(tmp_path: Path) -> Path:
    """The user's own state folder (from the environment)."""
    return tmp_path / "user-state"


@pytest.fixture
def env(state: Path) -> dict[str, str]:
    return hostile_env(state)


def assert_each_key_named(text: str) -> None:
    for key in FORBIDDEN_KEYS:
        assert f"ignoring {key}: " in text, key


def assert_outside_entries_named(text: str) -> None:
    assert "ignoring markdownFiles entry '../notes.md': it is outside the folder" in text
    assert "ignoring link.md (markdownFiles entry 'link.md')" in text
    assert "ignoring docs/ext (markdownFiles entry 'docs/**/*.md')" in text


# --- the reader and the expansion ------------------------------------------------------------


def test_the_reader_drops_each_forbidden_key_with_one_line_naming_it(repo: HostileRepo) -> None:
    found = project_file.read(repo.root)
    assert found.settings["supervisor"] == {"settleMs": 0}  # a timing: the file's to set
    assert "stateDir" not in found.settings and "state_dir" not in found.settings
    assert found.settings["markdownFiles"][0] == "PLAN.md"  # what the checklist is: kept
    prefix = f"{repo.project_file}: "
    assert all(line.startswith(prefix) and "\n" not in line for line in found.ignored)
    named = [line[len(prefix) :].split(": ")[0] for line in found.ignored]
    assert named == [f"ignoring {key}" for key in FORBIDDEN_KEYS]


def test_a_wrapping_table_hides_nothing(tmp_path: Path) -> None:
    (tmp_path / ".todo-ls.toml").write_text(
        "[todoLs]\nstateDir = '/x'\n[todoLs.supervisor]\nurl = 'http://127.0.0.1:1'\n",
        encoding="utf-8",
    )
    found = project_file.read(tmp_path)
    assert found.settings == {"supervisor": {}}
    assert [line.split(": ")[1] for line in found.ignored] == [
        "ignoring todoLs.supervisor.url",
        "ignoring todoLs.stateDir",
    ]


def test_every_setting_that_picks_a_place_or_a_secret_is_user_only() -> None:
    """A new setting naming a URL, host, variable, folder or program is not left open to the
    project file by accident: this fails until it joins `project_file.USER_ONLY`."""
    words = ("url", "host", "env", "dir", "path", "command", "port")
    leaves: dict[tuple[str, ...], tuple[str, ...]] = {}  # field names -> aliases
    for name, info in Settings.model_fields.items():
        sub = info.annotation
        if isinstance(sub, type) and hasattr(sub, "model_fields"):
            for inner, inner_info in sub.model_fields.items():
                leaves[(name, inner)] = (info.alias or name, inner_info.alias or inner)
        else:
            leaves[(name,)] = (info.alias or name,)
    sensitive = {leaf for leaf in leaves if any(w in leaf[-1] for w in words)}
    assert ("supervisor", "url") in sensitive and ("state_dir",) in sensitive
    assert sensitive <= set(project_file.USER_ONLY)
    assert {leaves[leaf] for leaf in sensitive} <= set(project_file.USER_ONLY)


def test_the_editor_settings_still_set_every_forbidden_key(repo: HostileRepo) -> None:
    found = project_file.read(repo.root)
    editor = {
        "stateDir": "/home/me/state",
        "supervisor": {"url": "http://127.0.0.1:4096", "host": "opencode-v2", "passwordEnv": "PW"},
    }
    settings = load_settings(project_file.layered(found.settings, editor)).settings
    assert settings.state_dir == "/home/me/state"
    supervisor = settings.supervisor
    assert (supervisor.url, supervisor.host, supervisor.password_env) == (
        "http://127.0.0.1:4096",
        "opencode-v2",
        "PW",
    )
    assert supervisor.settle_ms == 0  # the project file's timing still applies


def test_expansion_keeps_a_project_files_patterns_inside_the_folder(repo: HostileRepo) -> None:
    patterns = project_file.read(repo.root).settings["markdownFiles"]
    found = expand_inside(repo.root, patterns)
    assert found.paths == [repo.root / "PLAN.md"]
    text = "\n".join(found.outside)
    assert_outside_entries_named(text)
    assert f"ignoring markdownFiles entry {str(repo.parent / 'notes.md')!r}" in text
    assert "ignoring markdownFiles entry '../*.md'" in text
    assert "ignoring docs/ext/deep.md (markdownFiles entry 'docs/ext/deep.md')" in text


def test_expansion_inside_keeps_links_within_the_folder_and_missing_files(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "PLAN.md").write_text("- [ ] a\n", encoding="utf-8")
    (tmp_path / "docs" / "plan.md").symlink_to(tmp_path / "PLAN.md")
    found = expand_inside(tmp_path, ["docs/*.md", "later.md", "docs/../PLAN.md"])
    assert found.paths == [
        tmp_path / "docs" / "plan.md",
        tmp_path / "later.md",
        tmp_path / "PLAN.md",
    ]
    assert found.outside == []


def test_the_index_confines_only_the_folders_whose_patterns_are_the_project_files(
    repo: HostileRepo,
) -> None:
    warned: list[str] = []
    index = WorkspaceIndex(warn=warned.append)
    folder = Folder.from_path(repo.root)
    index.set_folders([folder])
    patterns = ["PLAN.md", "../notes.md", "link.md"]
    index.configure(
        patterns, StateRegistry.default(), {folder.key: patterns}, confined={folder.key}
    )
    assert index.subscribed(folder) == [repo.root / "PLAN.md"]
    assert index.patterns(folder) == ["PLAN.md", "link.md"]  # the watchers: nothing outside
    assert [i.text for i in index.open_items(folder)] == [INSIDE_ITEM]
    assert len(warned) == 2 and all(
        w.startswith(f"todo-ls: {repo.root}: ignoring ") for w in warned
    )
    index.invalidate_globs()  # expanded again (files changed, a poll): said once only
    assert index.subscribed(folder) == [repo.root / "PLAN.md"] and len(warned) == 2
    # The same patterns from the user's settings: any file.
    index.configure(patterns, StateRegistry.default(), {folder.key: patterns})
    assert {i.text for i in index.open_items(folder)} == {INSIDE_ITEM, OUTSIDE_ITEM}


def test_a_url_with_a_password_in_it_is_refused_without_repeating_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = "http://opencode:hunter2-secret@127.0.0.1:4096"
    loaded = load_settings({"supervisor": {"url": url}})
    assert loaded.settings.supervisor.url is None
    (warning,) = loaded.warnings
    assert "todoLs.supervisor.url" in warning and "hunter2" not in warning
    assert run_supervise(url, str(tmp_path)) == 2
    err = capsys.readouterr().err
    assert "--url must not hold a user name or password" in err and "hunter2" not in err


# --- todo-ls check ---------------------------------------------------------------------------


def test_check_lists_only_the_repositorys_own_items(repo: HostileRepo, env: dict[str, str]) -> None:
    done = subprocess.run(
        [*TODO_LS, "check"], cwd=repo.root, env=env, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 1, done.stderr  # the inside item is open
    assert INSIDE_ITEM in done.stdout
    assert repo.leaked(done.stdout + done.stderr) == []
    assert_each_key_named(done.stderr)
    assert_outside_entries_named(done.stderr)


def test_check_of_a_path_the_user_names_may_be_outside(
    repo: HostileRepo, env: dict[str, str]
) -> None:
    done = subprocess.run(
        [*TODO_LS, "check", "../notes.md"],
        cwd=repo.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 1 and OUTSIDE_ITEM in done.stdout


# --- todo-ls hook (Claude Code) --------------------------------------------------------------


def claude_stop(repo: HostileRepo) -> bytes:
    transcript = repo.root / "transcript.jsonl"
    transcript.write_text('{"type": "assistant"}\n', encoding="utf-8")
    data = {
        "session_id": "s1",
        "cwd": str(repo.root),
        "hook_event_name": "Stop",
        "transcript_path": str(transcript),
        "prompt_id": "p1",
        "stop_hook_active": False,
        "last_assistant_message": "done",
    }
    return json.dumps(data).encode()


def run_hook(repo: HostileRepo, env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        [*TODO_LS, "hook", "--host", "claude-code"],
        input=claude_stop(repo),
        env=env,
        capture_output=True,
        timeout=30,
    )
    assert done.returncode == 0 and done.stderr == b""
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def test_the_stop_hook_nudges_with_inside_items_and_writes_only_the_users_state(
    repo: HostileRepo, env: dict[str, str], state: Path
) -> None:
    answer = run_hook(repo, env)
    assert answer["decision"] == "block"
    assert INSIDE_ITEM in answer["reason"] and repo.leaked(answer["reason"]) == []
    assert not repo.attacker_state.exists()
    assert (state / DB_NAME).is_file()  # TODO_LS_STATE_DIR: the environment still decides
    log = (state / LOG_NAME).read_text(encoding="utf-8")
    assert_each_key_named(log)
    assert_outside_entries_named(log)
    assert repo.leaked(log) == []
    assert repo.listener.requests == []


def test_a_file_the_user_subscribed_counts_in_the_hook_wherever_it_is(
    repo: HostileRepo, env: dict[str, str], state: Path
) -> None:
    store = Store.open(state)
    store.subscribe(str(repo.root), str(repo.parent / "notes.md"))  # the user's own command
    store.close()
    reason = run_hook(repo, env)["reason"]
    assert INSIDE_ITEM in reason and OUTSIDE_ITEM in reason and LINKED_ITEM not in reason


# --- todo-ls supervise -----------------------------------------------------------------------


def supervise_until_first_line(
    repo: HostileRepo, env: dict[str, str], *args: str
) -> tuple[str, str]:
    """Run `todo-ls supervise` in the repository until it prints its first line (the outcome
    of its first connection attempt), then stop it as a user does; its stdout and stderr."""
    proc = subprocess.Popen(
        [*TODO_LS, "supervise", "--directory", str(repo.root), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    return first + out, err


def test_supervise_connects_where_the_user_says_not_where_the_repository_says(
    repo: HostileRepo, env: dict[str, str], state: Path
) -> None:
    # No --url: the project file's URL must not be used; discovery looks for the user's own
    # OpenCode (none for this folder), so the first line says it is not connected.
    out, err = supervise_until_first_line(repo, env)
    assert out.startswith("not connected: ")
    assert repo.listener.requests == []
    assert_each_key_named(err)
    assert not repo.attacker_state.exists() and (state / DB_NAME).is_file()
    assert repo.leaked(out + err) == []


def test_supervise_command_line_still_sets_url_password_variable_and_state_folder(
    repo: HostileRepo, env: dict[str, str], tmp_path: Path
) -> None:
    chosen = tmp_path / "chosen-state"
    settings = json.dumps({"stateDir": str(chosen), "supervisor": {"passwordEnv": "MY_PW"}})
    out, _ = supervise_until_first_line(
        repo,
        {**env, "MY_PW": "the-users-password"},
        "--url",
        repo.listener.url,
        "--settings",
        settings,
    )
    assert out.startswith("not connected: ")  # the listener is no OpenCode
    assert repo.listener.requests, "the user's --url was not used"
    # Each host line's probe asks with its own user name, and the password of the user's variable.
    passwords = {
        base64.b64decode((r.authorization or "")[len("Basic ") :]).decode().split(":", 1)[1]
        for r in repo.listener.requests
    }
    assert passwords == {"the-users-password"}
    assert repo.listener.secrets_seen() == []  # none of the other secrets went there
    assert (chosen / DB_NAME).is_file()


# --- todo-ls mcp -----------------------------------------------------------------------------


def mcp_exchange(repo: HostileRepo, env: dict[str, str]) -> tuple[list[dict[str, Any]], str]:
    """Initialize `todo-ls mcp` in the repository and call `todo_read`; answers and stderr."""
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {}},
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "todo_read", "arguments": {"todoLsSessionID": "ses_a"}},
        },
    ]
    done = subprocess.run(
        [*TODO_LS, "mcp", "--directory", str(repo.root)],
        input="".join(json.dumps(line) + "\n" for line in lines),
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def test_mcp_todo_read_shows_only_inside_items(
    repo: HostileRepo, env: dict[str, str], state: Path
) -> None:
    answers, err = mcp_exchange(repo, env)
    text = answers[1]["result"]["content"][0]["text"]
    assert f"PLAN.md:3 — {INSIDE_ITEM}" in text
    assert repo.leaked(text + err) == []
    assert_each_key_named(err)
    assert_outside_entries_named(err)
    assert not repo.attacker_state.exists() and (state / DB_NAME).is_file()
    assert repo.listener.requests == []


def test_no_entry_point_writes_where_the_repository_points(
    repo: HostileRepo, env: dict[str, str]
) -> None:
    """All four in a row: neither the folder the project file named nor the parent folder
    holding the outside files got anything."""
    subprocess.run([*TODO_LS, "check"], cwd=repo.root, env=env, capture_output=True, timeout=30)
    run_hook(repo, env)
    mcp_exchange(repo, env)
    supervise_until_first_line(repo, env)
    assert not repo.attacker_state.exists()
    assert set(os.listdir(repo.parent)) == {"repo", "notes.md", "elsewhere"}


async def test_a_redirect_does_not_take_the_password_elsewhere() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(302, headers={"location": "http://127.0.0.2:9/elsewhere"})

    http = HostHttp(
        "http://127.0.0.1:4096", password="pw-secret-5e", transport=httpx.MockTransport(handler)
    )
    with pytest.raises(HostError) as raised:
        await http.get_json("/global/health")
    await http.aclose()
    assert seen == ["http://127.0.0.1:4096/global/health"]
    assert "pw-secret-5e" not in str(raised.value)


async def _lines_until(stream: asyncio.StreamReader, prefix: str) -> list[str]:
    lines: list[str] = []
    while not lines or not lines[-1].startswith(prefix):
        line = await asyncio.wait_for(stream.readline(), 20)
        assert line, f"supervise ended before printing {prefix!r}: {lines}"
        lines.append(line.decode())
    return lines


@pytest.mark.parametrize("user_files", [None, ["PLAN.md", "../notes.md"]])
async def test_supervise_counts_and_nudges_with_the_folders_own_items(
    repo: HostileRepo, env: dict[str, str], user_files: list[str] | None
) -> None:
    """A session of the folder on the user's server (a 2.x fake): with the project file's
    `markdownFiles` it has one open item, not the outside ones; with the user's own
    `--settings` naming the outside file too, that one counts."""
    async with FakeV2Server(password="the-fakes-password") as fake:
        fake.add_session("ses_trust", str(repo.root), title="agent")
        fake.set_active("ses_trust")
        settings: dict[str, Any] = {"supervisor": {"passwordEnv": "USERS_PW"}}
        if user_files is not None:
            settings["markdownFiles"] = user_files
        proc = await asyncio.create_subprocess_exec(
            *TODO_LS,
            "supervise",
            "--directory",
            str(repo.root),
            "--url",
            fake.url,
            "--settings",
            json.dumps(settings),
            env={**env, "USERS_PW": fake.password},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            assert proc.stdout is not None
            lines = await _lines_until(proc.stdout, "ses_trust ")
            expected = 1 if user_files is None else 2
            assert lines[-1].rstrip().endswith(f" · {expected} open"), lines
            await fake.run_turn("ses_trust")
            await _lines_until(proc.stdout, "nudge")
            [(_, request)] = fake.synthetic_requests
        finally:
            proc.send_signal(signal.SIGINT)
            _, err = await asyncio.wait_for(proc.communicate(), 20)
    assert INSIDE_ITEM in request["text"]
    if user_files is None:
        assert repo.leaked(request["text"] + "".join(lines)) == []
        assert_each_key_named(err.decode())
    else:
        assert OUTSIDE_ITEM in request["text"]  # the user's choice
    assert repo.listener.requests == []
