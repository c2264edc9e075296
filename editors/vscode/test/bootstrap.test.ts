import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import {
  Manifest,
  ProcessResult,
  Python,
  SetupError,
  findPython,
  noPythonMessage,
  pythonCandidates,
  readManifest,
  setUpServer,
  venvName,
} from "../src/bootstrap";
import { CommandContext } from "../src/serverCommand";

const PYTHONS = ["3.10", "3.11", "3.12", "3.13"];
const MANIFEST: Manifest = { version: "0.1.0", target: "linux-x64", pythons: PYTHONS, pip: "pip-26.3-py3-none-any.whl" };
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

/** Stands in for Python: `-m venv` makes the venv's interpreter, pip "installs", --version answers. */
function fakePython(failInstall = false): { calls: string[][]; run: (c: string, a: string[]) => Promise<ProcessResult> } {
  const calls: string[][] = [];
  const run = (command: string, args: string[]): Promise<ProcessResult> => {
    calls.push([command, ...args]);
    if (args.includes("venv")) {
      const venv = args[args.length - 1];
      mkdirSync(path.join(venv, "bin"), { recursive: true });
      writeFileSync(path.join(venv, "bin", "python"), "");
      return Promise.resolve(ok());
    }
    if (args.includes("install")) {
      return Promise.resolve(failInstall ? { code: 1, stdout: "", stderr: "ERROR: No matching distribution found for pydantic-core" } : ok());
    }
    return Promise.resolve(ok("todo-ls 0.1.0\n"));
  };
  return { calls, run };
}

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

test("first start sets up a venv offline from the bundled wheels; the second reuses it", async () => {
  const dir = storage();
  const wheels = path.join(dir, "ext", "wheels");
  const python = fakePython();
  const options = { storage: dir, wheels, manifest: MANIFEST, python: PYTHON, platform: "linux" as const, run: python.run, log: () => undefined };
  const first = await setUpServer(options);
  const venv = path.join(dir, "server", venvName(MANIFEST, PYTHON));
  assert.deepEqual(first, { command: { command: path.join(venv, "bin", "python"), args: ["-I", "-m", "todo_ls"] }, venv, reused: false });
  assert.equal(python.calls.length, 3);
  assert.deepEqual(python.calls[0].slice(0, 4), ["/usr/bin/python3", "-m", "venv", "--without-pip"]);
  const install = python.calls[1];
  assert.equal(install[1], path.join(wheels, MANIFEST.pip, "pip"), "pip runs from its bundled wheel");
  for (const flag of ["--isolated", "--no-index", "--find-links", wheels, "todo-ls==0.1.0"]) {
    assert.ok(install.includes(flag), `${flag} in ${install.join(" ")}`);
  }
  assert.deepEqual(readdirSync(path.join(dir, "server")), [path.basename(venv)], "no temporary folder left");

  const second = await setUpServer(options);
  assert.deepEqual(second, { ...first, reused: true });
  assert.equal(python.calls.length, 3, "nothing runs on the second start");
});

test("each interpreter gets its own venv; a new extension version replaces the old venvs", async () => {
  const dir = storage();
  const python = fakePython();
  const base = { storage: dir, wheels: path.join(dir, "wheels"), platform: "linux" as const, run: python.run, log: () => undefined };
  const a = await setUpServer({ ...base, manifest: MANIFEST, python: PYTHON });
  const b = await setUpServer({ ...base, manifest: MANIFEST, python: { ...PYTHON, executable: "/opt/py/bin/python3.12" } });
  assert.notEqual(a.venv, b.venv);
  const upgraded = await setUpServer({ ...base, manifest: { ...MANIFEST, version: "0.2.0" }, python: PYTHON });
  assert.deepEqual(readdirSync(path.join(dir, "server")), [path.basename(upgraded.venv)]);
  assert.match(path.basename(upgraded.venv), /^0\.2\.0-py3\.12-[0-9a-f]{10}$/);
});

test("a failed install says which step failed, keeps pip's words for the log and leaves no venv", async () => {
  const dir = storage();
  const python = fakePython(true);
  const options = { storage: dir, wheels: path.join(dir, "wheels"), manifest: MANIFEST, python: PYTHON, platform: "linux" as const, run: python.run, log: () => undefined };
  await assert.rejects(setUpServer(options), (error: unknown) => {
    assert.ok(error instanceof SetupError);
    assert.equal(error.message, "Installing todo-ls from the bundled wheels exited with 1");
    assert.match(error.detail, /No matching distribution found for pydantic-core/);
    return true;
  });
  assert.deepEqual(readdirSync(path.join(dir, "server")), []);
});

test("readManifest: none in a build without wheels, an error for a broken one", async () => {
  const dir = storage();
  assert.equal(await readManifest(dir), undefined);
  writeFileSync(path.join(dir, "manifest.json"), JSON.stringify(MANIFEST));
  assert.deepEqual(await readManifest(dir), MANIFEST);
  writeFileSync(path.join(dir, "manifest.json"), "{}");
  await assert.rejects(readManifest(dir), /is not a wheel manifest/);
  assert.ok(existsSync(path.join(dir, "manifest.json")));
});
