"""Over the protocol, a repository's `todo-ls.toml` cannot steer the language server (issue 22,
docs/security.md): with no editor settings at all (Neovim has no workspace trust), the keys it
may not set are each named in one warning and ignored, its files outside the folder show
nowhere, and the listener where it points `supervisor.url` gets nothing; the same keys from the
editor's settings or `initializationOptions` still decide.

The repository and the listener are `hostile_repo`'s (tests/unit), shared with the tests of the
other entry points.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from support.fake_v2 import FakeV2Server
from support.hostile_repo import (
    FORBIDDEN_KEYS,
    INSIDE_ITEM,
    OUTSIDE_ITEM,
    SECRETS,
    HostileRepo,
    hostile_repo,
)
from support.lsp_harness import NO_INIT_OPTIONS, TIMEOUT, Editor, start_editor

from todo_ls.store import DB_NAME


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HostileRepo]:
    for name, value in SECRETS.items():  # the server's environment (start_editor copies it)
        monkeypatch.setenv(name, value)
    with hostile_repo(tmp_path) as found:
        yield found


@pytest_asyncio.fixture
async def started() -> AsyncIterator[list[Editor]]:
    editors: list[Editor] = []
    yield editors
    for editor in editors:
        await asyncio.wait_for(editor.client.shutdown_session(), TIMEOUT)
        await editor.client.stop()


def warnings(editor: Editor) -> str:
    return "\n".join(editor.take_messages(types.MessageType.Warning))


def _host_tried(status: Any) -> bool:
    """The supervisor made its first connection attempt (it failed or it connected)."""
    host = getattr(getattr(status, "supervisor", None), "host", None)
    return host is not None and (getattr(host, "error", None) or host.connected)


async def until(condition: Any) -> None:
    """Wait for `condition()` to hold: the server works in the background (at most TIMEOUT)."""

    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.05)

    await asyncio.wait_for(poll(), TIMEOUT)


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=vars))


async def test_the_project_file_alone_cannot_steer_the_server(
    repo: HostileRepo,
    caps: str,
    state_dir: Path,
    started: list[Editor],
) -> None:
    editor = await start_editor(repo.root, caps, None, state_dir, init_options=NO_INIT_OPTIONS)
    started.append(editor)
    status = await editor.wait_status(_host_tried)  # discovery ran: the project URL was not it
    assert [Path(f.uri).name for f in status.files] == ["PLAN.md"]
    assert repo.listener.requests == []

    everything = _plain(await editor.command("todoLs.list", {}))
    texts = [item.get("text") for item in everything["items"]]
    assert INSIDE_ITEM in texts
    assert repo.leaked(json.dumps(everything)) == []
    # Opened in the editor, the outside file (directly or through the link) is no todo list.
    for name in ("../notes.md", "link.md", "docs/ext/deep.md"):
        assert await editor.pull(editor.open(name)) == [], name
    assert len(await editor.pull(editor.open("PLAN.md"))) == 1

    shown = warnings(editor)
    for key in FORBIDDEN_KEYS:
        assert f"{repo.project_file}: ignoring {key}: " in shown, key
    assert f"todo-ls: {repo.root}: ignoring markdownFiles entry '../notes.md'" in shown
    assert "ignoring link.md (markdownFiles entry 'link.md')" in shown
    assert repo.leaked(shown) == []
    assert not repo.attacker_state.exists() and (state_dir / DB_NAME).is_file()
    assert repo.listener.requests == []
    assert OUTSIDE_ITEM not in json.dumps(_plain(editor.statuses))


@pytest.mark.parametrize("source", ["workspace/configuration", "initializationOptions"])
async def test_the_editors_settings_still_choose_every_one_of_those_keys(
    source: str,
    repo: HostileRepo,
    caps: str,
    state_dir: Path,
    tmp_path: Path,
    started: list[Editor],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("USERS_PW", "the-users-own-password")
    chosen = tmp_path / "chosen-state"
    user = {
        "markdownFiles": ["PLAN.md", "../notes.md"],  # the user may name any file
        "stateDir": str(chosen),
        "supervisor": {"url": repo.listener.url, "host": "opencode-v1", "passwordEnv": "USERS_PW"},
    }
    if source == "workspace/configuration":
        editor = await start_editor(repo.root, caps, user, state_dir)
    else:
        editor = await start_editor(repo.root, caps, None, state_dir, {"todoLs": user})
    started.append(editor)
    status = await editor.wait_status(lambda s: len(s.files) == 2)
    assert sorted(Path(f.uri).name for f in status.files) == ["PLAN.md", "notes.md"]
    await until(lambda: repo.listener.requests)  # the user's supervisor.url
    # opencode-v1 (the user's host): only its probe; the user's variable's password only.
    token = base64.b64encode(b"opencode:the-users-own-password").decode()
    assert {(r.path, r.authorization) for r in repo.listener.requests} == {
        ("/global/health", f"Basic {token}")
    }
    assert repo.listener.secrets_seen() == []
    assert (chosen / DB_NAME).is_file() and not repo.attacker_state.exists()
    # The password went to the user's server only: not into the status, a message or the log.
    await editor.wait_status(lambda s: getattr(s.supervisor.host, "error", None))
    shown = json.dumps(_plain(editor.statuses))
    shown += "".join([*editor.take_messages(), *(m.message for m in editor.client.log_messages)])
    assert repo.listener.url in shown  # the status and the log were seen
    assert "the-users-own-password" not in shown and token not in shown
    assert repo.leaked(shown) == []


async def test_the_nudge_lists_only_the_folders_own_items(
    repo: HostileRepo,
    caps: str,
    state_dir: Path,
    started: list[Editor],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The user's editor picks the server (a 2.x fake) and its password variable; the
    project file's `markdownFiles` make the checklist, inside the folder only."""
    async with FakeV2Server(password="the-fakes-password") as fake:
        monkeypatch.setenv("USERS_PW", fake.password)
        fake.add_session("ses_trust", str(repo.root), title="agent")
        fake.set_active("ses_trust")
        user = {"supervisor": {"url": fake.url, "passwordEnv": "USERS_PW"}}
        editor = await start_editor(repo.root, caps, user, state_dir)
        started.append(editor)
        await editor.wait_status(lambda s: any(x.id == "ses_trust" for x in s.supervisor.sessions))
        await fake.run_turn("ses_trust")  # the turn ends with an item open: a nudge is due
        await until(lambda: fake.synthetic_requests)  # settleMs = 0, from the project file
        [(_, request)] = fake.synthetic_requests
        assert INSIDE_ITEM in request["text"]
        assert repo.leaked(json.dumps(request)) == []
        # The 2.x host shows no toast: the editor tells the user about the nudge.
        await until(lambda: any(m.type == types.MessageType.Info for m in editor.client.messages))
        (told,) = editor.take_messages(types.MessageType.Info)
        assert told.startswith("todo-ls: agent: Idle nudge #1") and "1 of 2 todos left" in told
    assert repo.listener.requests == []
    # What the project file may not set or subscribe was refused aloud (as tested above).
    refused = editor.take_messages(types.MessageType.Warning)
    assert refused and all(": ignoring " in w for w in refused), refused
    assert f"{repo.project_file}: ignoring todoLs.supervisor.url: " in "\n".join(refused)
