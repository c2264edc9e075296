/**
 * The server bundled with the extension: the platform's .vsix carries todo-ls and its
 * dependencies unpacked in `server/` (scripts/unpack_server.py: `site/` shared by every
 * supported Python, `py<X.Y>/` the compiled libraries per version, the launcher `todo-ls.py` and
 * `manifest.json`). This module finds a Python those fit and gives the command line that runs
 * the launcher with it: nothing is installed, nothing downloaded, no venv made. No `vscode`
 * here: processes are run through an injected function.
 */

import { promises as fs } from "node:fs";
import * as path from "node:path";
import { CommandContext, CommandLine, findOnPath } from "./serverCommand";

/** What scripts/unpack_server.py wrote next to the unpacked server. */
export interface Manifest {
  /** The carried todo-ls version (the extension's own version). */
  version: string;
  /** VS Code's platform name, e.g. `linux-x64`. */
  target: string;
  /** `major.minor` of every Python the compiled libraries were unpacked for, oldest first. */
  pythons: string[];
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

const MANIFEST = "manifest.json";
const LAUNCHER = "todo-ls.py";
const PROBE = "import sys; print('%d.%d' % sys.version_info[:2]); print(sys.executable)";
const PROBE_TIMEOUT_MS = 15_000;

/** The manifest of the carried server, or undefined for a build without one (a developer's). */
export async function readManifest(server: string): Promise<Manifest | undefined> {
  let text: string;
  try {
    text = await fs.readFile(path.join(server, MANIFEST), "utf8");
  } catch {
    return undefined;
  }
  const value = JSON.parse(text) as Partial<Manifest>;
  if (typeof value.version !== "string" || !Array.isArray(value.pythons)) {
    throw new Error(`${path.join(server, MANIFEST)} is not a server manifest`);
  }
  return { version: value.version, target: String(value.target), pythons: value.pythons.map(String) };
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

/**
 * The carried server's command line for `python`: its interpreter runs the launcher in
 * `server/`, which puts the unpacked libraries for that version first on `sys.path`. `-I`:
 * neither the workspace folder (the server's current directory) nor PYTHONPATH can shadow them.
 * Nothing is installed, so the first start is as fast as any later one.
 */
export function carriedServer(server: string, python: Python): CommandLine {
  return { command: python.executable, args: ["-I", path.join(server, LAUNCHER)] };
}

/** Whether `server/` holds the compiled libraries for `python` (a damaged install may not). */
export async function carriesPython(server: string, python: Python): Promise<boolean> {
  return await exists(path.join(server, `py${python.version}`));
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Frees the space of the venvs earlier extension versions set up on their first start
 * (`<storage>/server`): this version needs none.
 */
export async function removeOldVenvs(storage: string, log: (line: string) => void): Promise<void> {
  const old = path.join(storage, "server");
  if (await exists(old)) {
    try {
      await fs.rm(old, { recursive: true, force: true });
      log(`Removed ${old} (the venvs of an earlier version)`);
    } catch {
      // A venv still used by a window of the old version may refuse (Windows): next time.
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
