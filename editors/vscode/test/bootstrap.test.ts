import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import {
  Manifest,
  ProcessResult,
  Python,
  carriedServer,
  carriesPython,
  findPython,
  noPythonMessage,
  pythonCandidates,
  readManifest,
  removeOldVenvs,
} from "../src/bootstrap";
import { CommandContext } from "../src/serverCommand";

const PYTHONS = ["3.10", "3.11", "3.12", "3.13"];
const MANIFEST: Manifest = { version: "0.1.0", target: "linux-x64", pythons: PYTHONS };
const PYTHON: Python = { command: ["/usr/bin/python3"], executable: "/usr/bin/python3.12", version: "3.12", from: "python3 on PATH" };

function context(executables: string[], overrides: Partial<CommandContext> = {}): CommandContext {
  return {
    pathEnv: "/usr/local/bin:/usr/bin",
    home: "/home/u",
    platform: "linux",
    workspaceFolder: undefined,
    isExecutable: (file) => executables.includes(file),
    ...overrides,
  };
}

const ok = (stdout = ""): ProcessResult => ({ code: 0, stdout, stderr: "" });

function storage(): string {
  return mkdtempSync(path.join(tmpdir(), "todo-ls-bootstrap-"));
}

test("candidates: the Python extension's interpreter first, then python3 and python on PATH", () => {
  const found = pythonCandidates(["/venvs/a/bin/python"], context(["/usr/bin/python3", "/usr/local/bin/python"]));
  assert.deepEqual(found.map((c) => c.command), [["/venvs/a/bin/python"], ["/usr/bin/python3"], ["/usr/local/bin/python"]]);
  assert.equal(found[0].from, "the Python extension's interpreter");
});

test("candidates on Windows include the py launcher asking for Python 3", () => {
  const win = { platform: "win32" as const, pathEnv: "C:\\Windows" };
  const found = pythonCandidates(undefined, context([path.join("C:\\Windows", "py.exe")], win));
  assert.deepEqual(found.map((c) => c.command), [[path.join("C:\\Windows", "py.exe"), "-3"]]);
});

test("findPython skips what does not run or is not a bundled version, and says so", async () => {
  const answers: Record<string, ProcessResult> = {
    "/old/python3": ok("3.8\n/old/python3.8\n"),
    "/broken/python3": { code: null, stdout: "", stderr: "spawn ENOENT" },
    "/new/python3": ok("3.12\n/new/python3.12\n"),
  };
  const candidates = Object.keys(answers).map((command) => ({ command: [command], from: `${command} on PATH` }));
  const { python, rejected } = await findPython(candidates, PYTHONS, (command) => Promise.resolve(answers[command]));
  assert.deepEqual(python, { command: ["/new/python3"], executable: "/new/python3.12", version: "3.12", from: "/new/python3 on PATH" });
  assert.deepEqual(rejected, ["/old/python3 on PATH is Python 3.8", "/broken/python3 on PATH (/broken/python3) does not run"]);
});

test("findPython finds nothing when every Python is too old or too new", async () => {
  const { python, rejected } = await findPython(
    [{ command: ["python3"], from: "python3 on PATH" }, { command: ["python"], from: "python on PATH" }],
    PYTHONS,
    (command) => Promise.resolve(ok(command === "python3" ? "3.9\n/usr/bin/python3.9\n" : "3.14\n/opt/python3.14\n")),
  );
  assert.equal(python, undefined);
  assert.deepEqual(rejected, ["python3 on PATH is Python 3.9", "python on PATH is Python 3.14"]);
});

test("the no-Python message names the versions, what was found and what to install", () => {
  const linux = noPythonMessage(PYTHONS, ["python3 on PATH is Python 3.8"], "linux");
  assert.match(linux, /needs Python 3\.10–3\.13/);
  assert.match(linux, /found python3 on PATH is Python 3\.8/);
  assert.match(linux, /sudo apt install python3/);
  assert.match(linux, /"todo-ls: Restart server"/);
  assert.match(noPythonMessage(PYTHONS, [], "darwin"), /found no Python on PATH.*brew install python@3\.13/);
  assert.match(noPythonMessage(PYTHONS, [], "win32"), /Python 3\.13 from python\.org or the Microsoft Store/);
});

test("the carried server runs with the found interpreter, isolated, from the launcher; nothing is set up", () => {
  const server = path.join("/ext", "server");
  assert.deepEqual(carriedServer(server, PYTHON), { command: "/usr/bin/python3.12", args: ["-I", path.join(server, "todo-ls.py")] });
});

test("the server folder must hold the compiled libraries of the Python found", async () => {
  const server = storage();
  mkdirSync(path.join(server, "py3.12"));
  assert.equal(await carriesPython(server, PYTHON), true);
  assert.equal(await carriesPython(server, { ...PYTHON, version: "3.11" }), false);
});

test("the venvs an earlier version set up are removed; their absence is fine", async () => {
  const dir = storage();
  mkdirSync(path.join(dir, "server", "0.0.9-py3.12-abcdef0123", "bin"), { recursive: true });
  const logged: string[] = [];
  await removeOldVenvs(dir, (line) => logged.push(line));
  assert.equal(existsSync(path.join(dir, "server")), false);
  assert.equal(logged.length, 1);
  await removeOldVenvs(dir, (line) => logged.push(line));
  assert.equal(logged.length, 1);
});

test("readManifest: none in a build without a server, an error for a broken one", async () => {
  const dir = storage();
  assert.equal(await readManifest(dir), undefined);
  writeFileSync(path.join(dir, "manifest.json"), JSON.stringify(MANIFEST));
  assert.deepEqual(await readManifest(dir), MANIFEST);
  writeFileSync(path.join(dir, "manifest.json"), "{}");
  await assert.rejects(readManifest(dir), /is not a server manifest/);
  assert.ok(existsSync(path.join(dir, "manifest.json")));
});
