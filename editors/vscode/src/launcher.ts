/**
 * How the extension starts the server: the `todoLs.server.command` setting, the server bundled
 * with the extension (run from what it carries, see bootstrap.ts), or `todo-ls` on PATH when the
 * user asks for it. When no server can start, says so once and tells the status bar what to show.
 */

import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import {
  Manifest,
  Run,
  carriedServer,
  carriesPython,
  findPython,
  noPythonMessage,
  pythonCandidates,
  readManifest,
  removeOldVenvs,
} from "./bootstrap";
import { CONFIG_SECTION } from "./constants";
import { CommandContext, CommandLine, resolveServerCommand } from "./serverCommand";

/** A command line to start, or why there is none (status bar text and tooltip). */
export type Launch = { line: CommandLine } | { unavailable: { text: string; tooltip: string } };

/** The part of the Python extension's API used here (`ms-python.python` exports). */
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
    resolveEnvironment(environment: { path: string }): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  };
  settings?: { getExecutionDetails(resource?: vscode.Uri): { execCommand: string[] | undefined } };
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function commandContext(): CommandContext {
  return {
    pathEnv: process.env.PATH,
    home: os.homedir(),
    platform: process.platform,
    workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    isExecutable,
  };
}

/** The environment of the Python probes: no foreign PYTHONPATH or PYTHONHOME. */
function probeEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key !== "PYTHONPATH" && key !== "PYTHONHOME") {
      env[key] = value;
    }
  }
  return { ...env, PYTHONNOUSERSITE: "1" };
}

const run: Run = (command, args, timeoutMs) =>
  new Promise((resolve) => {
    execFile(
      command,
      args,
      { timeout: timeoutMs, env: probeEnv(), windowsHide: true, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        // A number: the exit code; a string (ENOENT…) or a kill: it did not run to the end.
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
        resolve({ code, stdout, stderr: error !== null && stderr === "" ? error.message : stderr });
      },
    );
  });

/** The interpreter selected in the Python extension, when it is installed. */
async function pythonExtensionInterpreter(log: (line: string) => void): Promise<string[] | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>("ms-python.python");
  if (extension === undefined) {
    return undefined;
  }
  const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    const environments = api?.environments;
    if (environments !== undefined) {
      const resolved = await environments.resolveEnvironment(environments.getActiveEnvironmentPath(resource));
      const executable = resolved?.executable?.uri?.fsPath;
      if (executable !== undefined) {
        return [executable];
      }
    }
    return api?.settings?.getExecutionDetails(resource).execCommand;
  } catch (error) {
    log(`The Python extension gave no interpreter: ${String(error)}`);
    return undefined;
  }
}

export class ServerLauncher {
  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly output: vscode.OutputChannel,
  ) {}

  private log(line: string): void {
    this.output.appendLine(`[todo-ls] ${line}`);
  }

  /** How to start the server now (after a settings change, the answer may differ). */
  async launch(): Promise<Launch> {
    try {
      return await this.choose();
    } catch (error) {
      const message = `todo-ls could not decide how to start its server: ${String(error)}`;
      this.log(message);
      this.tell(message);
      return { unavailable: { text: "todo-ls: stopped", tooltip: message } };
    }
  }

  private async choose(): Promise<Launch> {
    const config = vscode.workspace.getConfiguration(CONFIG_SECTION);
    const server = path.join(this.context.extensionPath, "server");
    const manifest = await readManifest(server);
    const choice = resolveServerCommand(
      config.get<string[]>("server.command", []),
      config.get<boolean>("server.useInstalled", false),
      manifest !== undefined,
      commandContext(),
    );
    if (choice.kind === "command") {
      return { line: choice.line };
    }
    if (choice.why !== "bundled") {
      this.log(`${choice.why}: using the bundled server`);
    }
    return await this.bundled(manifest as Manifest, server);
  }

  private async bundled(manifest: Manifest, server: string): Promise<Launch> {
    const log = (line: string): void => this.log(line);
    const started = Date.now();
    const candidates = pythonCandidates(await pythonExtensionInterpreter(log), commandContext());
    const { python, rejected } = await findPython(candidates, manifest.pythons, run);
    for (const line of rejected) {
      this.log(`Not usable: ${line}`);
    }
    if (python === undefined) {
      const message = noPythonMessage(manifest.pythons, rejected, process.platform);
      this.log(message);
      this.tell(message);
      return { unavailable: { text: "todo-ls: no Python", tooltip: message } };
    }
    if (!(await carriesPython(server, python))) {
      const message = `todo-ls's extension folder lacks its server for Python ${python.version} (${server}): reinstall the extension.`;
      this.log(message);
      this.tell(message);
      return { unavailable: { text: "todo-ls: damaged", tooltip: message } };
    }
    void removeOldVenvs(this.context.globalStorageUri.fsPath, log);
    this.log(`Bundled server with Python ${python.version} (${python.executable}, ${python.from}), found in ${Date.now() - started} ms`);
    return { line: carriedServer(server, python) };
  }

  private tell(message: string): void {
    void vscode.window.showErrorMessage(message, "Show output").then((choice) => {
      if (choice !== undefined) {
        this.output.show();
      }
    });
  }
}
