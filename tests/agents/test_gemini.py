"""What only Gemini CLI 0.61.0 needs (Esc in its TUI is in test_interrupt.py): the nudge it
hands back through `BeforeAgent` is not a user prompt, so todo-ls's caps hold (Gemini CLI has
none of its own); `write_todos` is the session's own list; and `todo-ls install gemini-cli`
names the trust step that Gemini CLI skips project hooks without."""

from __future__ import annotations

import pytest
from support.agent_harness import GeminiCli, wait_paused
from support.fake_agent_models import tick_all
from support.fake_model import text
from support.reliability_support import StdioLanguageServer

pytestmark = [pytest.mark.agents, pytest.mark.timeout(240)]

SHOWN = 5.0  # seconds for a hook event to reach the status


def test_a_model_that_works_but_never_ticks_is_paused_no_progress(
    gemini: GeminiCli, language_server: StdioLanguageServer
) -> None:
    gemini.project.settings({"maxNoProgressNudges": 2})
    gemini.project.install(gemini.host)
    # Each nudge comes back through BeforeAgent; were it a new prompt, no cap would trigger.
    gemini.model.script(*[gemini.shell("ls"), text("Still working on it.")] * 8)
    tui = gemini.conversation()
    try:
        tui.start_turn("Work through PLAN.md.")

        assert tui.finish_turn() == "completed"
        blocks = len(gemini.model.nudges())
        assert blocks == 2, f"{blocks} blocks with maxNoProgressNudges = 2"
        paused = wait_paused(language_server, tui.session_id, "no-progress", SHOWN)
        assert (paused.get("host"), paused.get("nudges"), paused.get("open")) == (
            "gemini-cli",
            2,
            2,
        )
    finally:
        tui.stop()


def test_write_todos_is_the_sessions_own_list(gemini: GeminiCli) -> None:
    gemini.project.install(gemini.host)
    gemini.project.plan_path.write_text("# Plan\n\n- [x] all done\n", encoding="utf-8")
    own = [("write the tests", "in_progress"), ("read the docs", "completed")]
    done = [("write the tests", "completed"), ("read the docs", "completed")]
    gemini.model.script(
        *gemini.todo_list(own), text("Done."), *gemini.todo_list(done), text("All done.")
    )

    run = gemini.run()

    assert gemini.finished(run), run.stderr[-2000:]
    nudges = gemini.model.nudges()
    assert len(nudges) == 1, nudges
    assert "write the tests" in nudges[0] and "read the docs" not in nudges[0], nudges[0]
    assert gemini.model.pending() == 0  # it stopped freely once its own list was done


def test_install_names_the_trust_step_that_project_hooks_need(gemini: GeminiCli) -> None:
    said = gemini.project.install(gemini.host)
    assert "trustedFolders.json" in said and "GEMINI_CLI_TRUST_WORKSPACE" in said, said
    assert "--skip-trust" in said and "--scope user" in said, said

    # What the note warns of: in a folder nobody trusted, `--skip-trust` runs Gemini CLI but
    # drops the project's hooks without a word.
    gemini.trust(False)
    gemini.model.script(text("Done."))
    run = gemini.run("Work through PLAN.md.", (), "--skip-trust")
    assert gemini.finished(run), run.stderr[-2000:]
    assert gemini.model.nudges() == []

    # The user-scope install the note suggests runs there.
    gemini.project.install(gemini.host, "--scope", "user")
    gemini.model.script(text("Done."), gemini.shell(tick_all()), text("All items are ticked."))
    run = gemini.run("Work through PLAN.md again.", (), "--skip-trust")
    assert gemini.finished(run), run.stderr[-2000:]
    assert len(gemini.model.nudges()) == 1
