import assert from "node:assert/strict";
import { test } from "node:test";
import { CommandContext, resolveServerCommand } from "../src/serverCommand";

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

test("the setting wins and its variables are expanded", () => {
  const cmd = resolveServerCommand(["~/venv/bin/python", "-m", "todo_ls", "--root", "${workspaceFolder}/x"], context([]));
  assert.deepEqual(cmd, { command: "/home/u/venv/bin/python", args: ["-m", "todo_ls", "--root", "/home/u/project/x"] });
});

test("an empty setting finds todo-ls on PATH in PATH order", () => {
  const cmd = resolveServerCommand([], context(["/home/u/.local/bin/todo-ls", "/opt/todo-ls"]));
  assert.deepEqual(cmd, { command: "/home/u/.local/bin/todo-ls", args: [] });
});

test("blank entries do not count as a command", () => {
  const cmd = resolveServerCommand(["", "  "], context(["/usr/local/bin/todo-ls"]));
  assert.equal(cmd.command, "/usr/local/bin/todo-ls");
});

test("without todo-ls on PATH the Python module is started", () => {
  assert.deepEqual(resolveServerCommand([], context([])), { command: "python3", args: ["-m", "todo_ls"] });
});

test("Windows looks for todo-ls.exe with ; separators and falls back to python", () => {
  const win = { platform: "win32" as const, pathEnv: "C:\\bin;D:\\tools" };
  const found = resolveServerCommand([], context(["D:\\tools/todo-ls.exe", "D:\\tools\\todo-ls.exe"], win));
  assert.match(found.command, /^D:\\tools[\\/]todo-ls\.exe$/);
  assert.deepEqual(resolveServerCommand([], context([], win)), { command: "python", args: ["-m", "todo_ls"] });
});
