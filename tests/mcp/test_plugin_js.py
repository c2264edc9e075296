"""The companion plugin's own logic under Node, with the hook events shaped as each OpenCode
line passes them: the 1.x flavour is also run by the real OpenCode 1.18.33 test
(tests/hosts/test_opencode_mcp.py); the 2.x flavour has no real 2.x build to run in, so this is
the only check of its code (the README marks it untested)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

PLUGINS = Path(__file__).resolve().parents[2] / "editors" / "opencode"
BLOCK = "<todo-ls-todos>\n1. [pending] Ship it\n</todo-ls-todos>\n"

SCRIPT = """
const [flavour, stateDir] = process.argv.slice(1)
process.env.TODO_LS_STATE_DIR = stateDir
const mod = await import(flavour)
const out = {}
if (mod.TodoLs) {
  const hooks = await mod.TodoLs({})
  const call = { args: { todos: [] } }
  await hooks["tool.execute.before"]({ tool: "todo_todo_write", sessionID: "ses_a" }, call)
  const other = { args: { command: "ls" } }
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_a" }, other)
  const system = ["You are opencode"]
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_a" }, { system })
  const none = ["You are opencode"]
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_b" }, { system: none })
  Object.assign(out, { call: call.args, other: other.args, system, none })
} else {
  const hooks = {}
  const domain = (prefix) => ({
    hook: async (name, fn) => {
      hooks[prefix + name] = fn
      return { dispose: async () => {} }
    },
  })
  const ctx = { options: {}, tool: domain("tool."), session: domain("session.") }
  const cleanup = await mod.default.setup(ctx)
  const call = { tool: "todo_todo_write", sessionID: "ses_a", input: { todos: [] } }
  await hooks["tool.execute.before"](call)
  const other = { tool: "shell", sessionID: "ses_a", input: { command: "ls" } }
  await hooks["tool.execute.before"](other)
  const request = { sessionID: "ses_a", system: [{ type: "text", text: "You are opencode" }] }
  await hooks["session.context"](request)
  await cleanup()
  Object.assign(out, { call: call.input, other: other.input, system: request.system })
}
console.log(JSON.stringify(out))
"""


def run(flavour: str, state: Path) -> dict[str, object]:
    node = shutil.which("node")
    assert node, "node is required on PATH (see the Quick start in the README)"
    done = subprocess.run(
        [node, "--input-type=module", "-e", SCRIPT, (PLUGINS / flavour).as_uri(), str(state)],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


@pytest.fixture
def snapshot_state(tmp_path: Path) -> Path:
    context = tmp_path / "context"
    context.mkdir()
    (context / "ses_a.md").write_text(BLOCK)
    return tmp_path


def test_v1_adds_the_session_to_todo_ls_tools_only_and_appends_its_list(
    snapshot_state: Path,
) -> None:
    out = run("todo-ls-v1.js", snapshot_state)
    assert out["call"] == {"todos": [], "todoLsSessionID": "ses_a"}
    assert out["other"] == {"command": "ls"}
    assert out["system"] == [
        "You are opencode",
        "<todo-ls-todos>\n1. [pending] Ship it\n</todo-ls-todos>\n",
    ]
    assert out["none"] == ["You are opencode"]  # no list written for that session


def test_v2_does_the_same_through_the_2x_hooks(snapshot_state: Path) -> None:
    out = run("todo-ls-v2.js", snapshot_state)
    assert out["call"] == {"todos": [], "todoLsSessionID": "ses_a"}
    assert out["other"] == {"command": "ls"}
    assert out["system"] == [
        {"type": "text", "text": "You are opencode"},
        {"type": "text", "text": BLOCK},
    ]
