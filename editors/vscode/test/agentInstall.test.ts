import assert from "node:assert/strict";
import { test } from "node:test";
import { installCommand, installSummary } from "../src/agentInstall";

test("install runs with the server's own executable and interpreter options", () => {
  const venv = { command: "/s/venv/bin/python", args: ["-I", "-m", "todo_ls"] };
  assert.deepEqual(installCommand(venv, "claude-code", "project", "/w/proj"), {
    command: "/s/venv/bin/python",
    args: ["-I", "-m", "todo_ls", "install", "claude-code", "--scope", "project", "--directory", "/w/proj"],
  });
  // A server command line that names `serve` installs instead of serving.
  const onPath = { command: "/u/bin/todo-ls", args: ["serve"] };
  assert.deepEqual(installCommand(onPath, "codex", "user", "/w").args, ["install", "codex", "--scope", "user", "--directory", "/w"]);
});

test("the message tells what changed and the host's next step", () => {
  const stdout = "Claude Code: changed /w/.claude/settings.json:\n  added Stop: todo-ls hook\nClaude Code reads the hooks at its next start.\n";
  assert.deepEqual(installSummary(stdout), {
    changed: "Claude Code: changed /w/.claude/settings.json:",
    next: "Claude Code reads the hooks at its next start.",
  });
  assert.deepEqual(installSummary(""), { changed: "nothing to change", next: "" });
});
