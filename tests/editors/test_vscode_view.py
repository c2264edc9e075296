"""The todo-ls view in real VS Code 1.139 (code-server), with the self-contained .vsix and a real
Claude Code: the view lists the plan before any file is open, a click opens an item's line, a
ticked checkbox edits the editor and the status bar follows, Ctrl+T finds an open item and
opens its line, "Fold done items" folds the closed run, "Connect an agent…" writes Claude
Code's hooks with the bundled server, and the session of the Claude Code started then shows
under Agents while it works and once its turn is over.

The browser part is vscode_e2e.mjs (scenario "panel"); the profile, code-server and the driver
come from test_vscode.py. Its screenshot of the view with the agent's session,
test-artifacts/vscode/19-view-agent.png, is the README's docs/vscode-panel.png (copied there when
TODO_LS_UPDATE_DOCS=1).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from support.agent_harness import ClaudeCode, ClaudeConversation, Project, start_held_turn
from support.fake_agent_models import FakeMessagesAPI, tick_all
from support.fake_model import text
from test_vscode import (
    ARTIFACTS,
    REPO,
    Step,
    _activation_lines,
    _drive,
    _offline_env,
    _path_without_todo_ls,
    _profile,
)

pytestmark = [pytest.mark.editor, pytest.mark.agents]

DOCS_PNG = REPO / "docs" / "vscode-panel.png"
INTRO = "write the intro ✓"
MARKED_INTRO = "write the `intro` ✓"


def test_view_lists_ticks_and_shows_a_real_claude_code_session(
    tmp_path: Path, bundled_vsix: Path
) -> None:
    project = Project(tmp_path)  # HOME, TMPDIR and the state folder for Claude Code
    workspace, base = _profile(tmp_path, None)  # the same folder, with the VS Code test's plan
    assert workspace == project.root
    # The item the test ticks has markup: the view shows it as the outline names it, and its
    # tick (which sends that name) still lands (docs/status-and-commands.md, "Which item a
    # toggle changes").
    plan = workspace / "PLAN.md"
    plan.write_text(plan.read_text("utf-8").replace(INTRO, MARKED_INTRO), encoding="utf-8")
    env = {**_offline_env(_path_without_todo_ls()), "TODO_LS_STATE_DIR": str(project.state)}
    hooks = project.root / ".claude" / "settings.json"
    started: list[ClaudeConversation] = []

    with FakeMessagesAPI() as model:
        claude = ClaudeCode(project, model)

        def on_step(step: Step) -> None:
            if step["step"] == "agent connected":
                # The hooks VS Code wrote start Claude Code's own session: its first answer is
                # held (the session works meanwhile); after the nudge it ticks every box.
                conversation = claude.conversation()
                started.append(conversation)
                start_held_turn(
                    claude, conversation, "Reading the plan.", claude.shell(tick_all()),
                    text("All items are ticked."),
                )  # fmt: skip
            elif step["step"] == "agent session working":
                model.release()

        try:
            steps = _drive(
                tmp_path,
                None,
                None,
                on_step,
                scenario={"SCENARIO": "panel"},
                vsix=bundled_vsix,
                env=env,
                profile=(workspace, base),
                timeout=240,
            )
        finally:
            for conversation in started:
                conversation.stop()

    by_name = {str(s["step"]): s for s in steps}
    assert list(by_name) == [
        "workbench loaded",
        "view lists the plan",
        "click opens the item's line",
        "checkbox ticked",
        "Ctrl+T lists the item",
        "Ctrl+T opens its line",
        "done items folded",
        "agent connected",
        "agent session working",
        "agent session finished",
    ]

    # The view (or the project file) started the extension: no markdown file was open yet.
    [activation] = _activation_lines(tmp_path)
    assert re.search(
        r"activationEvent: '(onView:todoLs\.panel|workspaceContains:todo-ls\.toml)'", activation
    )
    rows = by_name["view lists the plan"]["rows"]
    assert isinstance(rows, list)
    # The plan as in the document: the heading holds the items, the parent its children; closed
    # items ticked, progress in the descriptions.
    assert rows == [
        "PLAN.md 3 open of 5",
        "  Plan — café 2/5 done",
        "    [ ] write the intro ✓",
        "    [x] set up CI",
        "    [ ] ship it 1/2 done",
        "      [ ] tag the release",
        "      [x] write the changelog",
        "Agents 0 sessions",
        "  No agent — Connect an agent…",
    ]
    assert str(by_name["checkbox ticked"]["text"]).startswith("📋 ████░░░░ 2/5 open")
    assert "    [x] write the intro ✓" in by_name["checkbox ticked"]["rows"]
    assert "PLAN.md 2 open of 5" in by_name["checkbox ticked"]["rows"]
    symbols = by_name["Ctrl+T lists the item"]["rows"]
    assert isinstance(symbols, list)
    assert any("tag the release" in r and "PLAN.md › Plan — café" in r for r in symbols), symbols
    # The tick was saved, then the agent ticked the rest on disk: nothing of either was lost.
    assert "- [ ]" not in (workspace / "PLAN.md").read_text(encoding="utf-8")
    assert f"- [x] {MARKED_INTRO}" in plan.read_text("utf-8")  # only the marker changed

    # Connect an agent… ran the bundled server's own install: the hooks call that interpreter.
    assert "Claude Code: changed" in str(by_name["agent connected"]["message"])
    settings = json.loads(hooks.read_text(encoding="utf-8"))
    commands = {h["command"] for entry in settings["hooks"]["Stop"] for h in entry["hooks"]}
    [launcher] = (tmp_path / "extensions").glob("todo-ls.todo-ls-*/server/todo-ls.py")
    [command] = commands
    python, script, *args = shlex.split(command)
    assert (Path(script), args) == (launcher, ["hook", "--host", "claude-code"]), command
    assert python != sys.executable and Path(python).name.startswith("python3")

    working = by_name["agent session working"]["rows"]
    finished = by_name["agent session finished"]["rows"]
    assert isinstance(working, list) and isinstance(finished, list)
    assert any("working · " in r and r.endswith("claude-code") for r in working), working
    # The lens above the plan says what the view says (the agent is a hook host: no OpenCode).
    assert "supervisor: working" in str(by_name["agent session working"]["lens"])
    assert "PLAN.md 0 open of 5" in finished, finished
    assert len(model.nudges()) == 1  # the Stop hook held the session to its open items once

    if os.environ.get("TODO_LS_UPDATE_DOCS") == "1":
        shutil.copyfile(ARTIFACTS / "19-view-agent.png", DOCS_PNG)
