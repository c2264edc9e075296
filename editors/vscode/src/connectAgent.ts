/**
 * "todo-ls: Connect an agent…": runs the server's own `todo-ls install <host>` for a workspace
 * folder with the executable the extension runs the server with (the bundled one included), so
 * a user who installed only the extension needs nothing else.
 */

import { execFile } from "node:child_process";
import * as vscode from "vscode";
import { AGENT_HOSTS, Scope, installCommand, installSummary } from "./agentInstall";
import { CommandLine } from "./serverCommand";

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(line: CommandLine, cwd: string): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(line.command, line.args, { cwd, timeout: 60_000, windowsHide: true }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
      resolve({ code, stdout, stderr: error !== null && stderr === "" ? error.message : stderr });
    });
  });
}

/** The command: pick the host, the scope and (with several) the folder, run the install, tell. */
export async function connectAgent(server: CommandLine | undefined, output: vscode.OutputChannel): Promise<void> {
  if (server === undefined) {
    throw new Error('the server has not started, so there is no todo-ls to install with (see the output "todo-ls")');
  }
  const host = await vscode.window.showQuickPick(
    AGENT_HOSTS.map((h) => ({ label: h.label, description: h.id, detail: h.detail, host: h })),
    { title: "todo-ls: connect which agent?", matchOnDescription: true },
  );
  if (host === undefined) {
    return;
  }
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0) {
    throw new Error("open a folder first: the agent is connected for a project");
  }
  const scopes: (vscode.QuickPickItem & { scope: Scope })[] = [
    { label: "This project", description: "project", detail: "written into the workspace folder (shared with the repository)", scope: "project" },
    { label: "Every project of mine", description: "user", detail: "written into your own configuration of the agent", scope: "user" },
  ];
  const scope = await vscode.window.showQuickPick(scopes, { title: `todo-ls: connect ${host.label} for…` });
  if (scope === undefined) {
    return;
  }
  const folder = folders.length === 1 ? folders[0] : await vscode.window.showWorkspaceFolderPick({ placeHolder: "todo-ls: which folder?" });
  if (folder === undefined) {
    return;
  }
  const line = installCommand(server, host.host.id, scope.scope, folder.uri.fsPath);
  output.appendLine(`[todo-ls] ${[line.command, ...line.args].join(" ")}`);
  const result = await run(line, folder.uri.fsPath);
  output.appendLine(`${result.stdout}${result.stderr}`.trimEnd());
  if (result.code !== 0) {
    const why = result.stderr.trim().split(/\r?\n/).pop() ?? `exit ${String(result.code)}`;
    const choice = await vscode.window.showErrorMessage(`todo-ls: connecting ${host.label} failed: ${why}`, "Show output");
    if (choice !== undefined) {
      output.show();
    }
    return;
  }
  const { changed, next } = installSummary(result.stdout);
  const choice = await vscode.window.showInformationMessage(`todo-ls: ${changed} ${next}`.trim(), "Show output");
  if (choice !== undefined) {
    output.show();
  }
}
