import assert from "node:assert/strict";
import { test } from "node:test";
import { CommandContext, CommandLine, resolveServerCommand } from "../src/serverCommand";

function context(executables: string[], overrides: Partial<CommandContext> = {}): CommandContext {
  return {
    pathEnv: "/usr/local/bin::/home/u/.local/bin",
    home: "/home/u",
    platform: "linux",
    workspaceFolder: "/home/u/project",
    isExecutable: (file) => executables.includes(file),
    ...overrides,
  };
}

const command = (command: string, args: string[]): CommandLine => ({ command, args });

test("the setting wins and its variables are expanded", () => {
  const choice = resolveServerCommand(["~/venv/bin/python", "-m", "todo_ls", "--root", "${workspaceFolder}/x"], false, true, context(["/usr/local/bin/todo-ls"]));
  assert.equal(choice.kind, "command");
  assert.deepEqual(choice.kind === "command" && choice.line, command("/home/u/venv/bin/python", ["-m", "todo_ls", "--root", "/home/u/project/x"]));
});

test("with bundled wheels the bundled server wins over todo-ls on PATH", () => {
  assert.deepEqual(resolveServerCommand([], false, true, context(["/usr/local/bin/todo-ls"])), { kind: "bundled", why: "bundled" });
});

test("useInstalled picks todo-ls on PATH in PATH order", () => {
  const choice = resolveServerCommand([], true, true, context(["/home/u/.local/bin/todo-ls", "/opt/todo-ls"]));
  assert.deepEqual(choice, { kind: "command", line: command("/home/u/.local/bin/todo-ls", []), why: "todo-ls on PATH" });
});

test("useInstalled without todo-ls on PATH falls back to the bundled server and says why", () => {
  const choice = resolveServerCommand([], true, true, context([]));
  assert.equal(choice.kind, "bundled");
  assert.match(choice.why, /useInstalled is on but todo-ls is not on PATH/);
});

test("blank entries do not count as a command", () => {
  const choice = resolveServerCommand(["", "  "], false, false, context(["/usr/local/bin/todo-ls"]));
  assert.deepEqual(choice.kind === "command" && choice.line, command("/usr/local/bin/todo-ls", []));
});

test("a build without bundled wheels uses todo-ls on PATH, else the Python module", () => {
  const installed = resolveServerCommand([], false, false, context(["/usr/local/bin/todo-ls"]));
  assert.deepEqual(installed.kind === "command" && installed.line, command("/usr/local/bin/todo-ls", []));
  const module = resolveServerCommand([], false, false, context([]));
  assert.deepEqual(module.kind === "command" && module.line, command("python3", ["-m", "todo_ls"]));
});

test("Windows looks for todo-ls.exe with ; separators and falls back to python", () => {
  const win = { platform: "win32" as const, pathEnv: "C:\\bin;D:\\tools" };
  const found = resolveServerCommand([], true, false, context(["D:\\tools/todo-ls.exe", "D:\\tools\\todo-ls.exe"], win));
  assert.match(found.kind === "command" ? found.line.command : "", /^D:\\tools[\\/]todo-ls\.exe$/);
  const module = resolveServerCommand([], false, false, context([], win));
  assert.deepEqual(module.kind === "command" && module.line, command("python", ["-m", "todo_ls"]));
});
