/**
 * The server bundled with the extension: the platform's .vsix carries todo-ls and its dependencies
 * as wheels (`wheels/`, described by `wheels/manifest.json`). On first start this module finds a
 * Python those wheels fit, makes a venv in the extension's storage and installs todo-ls into it
 * with pip run from its own bundled wheel: no index, nothing downloaded. Later starts find the
 * venv ready and reuse it. No `vscode` here: processes are run through an injected function.
 */

import { createHash, randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import { CommandContext, CommandLine, findOnPath } from "./serverCommand";

/** What scripts/build-wheelhouse.sh wrote next to the wheels. */
export interface Manifest {
  /** The todo-ls version of the bundled wheel (the extension's own version). */
  version: string;
  /** VS Code's platform name, e.g. `linux-x64`. */
  target: string;
  /** `major.minor` of every Python the compiled wheels were bundled for, oldest first. */
  pythons: string[];
  /** File name of the bundled pip wheel. */
  pip: string;
}

export interface ProcessResult {
  /** Exit code; `null` when the process could not start or was killed (timeout). */
  code: number | null;
  stdout: string;
  stderr: string;
}

export type Run = (command: string, args: string[], timeoutMs: number) => Promise<ProcessResult>;

/** A way to start some Python, and who suggested it (for the messages). */
export interface Candidate {
  command: string[];
  from: string;
}

/** A Python that runs and that the bundled wheels fit. */
export interface Python {
  command: string[];
  /** `sys.executable`: the real interpreter, which names the venv. */
  executable: string;
  /** `major.minor`. */
  version: string;
  from: string;
}

export interface FoundPython {
  python: Python | undefined;
  /** One line per candidate that did not fit, e.g. `python3 on PATH is Python 3.8`. */
  rejected: string[];
}

export interface SetupOptions {
  /** The extension's global storage folder. */
  storage: string;
  /** The folder with the wheels and manifest.json. */
  wheels: string;
  manifest: Manifest;
  python: Python;
  platform: NodeJS.Platform;
  run: Run;
  log: (line: string) => void;
}

export interface SetupResult {
  command: CommandLine;
  /** The venv folder. */
  venv: string;
  /** True when an earlier start had set it up already. */
  reused: boolean;
}

/** A setup step that failed: `message` for the user, `detail` (pip's output…) for the log. */
export class SetupError extends Error {
  constructor(
    message: string,
    readonly detail: string,
  ) {
    super(message);
  }
}

const MANIFEST = "manifest.json";
/** Written last into a venv that works: its presence is what "set up" means. */
const READY = "todo-ls-ready.json";
const PROBE = "import sys; print('%d.%d' % sys.version_info[:2]); print(sys.executable)";
const PROBE_TIMEOUT_MS = 15_000;
const VENV_TIMEOUT_MS = 120_000;
const INSTALL_TIMEOUT_MS = 600_000;

/** The manifest of the bundled wheels, or undefined for a build without them (a developer's). */
export async function readManifest(wheels: string): Promise<Manifest | undefined> {
  let text: string;
  try {
    text = await fs.readFile(path.join(wheels, MANIFEST), "utf8");
  } catch {
    return undefined;
  }
  const value = JSON.parse(text) as Partial<Manifest>;
  if (typeof value.version !== "string" || !Array.isArray(value.pythons) || typeof value.pip !== "string") {
    throw new Error(`${path.join(wheels, MANIFEST)} is not a wheel manifest`);
  }
  return { version: value.version, target: String(value.target), pythons: value.pythons.map(String), pip: value.pip };
}

/**
 * Where to look for Python, in order: the interpreter selected in the Python extension, then
 * `python3`, `py -3` (the Windows launcher) and `python` on PATH.
 */
export function pythonCandidates(pythonExtension: string[] | undefined, ctx: CommandContext): Candidate[] {
  const candidates: Candidate[] = [];
  if (pythonExtension !== undefined && pythonExtension.length > 0) {
    candidates.push({ command: pythonExtension, from: "the Python extension's interpreter" });
  }
  const names = ctx.platform === "win32" ? ["python3", "py", "python"] : ["python3", "python"];
  for (const name of names) {
    const found = findOnPath(name, ctx);
    if (found !== undefined) {
      candidates.push({ command: name === "py" ? [found, "-3"] : [found], from: `${name} on PATH` });
    }
  }
  return candidates;
}

/** The first candidate that runs and is one of the `supported` versions. */
export async function findPython(candidates: Candidate[], supported: string[], run: Run): Promise<FoundPython> {
  const rejected: string[] = [];
  for (const candidate of candidates) {
    const [command, ...args] = candidate.command;
    const result = await run(command, [...args, "-c", PROBE], PROBE_TIMEOUT_MS);
    const [version, executable] = result.stdout.trim().split(/\r?\n/);
    if (result.code !== 0 || version === undefined || executable === undefined) {
      rejected.push(`${candidate.from} (${candidate.command.join(" ")}) does not run`);
    } else if (!supported.includes(version)) {
      rejected.push(`${candidate.from} is Python ${version}`);
    } else {
      return { python: { ...candidate, executable, version }, rejected };
    }
  }
  return { python: undefined, rejected };
}

/** The venv's folder name: one per extension version and interpreter. */
export function venvName(manifest: Manifest, python: Python): string {
  const interpreter = createHash("sha256").update(python.executable).digest("hex").slice(0, 10);
  return `${manifest.version}-py${python.version}-${interpreter}`;
}

export function venvPython(venv: string, platform: NodeJS.Platform): string {
  return platform === "win32" ? path.join(venv, "Scripts", "python.exe") : path.join(venv, "bin", "python");
}

/**
 * The server's command line in the venv. `-I`: neither the workspace folder (the server's
 * current directory) nor PYTHONPATH can shadow the installed packages.
 */
export function serverInVenv(venv: string, platform: NodeJS.Platform): CommandLine {
  return { command: venvPython(venv, platform), args: ["-I", "-m", "todo_ls"] };
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

function tail(result: ProcessResult): string {
  return `${result.stdout}\n${result.stderr}`.trim().split(/\r?\n/).slice(-15).join("\n");
}

async function step(run: Run, what: string, command: string, args: string[], timeoutMs: number): Promise<ProcessResult> {
  const result = await run(command, args, timeoutMs);
  if (result.code !== 0) {
    const why = result.code === null ? "did not finish" : `exited with ${result.code}`;
    throw new SetupError(`${what} ${why}`, `$ ${[command, ...args].join(" ")}\n${tail(result)}`);
  }
  return result;
}

/**
 * The venv with the bundled todo-ls for `python`: reused when an earlier start finished it, else
 * built in a temporary folder and renamed into place once it works (two windows starting at once
 * both end up with one working venv). Venvs of other extension versions are removed afterwards.
 */
export async function setUpServer(options: SetupOptions): Promise<SetupResult> {
  const { storage, wheels, manifest, python, platform, run, log } = options;
  const root = path.join(storage, "server");
  const venv = path.join(root, venvName(manifest, python));
  if ((await exists(path.join(venv, READY))) && (await exists(venvPython(venv, platform)))) {
    return { command: serverInVenv(venv, platform), venv, reused: true };
  }
  await fs.mkdir(root, { recursive: true });
  const building = `${venv}.tmp-${randomBytes(4).toString("hex")}`;
  try {
    log(`Setting up the server with Python ${python.version} (${python.executable}, ${python.from}) in ${venv}`);
    const [command, ...args] = python.command;
    // Without pip: it comes from the bundled wheel, so the setup needs neither ensurepip (a
    // separate package on Debian) nor the network.
    await step(run, "Creating the venv", command, [...args, "-m", "venv", "--without-pip", building], VENV_TIMEOUT_MS);
    const interpreter = venvPython(building, platform);
    await step(run, "Installing todo-ls from the bundled wheels", interpreter, [
      path.join(wheels, manifest.pip, "pip"),
      "install",
      // No configuration, no index: only the wheels shipped with the extension.
      "--isolated",
      "--no-index",
      "--find-links",
      wheels,
      "--only-binary=:all:",
      "--disable-pip-version-check",
      "--no-input",
      "--no-warn-script-location",
      `todo-ls==${manifest.version}`,
    ], INSTALL_TIMEOUT_MS);
    const version = await step(run, "The installed server", interpreter, ["-I", "-m", "todo_ls", "--version"], PROBE_TIMEOUT_MS);
    const ready = { version: manifest.version, python: python.version, executable: python.executable, server: version.stdout.trim() };
    await fs.writeFile(path.join(building, READY), JSON.stringify(ready, null, 2) + "\n");
    try {
      await fs.rename(building, venv);
    } catch (error) {
      // Another window finished first: use its venv.
      if (!(await exists(path.join(venv, READY)))) {
        throw error;
      }
    }
  } finally {
    await fs.rm(building, { recursive: true, force: true });
  }
  await removeOtherVersions(root, manifest.version, log);
  return { command: serverInVenv(venv, platform), venv, reused: false };
}

/** Frees the space of the venvs earlier extension versions set up (after an upgrade). */
async function removeOtherVersions(root: string, version: string, log: (line: string) => void): Promise<void> {
  for (const entry of await fs.readdir(root)) {
    if (!entry.startsWith(`${version}-`)) {
      // A venv still used by a window of the old version may refuse (Windows): try next time.
      await fs.rm(path.join(root, entry), { recursive: true, force: true }).catch(() => undefined);
      log(`Removed ${path.join(root, entry)} (set up by another version)`);
    }
  }
}

/** The supported versions as a range for people, e.g. `3.10–3.13`. */
export function versionRange(pythons: string[]): string {
  return pythons.length > 1 ? `${pythons[0]}–${pythons[pythons.length - 1]}` : (pythons[0] ?? "3");
}

/** What to tell a user without a suitable Python: what was found and what to install. */
export function noPythonMessage(supported: string[], rejected: string[], platform: NodeJS.Platform): string {
  const newest = supported[supported.length - 1] ?? "3";
  const install =
    platform === "win32"
      ? `Install Python ${newest} from python.org or the Microsoft Store`
      : platform === "darwin"
        ? `Install Python ${newest} from python.org or with Homebrew (brew install python@${newest})`
        : `Install Python ${versionRange(supported)} with your package manager (e.g. sudo apt install python3)`;
  const found = rejected.length > 0 ? `found ${rejected.join("; ")}` : "found no Python on PATH";
  return (
    `todo-ls needs Python ${versionRange(supported)} to run its language server and ${found}. ` +
    `${install}, or select one in the Python extension, then run "todo-ls: Restart server".`
  );
}
