/** The palette commands: each one calls a server command with the right argument object. */

import * as vscode from "vscode";
import { ItemState, PaletteCommand, STATES, ServerCommand } from "./constants";
import { EditResult } from "./answers";
import { TodoLsClient } from "./client";
import { connectAgent } from "./connectAgent";
import { ItemTarget, SessionTarget, folderName, openItemTargets, relativeTo, sessionItemTargets, sessionLine } from "./status";
import { StatusBar } from "./statusBar";

const STATE_LABELS: Record<ItemState, string> = {
  open: "Open  [ ]",
  inProgress: "In progress  [/]",
  blocked: "Blocked (waits for a human)  [?]",
  done: "Done  [x]",
  canceled: "Canceled  [~]",
};

function markdownEditor(): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  if (editor?.document.languageId !== "markdown") {
    void vscode.window.showWarningMessage("todo-ls: open a markdown file first.");
    return undefined;
  }
  return editor;
}

/** The distinct lines of every cursor, so a multi-cursor toggle edits each item once. */
function cursorLines(editor: vscode.TextEditor): number[] {
  return [...new Set(editor.selections.map((s) => s.active.line))].sort((a, b) => a - b);
}

function workspaceOf(uri: string): string {
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(uri));
  return folder?.uri.toString() ?? "";
}

/** Runs `run`; a failure is shown to the user (and logged) instead of failing silently in the log. */
export async function reportFailure(output: vscode.OutputChannel, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    output.appendLine(`[todo-ls] ${message}`);
    void vscode.window.showErrorMessage(`todo-ls: ${message}`);
  }
}

export class Commands {
  constructor(
    private readonly client: TodoLsClient,
    private readonly statusBar: StatusBar,
    private readonly output: vscode.OutputChannel,
  ) {}

  register(): vscode.Disposable[] {
    const table: [string, () => Promise<void>][] = [
      [PaletteCommand.toggle, () => this.editItems((uri, line) => this.client.execute(ServerCommand.toggle, { uri, line }))],
      [PaletteCommand.setState, () => this.setState()],
      [PaletteCommand.subscribe, () => this.subscription(ServerCommand.subscribe, "Subscribed")],
      [PaletteCommand.unsubscribe, () => this.subscription(ServerCommand.unsubscribe, "Unsubscribed")],
      [PaletteCommand.nudge, () => this.nudge()],
      [PaletteCommand.pause, () => this.pauseOrResume(ServerCommand.pause)],
      [PaletteCommand.resume, () => this.pauseOrResume(ServerCommand.resume)],
      [PaletteCommand.list, () => this.list()],
      [PaletteCommand.refresh, () => this.refresh()],
      [PaletteCommand.restart, () => this.client.restart()],
      [PaletteCommand.showOutput, () => Promise.resolve(this.output.show())],
      [PaletteCommand.connectAgent, async () => connectAgent(await this.client.serverLine(), this.output)],
      [PaletteCommand.foldDone, () => this.foldDone()],
    ];
    return table.map(([id, run]) => vscode.commands.registerCommand(id, () => reportFailure(this.output, run)));
  }

  private async editItems(edit: (uri: string, line: number) => Promise<EditResult>): Promise<void> {
    const editor = markdownEditor();
    if (editor === undefined) {
      return;
    }
    const uri = editor.document.uri.toString();
    for (const line of cursorLines(editor)) {
      const result = await edit(uri, line);
      if (!result.applied) {
        void vscode.window.showWarningMessage(`todo-ls: line ${line + 1}: ${result.reason ?? "no item changed"}`);
      }
    }
  }

  private async setState(): Promise<void> {
    const picked = await vscode.window.showQuickPick(
      STATES.map((state) => ({ label: STATE_LABELS[state], state })),
      { title: "todo-ls: set the state of the item(s) on the cursor line(s)" },
    );
    if (picked !== undefined) {
      await this.editItems((uri, line) => this.client.execute(ServerCommand.setState, { uri, line, state: picked.state }));
    }
  }

  private async subscription(command: typeof ServerCommand.subscribe | typeof ServerCommand.unsubscribe, verb: string): Promise<void> {
    const editor = markdownEditor();
    if (editor === undefined) {
      return;
    }
    const uri = editor.document.uri.toString();
    const result = await this.client.execute(command, { uri });
    const names = result.files.map((f) => relativeTo(workspaceOf(uri), f));
    void vscode.window.showInformationMessage(
      `todo-ls: ${verb} ${relativeTo(workspaceOf(uri), uri)}. Subscribed files: ${names.join(", ") || "none"}.`,
    );
  }

  /**
   * Asks which session of the shown folder when it has any; `{workspace}` means every session
   * of that folder, `{}` every session when no status arrived yet.
   */
  private async sessionArgument(action: string): Promise<Record<string, unknown> | undefined> {
    const status = this.statusBar.current();
    if (status === undefined) {
      return {};
    }
    const folder = { workspace: status.workspace };
    const sessions = status.supervisor.sessions;
    if (sessions.length === 0) {
      return folder;
    }
    const picked = await vscode.window.showQuickPick(
      [
        { label: `All sessions of ${folderName(status.workspace)}`, id: undefined as string | undefined },
        ...sessions.map((s) => ({ label: sessionLine(s), id: s.id })),
      ],
      { title: `todo-ls: ${action}` },
    );
    if (picked === undefined) {
      return undefined;
    }
    return picked.id === undefined ? folder : { sessionID: picked.id };
  }

  private async nudge(): Promise<void> {
    const arg = await this.sessionArgument("nudge which session?");
    if (arg === undefined) {
      return;
    }
    const result = await this.client.execute(ServerCommand.nudge, arg);
    const skipped = result.skipped.map((s) => `${s.sessionID ?? "all"}: ${s.reason}`);
    const text = [`nudged ${result.sent.length} session(s)`, ...(skipped.length ? [`skipped ${skipped.join("; ")}`] : [])];
    void vscode.window.showInformationMessage(`todo-ls: ${text.join(", ")}.`);
  }

  private async pauseOrResume(command: typeof ServerCommand.pause | typeof ServerCommand.resume): Promise<void> {
    const verb = command === ServerCommand.pause ? "pause" : "resume";
    const arg = await this.sessionArgument(`${verb} which session?`);
    if (arg === undefined) {
      return;
    }
    const result = await this.client.execute(command, arg);
    const states = result.sessions.map((s) => `${s.id} ${s.state}`).join(", ");
    void vscode.window.showInformationMessage(`todo-ls: ${verb}: ${states || result.reason || "no session"}.`);
  }

  /**
   * The open file items of every folder, then the items of the agent sessions' own lists.
   * Picking a file item jumps to it; picking a session item toggles it (completed ↔ pending).
   */
  private async list(): Promise<void> {
    const result = await this.client.execute(ServerCommand.list, {});
    const workspaces = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString());
    const files = openItemTargets(result, workspaces.length > 0 ? workspaces : [result.workspace]);
    const sessions = sessionItemTargets(result);
    if (files.length === 0 && sessions.length === 0) {
      void vscode.window.showInformationMessage(`todo-ls: no open items (${result.text}).`);
      return;
    }
    type Entry = vscode.QuickPickItem & { target?: ItemTarget | SessionTarget };
    const separator = (label: string): Entry => ({ label, kind: vscode.QuickPickItemKind.Separator });
    const entries: Entry[] = [
      ...(files.length > 0 ? [separator("Open items"), ...files.map((target) => ({ label: target.label, description: target.description, target }))] : []),
      ...(sessions.length > 0 ? [separator("Agent todo lists (pick to toggle)"), ...sessions.map((target) => ({ label: target.label, description: target.description, target }))] : []),
    ];
    const picked = await vscode.window.showQuickPick(entries, {
      title: `todo-ls: ${this.statusBar.current()?.text ?? result.text}`,
      matchOnDescription: true,
      placeHolder: "Go to an open item, or toggle an item of an agent's list",
    });
    const target = picked?.target;
    if (target === undefined) {
      return;
    }
    if (target.kind === "session") {
      await this.toggleSessionItem(target);
      return;
    }
    const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(target.uri));
    const position = new vscode.Position(target.line, 0);
    await vscode.window.showTextDocument(document, { selection: new vscode.Range(position, position) });
  }

  private async toggleSessionItem(target: SessionTarget): Promise<void> {
    const { sessionID, index, content } = target;
    const result = await this.client.execute(ServerCommand.toggle, { sessionID, index, content });
    if (result.applied) {
      void vscode.window.showInformationMessage(`todo-ls: "${content}" is now ${result.state ?? "changed"} (${sessionID}).`);
    } else {
      void vscode.window.showWarningMessage(`todo-ls: "${content}" not changed: ${result.reason ?? "refused"}.`);
    }
  }

  /** Folds each run of closed items the server reports (the first item of a run stays visible). */
  private async foldDone(): Promise<void> {
    const editor = markdownEditor();
    if (editor === undefined) {
      return;
    }
    const result = await this.client.execute(ServerCommand.foldDone, { uri: editor.document.uri.toString() });
    if (result.ranges.length === 0) {
      void vscode.window.showInformationMessage("todo-ls: no run of done items to fold in this file.");
      return;
    }
    // editor.fold folds the innermost region at each line: the run's, which starts on its first item.
    await vscode.commands.executeCommand("editor.fold", { levels: 1, direction: "down", selectionLines: result.ranges.map((r) => r.startLine) });
  }

  private async refresh(): Promise<void> {
    const result = await this.client.execute(ServerCommand.refresh, {});
    void vscode.window.showInformationMessage(`todo-ls: re-read ${result.files} subscribed file(s).`);
  }
}
