"""The todo panel, folding, the workspace-symbol picker and `:TodoLs install` in real headless
Neovim 0.11 against the real server (scenarios in tests/editors/nvim/scenarios.lua; the
harness is test_nvim.py's). The panel's nudge runs against a real OpenCode 1.18.33 whose model
is the scripted fake of tests/hosts.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from big_workspace import note_path, note_text, write_big_workspace
from support.fake_model import FakeModel, text
from support.scenarios import OpencodeServer, free_port
from test_editor_agent import model
from test_nvim import (
    PARSER_LINE,
    PLAN,
    SHIP_LINE,
    NvimRun,
    ok_run,
    plugin_copy,
    run_scenario,
    utf8_len,
)

pytestmark = pytest.mark.editor

__all__ = ["model", "plugin_copy"]  # the fixtures, shared with test_nvim.py and the agent test


def test_panel_lists_toggles_filters_and_closes(tmp_path: Path, plugin_copy: Path) -> None:
    run = ok_run("panel", tmp_path, plugin_copy)
    data = run.data
    assert data["opened"] is True and data["floating"] is True
    lines = data["lines"]
    start = lines.index("PLAN.md  2 open of 5")
    # Items as in the file: the child one level deeper, closed items with their marker.
    assert lines[start + 1 : start + 6] == [
        "  [ ] write the parser",
        "  [x] add tests",
        "  [ ] ünïcødé ship it ✓",
        "    [x] nested done",
        "  [~] dropped idea",
    ], lines
    assert lines[0].startswith("📋 ") and "2/5 open" in lines[0]
    # `x` on "write the parser": the buffer's marker changed, the panel redrew from the status,
    # and the edited buffer's diagnostics were pulled again (Neovim would not have).
    assert "  [x] write the parser" in data["after_toggle"]
    argument = data["toggle_argument"]
    assert (argument["line"], argument["text"]) == (PARSER_LINE, "write the parser"), argument
    assert [d["lnum"] for d in data["diagnostics_after"]] == [SHIP_LINE]
    assert data["in_panel"] is True
    assert [line for line in data["hidden"] if line.startswith("  ")] == ["  [ ] ünïcødé ship it ✓"]
    assert [line for line in data["filtered"] if line.startswith("  ")] == [
        "  [ ] ünïcødé ship it ✓"
    ]
    assert any("filter: ship" in line for line in data["filtered"])
    assert any(line.startswith("x <Space> toggle") for line in data["help"]), data["help"]
    notes = data["subscribed"].index("NOTES.md  1 open of 1")
    # Its item `call the \`plumber\` about **the sink**` as the outline names it; `x` ticked it.
    assert data["subscribed"][notes + 1] == "  [ ] call the plumber about the sink"
    assert data["notes_ticked"][2] == "- [x] call the `plumber` about **the sink**"
    assert "re-read 1 subscribed file" in data["refreshed"]  # NOTES.md unsubscribed again
    assert data["closed"] is True
    assert data["jumped"] == {"buf": True, "lnum": SHIP_LINE + 1}
    assert data["closed_by_jump"] is True
    assert run.messages(min_level=3) == []  # no warning or error


def test_panel_opens_expands_ticks_and_pages_a_20000_file_workspace(
    tmp_path: Path, plugin_copy: Path
) -> None:
    """docs: doc/todo_ls.txt, todo_ls-panel. The bounds are generous (a 2-core machine shared
    with other work); what they guard is that nothing waits on the workspace's size."""
    files = 20_000
    workspace = write_big_workspace(tmp_path / "vault", files)
    run = run_scenario(
        "panel_big",
        tmp_path,
        plugin_copy,
        extra_env={"TODO_LS_TEST_FILES": str(files)},
        workspace=workspace,
        timeout=300,
    )
    assert run.returncode == 0 and run.result.get("error") is None, run.explain()
    data = run.data
    print(f"panel with {files} files (ms): {data['ms']}")
    lines = data["lines"]
    first = lines.index(f"{note_path(0)}  2 open of 3")
    assert lines[first + 1 : first + 4] == ["  [ ] task 0.0", "  [ ] task 0.1", "  [x] task 0.2"]
    assert f"… {files - 50} more files: press m to list more" in lines
    assert data["collapsed"] == f"{note_path(30)}  2 open of 3  (o: show)"
    assert data["unread"] is True
    assert data["expanded"] == [
        f"{note_path(30)}  2 open of 3",
        "  [ ] task 30.0",
        "  [ ] task 30.1",
        "  [x] task 30.2",
    ]
    assert (workspace / note_path(30)).read_text(encoding="utf-8") == note_text(30).replace(
        "- [ ] task 30.0", "- [x] task 30.0"
    )
    assert data["more"][-1] == f"… {files - 100} more files: press m to list more"
    ms = data["ms"]
    assert ms["open"] <= 120_000, ms
    assert max(ms["expand"], ms["tick"], ms["more"]) <= 20_000, ms


def test_panel_status_and_checkhealth_say_why_the_host_is_not_connected(
    tmp_path: Path, plugin_copy: Path
) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # closed: a real connection error
    run = ok_run("host_error", tmp_path, plugin_copy, extra_env={"TODO_LS_TEST_URL": url})
    error = run.data["error"]
    assert "unreachable" in error and url in error, error
    line = f"OpenCode {url} disconnected: {error}"
    # The panel's second line, under the status text; the plan follows as before.
    assert run.data["panel"][1] == line, run.data["panel"]
    assert f"  {line}" in run.data["describe"]
    assert any(
        "WARNING supervisor not connected" in h and f"at {url}: {error}" in h
        for h in run.data["health"]
    ), run.data["health"]


def test_fold_closes_the_runs_of_done_items(tmp_path: Path, plugin_copy: Path) -> None:
    run = ok_run("fold", tmp_path, plugin_copy)
    data = run.data
    assert "folded 2 run(s)" in data["message"]
    assert data["foldmethod"] == "manual"
    # Lines 3-5 (one, two, two a) and 7-8 (four, five) are folded; "three" (open) is not.
    assert data["folds"] == [[-1, -1], [-1, -1], [3, 5], [3, 5], [3, 5], [-1, -1], [7, 8], [7, 8]]
    assert data["folds_again"] == [3, 5, 1]  # no second fold on top of the first


def test_workspace_symbol_lists_the_open_items(tmp_path: Path, plugin_copy: Path) -> None:
    run = ok_run("workspace_symbol", tmp_path, plugin_copy)
    items = run.data["all"]
    assert [(i["file"], i["lnum"]) for i in items] == [
        ("PLAN.md", PARSER_LINE + 1),
        ("PLAN.md", SHIP_LINE + 1),
    ], items
    assert "write the parser" in items[0]["text"] and "ünïcødé ship it ✓" in items[1]["text"]
    assert [i["lnum"] for i in run.data["ship"]] == [SHIP_LINE + 1]
    # Columns are bytes (utf-8): the range is the item's text after `- [ ] `.
    [raw] = run.data["raw_ship"]
    ship_line = PLAN.splitlines()[SHIP_LINE]
    start = ship_line.index("ünïcødé")
    assert raw["location"]["range"]["start"]["character"] == utf8_len(ship_line[:start])
    assert raw["location"]["range"]["end"]["character"] == utf8_len(ship_line)
    assert raw["containerName"] == "PLAN.md › Étape 1 — café ☕"


def test_install_writes_the_claude_code_hooks_with_the_editors_server(
    tmp_path: Path, plugin_copy: Path
) -> None:
    run = ok_run("install", tmp_path, plugin_copy)
    settings_file = tmp_path / "project" / ".claude" / "settings.json"
    assert "changed" in run.data["message"] and str(settings_file) in run.data["message"]
    assert "next start" in run.data["message"]  # the host's next step
    hooks = json.loads(settings_file.read_text("utf-8"))["hooks"]
    commands = [h["command"] for entry in hooks["Stop"] for h in entry["hooks"]]
    # The executable Neovim runs the server with (the test's `cmd`: this Python, -m todo_ls).
    assert commands == [f"{sys.executable} -m todo_ls hook --host claude-code"]
    assert "invalid choice: 'no-such-host'" in run.data["refused"]


PASSWORD = "pw-panel-8Kd-not-in-logs"
AGENT_PLAN = "# Plan\n\n- [x] read the spec\n- [ ] write the parser\n- [ ] fuzz it\n"


@pytest.fixture
def opencode(tmp_path: Path, model: FakeModel) -> Iterator[OpencodeServer]:
    server = OpencodeServer(tmp_path / "opencode", model, password=PASSWORD).start()
    (server.project / ".git").mkdir()
    (server.project / "PLAN.md").write_text(AGENT_PLAN, encoding="utf-8")
    yield server
    server.stop()


@pytest.mark.opencode
def test_panel_nudges_and_pauses_a_real_opencode_session(
    tmp_path: Path, plugin_copy: Path, opencode: OpencodeServer, model: FakeModel
) -> None:
    session = opencode.create_session("Agent seen from the panel")
    model.script(text("Stopping here; the rest can wait."), text("Continuing with the plan."))
    ready = tmp_path / "connected"
    env = {
        "TODO_LS_TEST_URL": opencode.url,
        "TODO_LS_TEST_SESSION": session,
        "TODO_LS_TEST_READY": str(ready),
        "OPENCODE_SERVER_PASSWORD": PASSWORD,
    }
    # Neovim runs in a thread; the agent's turn starts once todo-ls watches the server.
    runs: list[NvimRun] = []
    nvim = threading.Thread(
        target=lambda: runs.append(
            run_scenario(
                "panel_agent", tmp_path, plugin_copy, extra_env=env, workspace=opencode.project
            )
        )
    )
    nvim.start()
    try:
        deadline = time.monotonic() + 40
        while not ready.exists() and nvim.is_alive() and time.monotonic() < deadline:
            time.sleep(0.1)  # the scenario writes the file: nothing to wait on but its presence
        if ready.exists():
            opencode.prompt(session, "Work on the plan.")
    finally:
        nvim.join(90)
    [run] = runs
    assert run.returncode == 0 and run.result.get("error") is None, run.explain()
    assert run.data["session_line"].startswith(f"SESSION {session} idle"), run.data
    assert run.data["nudged"] == f"todo-ls: nudged {session}", run.data["nudged"]
    model.wait_for(lambda m: len(m.requests) >= 2, timeout=30)
    nudges = [t for r in model.requests for t in model.user_texts(r) if "Nudge #1" in t]
    assert nudges, [model.user_texts(r) for r in model.requests]
    assert nudges[0].startswith("Nudge #1 (sent by the user)"), nudges
    assert "PLAN.md:4" in nudges[0] and "write the parser" in nudges[0]
    assert f"SESSION {session} paused" in run.data["paused_line"]
