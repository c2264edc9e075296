"""`todo-ls install mistral-vibe | openhands | kimi-code`: where each writes and in which
shape (Vibe's and Kimi Code's `[[hooks]]` tables in TOML, OpenHands' JSON), that the user's
own content stays byte for byte, that a second install changes nothing, that `--dry-run`
writes nothing, that `--uninstall` gives the file back byte for byte, and the step each
prints next (Vibe's trusted folder; Kimi Code's user-only hooks)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from support.install_options import COMMAND, options, printed

from todo_ls.install import Options, kimi_code, mistral_vibe, openhands

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

MODULES = {"mistral-vibe": mistral_vibe, "openhands": openhands, "kimi-code": kimi_code}
# The user's own config, as they wrote it: comments, their own hook, odd spacing, CRLF.
VIBE_OWN = (
    '# my hooks\r\n[[hooks]]\r\nname = "lint"\r\ntype = "post_tool"\r\n'
    'command = "ruff check"   # fast\r\nmatch = "file_system.*"\r\n'
)
KIMI_OWN = (
    'default_model = "kimi"\n\n[providers.kimi]\ntype = "kimi"\napi_key = "sk-secret"\n\n'
    '[[hooks]]\nevent = "Stop"\ncommand = "notify-send done"\n'
)
OPENHANDS_OWN = (
    json.dumps(
        {"hooks": {"Stop": [{"matcher": "*", "hooks": [{"type": "command", "command": "x"}]}]}},
        indent=4,
    )
    + "\n"
)
OWN = {"mistral-vibe": VIBE_OWN, "openhands": OPENHANDS_OWN, "kimi-code": KIMI_OWN}


def target_file(tmp_path: Path, target: str, scope: str) -> Path:
    if target == "kimi-code":
        return tmp_path / "home" / ".kimi-code" / "config.toml"  # user scope only
    folder = {"mistral-vibe": ".vibe/hooks.toml", "openhands": ".openhands/hooks.json"}[target]
    base = tmp_path / "project" if scope == "project" else tmp_path / "home"
    return base / folder


def hooks_of(target: str, text: str) -> list[tuple[str, str]]:
    """(event, command) of every hook in the file, read as the host reads it."""
    if target == "openhands":
        data = json.loads(text)
        return [
            (event, h["command"])
            for event, groups in data["hooks"].items()
            for g in groups
            for h in g["hooks"]
        ]
    key = "type" if target == "mistral-vibe" else "event"
    return [(t[key], t["command"]) for t in tomllib.loads(text)["hooks"]]


def run(opts: Options, target: str) -> int:
    result: int = MODULES[target].install(opts)
    return result


@pytest.mark.parametrize("scope", ["project", "user"])
@pytest.mark.parametrize("target", sorted(MODULES))
def test_install_keeps_the_users_content_and_uninstall_restores_bytes(
    tmp_path: Path, target: str, scope: str
) -> None:
    path = target_file(tmp_path, target, scope)
    path.parent.mkdir(parents=True)
    path.write_bytes(OWN[target].encode())
    assert run(options(tmp_path, scope=scope), target) == 0
    text = path.read_bytes().decode()
    ours = f"{COMMAND} hook --host {target}"
    found = hooks_of(target, text)
    stop = {"mistral-vibe": "post_agent", "openhands": "Stop", "kimi-code": "Stop"}[target]
    assert (stop, ours) in found
    assert len([h for h in found if h[1] != ours]) == 1  # the user's own hook is still there
    if target != "openhands":
        assert text.startswith(OWN[target])  # every byte of theirs, CRLF and comments
    again = options(tmp_path, scope=scope)
    assert run(again, target) == 0 and "nothing to change" in printed(again)
    assert path.read_bytes().decode() == text
    undo = options(tmp_path, scope=scope, uninstall=True)
    assert run(undo, target) == 0
    assert path.read_bytes() == OWN[target].encode()


@pytest.mark.parametrize("target", sorted(MODULES))
def test_dry_run_writes_nothing_and_uninstall_deletes_a_created_file(
    tmp_path: Path, target: str
) -> None:
    path = target_file(tmp_path, target, "project")
    dry = options(tmp_path, dry_run=True)
    assert run(dry, target) == 0
    assert "would change" in printed(dry) and not path.exists()
    assert run(options(tmp_path), target) == 0 and path.exists()
    assert run(options(tmp_path, uninstall=True), target) == 0
    assert not path.exists()


@pytest.mark.parametrize("target", ["mistral-vibe", "kimi-code"])
def test_uninstall_after_the_user_edited_keeps_their_edit(tmp_path: Path, target: str) -> None:
    path = target_file(tmp_path, target, "project")
    path.parent.mkdir(parents=True)
    path.write_bytes(OWN[target].encode())
    assert run(options(tmp_path), target) == 0
    path.write_bytes(path.read_bytes() + b"# later\n")
    assert run(options(tmp_path, uninstall=True), target) == 0
    assert path.read_bytes() == OWN[target].encode() + b"# later\n"


def test_a_moved_todo_ls_replaces_its_block_in_place(tmp_path: Path) -> None:
    path = target_file(tmp_path, "kimi-code", "user")
    path.parent.mkdir(parents=True)
    path.write_text(KIMI_OWN, encoding="utf-8")
    assert run(options(tmp_path), "kimi-code") == 0
    moved = Options(
        scope="user",
        directory=tmp_path / "project",
        env={"HOME": str(tmp_path / "home"), "TODO_LS_STATE_DIR": str(tmp_path / "state")},
        out=io.StringIO(),
        command="/new/place/todo-ls",
    )
    assert kimi_code.install(moved) == 0
    commands = {c for _, c in hooks_of("kimi-code", path.read_text(encoding="utf-8"))}
    assert commands == {"notify-send done", "/new/place/todo-ls hook --host kimi-code"}
    assert run(options(tmp_path, uninstall=True), "kimi-code") == 0
    assert path.read_text(encoding="utf-8") == KIMI_OWN


def test_a_config_that_is_not_toml_or_cannot_take_tables_is_refused(tmp_path: Path) -> None:
    path = target_file(tmp_path, "kimi-code", "user")
    path.parent.mkdir(parents=True)
    for text, why in (
        ("default_model = \n", "is not valid TOML"),
        ('hooks = [{event = "Stop", command = "x"}]\n', "would not be valid TOML"),
    ):
        path.write_text(text, encoding="utf-8")
        opts = options(tmp_path)
        assert run(opts, "kimi-code") == 1
        assert why in printed(opts) and "nothing written" in printed(opts)
        assert path.read_text(encoding="utf-8") == text


def test_vibe_tables_and_trust_step(tmp_path: Path) -> None:
    opts = options(tmp_path)
    assert run(opts, "mistral-vibe") == 0
    tables = tomllib.loads(target_file(tmp_path, "mistral-vibe", "project").read_text())["hooks"]
    assert [(t["name"], t["type"], t.get("match")) for t in tables] == [
        ("todo-ls-post-agent", "post_agent", None),
        ("todo-ls-post-tool", "post_tool", "*"),
    ]
    assert "trusted folder" in printed(opts) and "--trust" in printed(opts)
    user = options(tmp_path, scope="user")
    assert run(user, "mistral-vibe") == 0
    assert "trusted" not in printed(user)


def test_kimi_writes_the_users_config_and_says_so(tmp_path: Path) -> None:
    opts = options(tmp_path)  # project scope asked for
    assert run(opts, "kimi-code") == 0
    assert not (tmp_path / "project").exists()
    text = target_file(tmp_path, "kimi-code", "project").read_text(encoding="utf-8")
    events = [t["event"] for t in tomllib.loads(text)["hooks"]]
    assert events[:3] == ["Stop", "UserPromptSubmit", "Interrupt"]
    # Kimi Code refuses its whole config over an unknown key: only the four it knows.
    assert all(
        set(t) <= {"event", "matcher", "command", "timeout"} for t in tomllib.loads(text)["hooks"]
    )
    assert "no project hooks" in printed(opts) and "every folder" in printed(opts)


def test_openhands_groups_match_every_tool(tmp_path: Path) -> None:
    assert run(options(tmp_path), "openhands") == 0
    data = json.loads(target_file(tmp_path, "openhands", "project").read_text(encoding="utf-8"))
    events = {"Stop", "UserPromptSubmit", "PostToolUse", "SessionStart", "SessionEnd"}
    assert set(data["hooks"]) == events  # PreToolUse not: todo-ls never gates a tool
    assert all(g["matcher"] == "*" for groups in data["hooks"].values() for g in groups)
