"""`todo-ls install` in the agents' own settings files: it merges, is idempotent, keeps the
user's other hooks working, refuses a file it cannot parse, and `--uninstall` gives the file
back byte for byte. The agent itself shows the effect: blocked while installed (and the
user's own Stop hook still runs), not blocked after the uninstall."""

from __future__ import annotations

import json
import shlex

import pytest
from support.agent_harness import Agent, ClaudeCode, Codex
from support.fake_agent_models import tick_all
from support.fake_model import text

pytestmark = [pytest.mark.agents, pytest.mark.timeout(180)]


def foreign_settings(agent: Agent) -> str:
    """A settings file as a user may have it: their own Stop hook (it leaves a mark on disk)
    and another event, in their own formatting."""
    mark = shlex.quote(str(agent.project.tmp / "user-stop-hook-ran"))
    hooks = {
        "Stop": [{"hooks": [{"type": "command", "command": f"touch {mark}"}]}],
        "SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}],
    }
    data = {"hooks": hooks}
    if isinstance(agent, ClaudeCode):
        data = {"permissions": {"allow": ["Bash(ls:*)"]}, **data}
    return json.dumps(data, indent=4) + "\n"


def without_todo_ls(data: dict[str, object]) -> dict[str, object]:
    """The settings with every todo-ls handler (and groups left empty) taken out."""
    hooks = dict(data.get("hooks") or {})  # type: ignore[call-overload]
    kept = {}
    for event, groups in hooks.items():
        left = [
            {**g, "hooks": [h for h in g["hooks"] if "todo" not in h["command"]]} for g in groups
        ]
        left = [g for g in left if g["hooks"]]
        if left:
            kept[event] = left
    return {**data, "hooks": kept}


def test_install_merges_is_idempotent_and_uninstall_restores_the_file(agent: Agent) -> None:
    settings = agent.project_settings
    settings.parent.mkdir(parents=True, exist_ok=True)
    original = foreign_settings(agent)
    settings.write_text(original, encoding="utf-8")
    mark = agent.project.tmp / "user-stop-hook-ran"

    said = agent.project.install(agent.host)
    if isinstance(agent, Codex):
        assert "/hooks" in said, f"install does not tell how to trust the hooks: {said}"
    installed = settings.read_bytes()
    assert without_todo_ls(json.loads(installed)) == json.loads(original)
    again = agent.project.install(agent.host)
    assert settings.read_bytes() == installed, "a second install changed the file"
    assert "nothing to change" in again

    agent.model.script(text("Done."), agent.shell(tick_all()), text("All items are ticked."))
    run = agent.run()
    assert agent.finished(run)
    assert len(agent.model.nudges()) == 1
    assert mark.exists(), "the user's own Stop hook did not run next to todo-ls's"

    agent.project.install(agent.host, "--uninstall")
    assert settings.read_text(encoding="utf-8") == original
    agent.project.plan_path.write_text("- [ ] one more thing\n", encoding="utf-8")
    mark.unlink()
    before = len(agent.model.requests)
    run = agent.run()
    assert agent.finished(run)
    assert len(agent.model.requests) == before + 1, "blocked after the uninstall"
    assert mark.exists(), "the user's own Stop hook is gone after the uninstall"


def test_dry_run_writes_nothing_and_a_broken_file_is_refused(agent: Agent) -> None:
    settings = agent.project_settings
    shown = agent.project.install(agent.host, "--dry-run")
    assert "Stop" in shown
    assert not settings.exists(), "--dry-run wrote the settings file"

    settings.parent.mkdir(parents=True, exist_ok=True)
    broken = '{"hooks": {"Stop": [ }\n'
    settings.write_text(broken, encoding="utf-8")
    answer = agent.project.install(agent.host, ok=False)
    assert str(settings) in answer and "\n" not in answer.strip(), answer
    assert settings.read_text(encoding="utf-8") == broken


def test_codex_runs_the_hooks_only_once_the_user_trusted_them(codex: Codex) -> None:
    codex.project.install(codex.host)
    server = codex.app_server()
    try:
        thread = server.start_thread()
        codex.model.script(text("Done."))
        turn = server.start_turn(thread, "Work through PLAN.md.")
        assert server.wait_turn(turn) == "completed"
        assert codex.model.nudges() == [], "untrusted hooks ran: install trusted them itself"

        assert server.trust_hooks() == 4  # SessionStart, UserPromptSubmit, Stop, Interrupt
        codex.model.script(text("Done."), codex.shell(tick_all()), text("All items are ticked."))
        # A thread reads the hooks when it starts.
        turn = server.start_turn(server.start_thread(), "Work through PLAN.md.")
        assert server.wait_turn(turn) == "completed"
        assert len(codex.model.nudges()) == 1
    finally:
        server.stop()
