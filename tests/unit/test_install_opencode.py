"""`todo-ls install opencode`: the MCP entry and the plugin go into opencode.json(c) with
minimal edits (comments and other keys kept), idempotent, reversible, refusing what it cannot
parse."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from todo_ls.install import Options
from todo_ls.install import opencode as installer
from todo_ls.install.jsonc import JsoncError, parse

COMMAND = "/opt/todo ls/bin/todo-ls"  # a space: the command is a shell word list
JSONC = """{
  // my model
  "model": "anthropic/claude",
  /* servers */
  "mcp": {
    "other": {"type": "remote", "url": "http://127.0.0.1:9/mcp"}, // keep me
  },
  "plugin": ["file:///home/me/other.js"],
}
"""


def run(folder: Path, **flags: bool) -> tuple[int, str]:
    out = io.StringIO()
    options = Options(
        scope="project",
        directory=folder,
        env={"HOME": str(folder / "home")},
        out=out,
        command=f"'{COMMAND}'",
        **flags,
    )
    return installer.install(options), out.getvalue()


def plain(text: str) -> object:
    """The JSONC text's value, through the same parser OpenCode's file must pass."""
    node = parse(text)
    return installer._value(text, node)


def test_edits_keep_comments_and_other_keys_and_run_twice_changes_nothing(
    tmp_path: Path,
) -> None:
    config = tmp_path / "opencode.jsonc"
    config.write_text(JSONC)
    code, said = run(tmp_path)
    assert code == 0 and "Wrote" in said
    text = config.read_text()
    for kept in ("// my model", "/* servers */", "// keep me", '"model": "anthropic/claude"'):
        assert kept in text
    # The new server goes below the last one, whose comment stays on its line.
    assert '"url": "http://127.0.0.1:9/mcp"}, // keep me\n    "todo": {' in text
    value = plain(text)
    assert isinstance(value, dict)
    assert value["mcp"]["other"] == {"type": "remote", "url": "http://127.0.0.1:9/mcp"}
    assert value["mcp"]["todo"] == {"type": "local", "command": [COMMAND, "mcp"]}
    assert value["plugin"][0] == "file:///home/me/other.js"
    assert value["plugin"][1] == installer.plugin_path().as_uri()
    assert Path(value["plugin"][1].removeprefix("file://")).is_file()
    assert not (tmp_path / "opencode.json").exists()  # the .jsonc file is the one edited

    code, said = run(tmp_path)
    assert code == 0 and "already installed" in said
    assert config.read_text() == text


def test_uninstall_restores_the_original_values(tmp_path: Path) -> None:
    config = tmp_path / "opencode.jsonc"
    config.write_text(JSONC)
    run(tmp_path)
    code, said = run(tmp_path, uninstall=True)
    assert code == 0 and "Removed" in said
    assert config.read_text() == JSONC  # byte for byte
    code, said = run(tmp_path, uninstall=True)
    assert code == 0 and "not installed" in said


def test_creates_a_config_when_there_is_none(tmp_path: Path) -> None:
    code, _ = run(tmp_path)
    assert code == 0
    value = json.loads((tmp_path / "opencode.json").read_text())
    assert set(value) == {"mcp", "plugin"}
    assert not (tmp_path / ".opencode").exists()  # no new config folder (offline start)


def test_dry_run_shows_the_change_and_writes_nothing(tmp_path: Path) -> None:
    config = tmp_path / "opencode.json"
    config.write_text('{\n  "model": "x"\n}\n')
    code, said = run(tmp_path, dry_run=True)
    assert code == 0 and "dry run" in said and '+  "mcp": {' in said
    assert config.read_text() == '{\n  "model": "x"\n}\n'


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"model": "x",, }', "not valid JSON with comments (line 1, column 15"),
        ('{"model": "x" /* open', "unclosed /* comment"),
        ("[1, 2]", "the top level is not an object"),
        ('{"mcp": []}', '"mcp" is not an object'),
        ('{"plugin": "x.js"}', '"plugin" is not a list'),
        ('{"mcp": {"todo": {"type": "remote", "url": "u"}}}', "another MCP server"),
    ],
)
def test_refuses_what_it_cannot_edit(tmp_path: Path, text: str, reason: str) -> None:
    config = tmp_path / "opencode.json"
    config.write_text(text)
    code, said = run(tmp_path)
    assert code == 1 and reason in said and "nothing written" in said
    assert config.read_text() == text


def test_a_moved_todo_ls_replaces_its_old_plugin_entry(tmp_path: Path) -> None:
    config = tmp_path / "opencode.json"
    config.write_text('{"plugin": ["file:///old/place/todo-ls-v1.js", "file:///x/other.js"]}')
    run(tmp_path)
    plugins = json.loads(config.read_text())["plugin"]
    assert plugins == ["file:///x/other.js", installer.plugin_path().as_uri()]


def test_offline_note_only_when_opencode_would_install_its_plugin_package(
    tmp_path: Path,
) -> None:
    _, said = run(tmp_path)
    assert "about 70 s" in said
    global_dir = tmp_path / "home" / ".config" / "opencode"
    (global_dir / "node_modules").mkdir(parents=True)
    lock = {"packages": {"": {"dependencies": {"@opencode-ai/plugin": "1.18.33"}}}}
    (global_dir / "package-lock.json").write_text(json.dumps(lock))
    run(tmp_path, uninstall=True)
    _, said = run(tmp_path)
    assert "70 s" not in said


def test_parser_rejects_a_string_cut_by_a_newline() -> None:
    with pytest.raises(JsoncError, match="unterminated string"):
        parse('{"a": "b\n"}')


# --- uninstall restores the file byte for byte (issue 18, item 5) -------------------------

STARTING_FILES = {
    "no mcp or plugin key": '{\n  "model": "x"\n}\n',
    "one line": '{"$schema": "https://opencode.ai/config.json"}',
    "an empty object": "{\n}\n",
    "comments, trailing comma": '{\n  // my model\n  "model": "x", /* why */\n}\n',
    "foreign mcp entries": (
        '{\n  "mcp": {\n    "other": {"type": "remote", "url": "http://127.0.0.1:9/mcp"}\n  }\n}\n'
    ),
    "an empty plugin list": '{\n  "model": "x",\n  "plugin": []\n}\n',
    "an empty mcp object": '{"mcp": {}, "plugin": [\n]}\n',
    "CRLF line ends": '{\r\n  "model": "x"\r\n}\r\n',
    "the commented example": JSONC,
}


@pytest.mark.parametrize("name", sorted(STARTING_FILES))
def test_uninstall_restores_each_starting_file_byte_for_byte(tmp_path: Path, name: str) -> None:
    config = tmp_path / "opencode.jsonc"
    config.write_bytes(STARTING_FILES[name].encode())
    assert run(tmp_path)[0] == 0
    assert config.read_bytes() != STARTING_FILES[name].encode()
    code, said = run(tmp_path, uninstall=True)
    assert code == 0 and "Removed" in said
    assert config.read_bytes() == STARTING_FILES[name].encode()


def test_uninstall_deletes_the_file_the_install_created(tmp_path: Path) -> None:
    run(tmp_path)
    code, said = run(tmp_path, uninstall=True)
    assert code == 0 and "deleted" in said
    assert list(tmp_path.iterdir()) == [tmp_path / "home"]  # only the state folder is left


def test_uninstall_after_other_edits_keeps_them_and_drops_the_keys_it_added(
    tmp_path: Path,
) -> None:
    config = tmp_path / "opencode.jsonc"
    config.write_text('{\n  // mine\n  "model": "x",\n  "plugin": []\n}\n')
    run(tmp_path)
    # The user changes their model after the install: that change stays.
    config.write_text(config.read_text().replace('"model": "x"', '"model": "y"'))
    run(tmp_path, uninstall=True)
    text = config.read_text()
    assert text == '{\n  // mine\n  "model": "y",\n  "plugin": []\n}\n'  # the list was theirs


def test_uninstall_without_a_record_removes_only_the_entries(tmp_path: Path) -> None:
    config = tmp_path / "opencode.json"
    config.write_text('{\n  "model": "x"\n}\n')
    run(tmp_path)
    for record in (tmp_path / "home").rglob("*.json"):
        record.unlink()  # an install by an older todo-ls kept no original
    run(tmp_path, uninstall=True)
    value = json.loads(config.read_text())
    assert value == {"model": "x", "mcp": {}, "plugin": []}


def test_a_moved_todo_ls_still_uninstalls_to_the_first_original(tmp_path: Path) -> None:
    config = tmp_path / "opencode.json"
    original = '{\n  "model": "x"\n}\n'
    config.write_text(original)
    run(tmp_path)
    # todo-ls moved: the plugin entry points elsewhere, a new install replaces it.
    current = installer.plugin_path().as_uri()
    config.write_text(config.read_text().replace(current, "file:///old/place/todo-ls-v1.js"))
    run(tmp_path)
    assert current in config.read_text()
    run(tmp_path, uninstall=True)
    assert config.read_text() == original


def test_dry_run_uninstall_shows_the_restore_and_keeps_the_record(tmp_path: Path) -> None:
    config = tmp_path / "opencode.json"
    original = '{\n  "model": "x"\n}\n'
    config.write_text(original)
    run(tmp_path)
    installed = config.read_text()
    code, said = run(tmp_path, uninstall=True, dry_run=True)
    assert code == 0 and "dry run" in said and '-  "plugin": [' in said
    assert config.read_text() == installed
    run(tmp_path, uninstall=True)
    assert config.read_text() == original


def test_the_kept_original_is_readable_by_the_user_only(tmp_path: Path) -> None:
    config = tmp_path / "opencode.json"
    config.write_text('{"provider": {"x": {"options": {"apiKey": "sk-not-for-others"}}}}\n')
    run(tmp_path)
    [record] = (tmp_path / "home").rglob("install/*.json")
    assert "sk-not-for-others" in record.read_text()  # it is the file's text, so it is private
    assert record.stat().st_mode & 0o077 == 0
