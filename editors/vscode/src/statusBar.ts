/** The status bar item: the latest `todoLs/status` of the active editor's workspace folder. */

import * as vscode from "vscode";
import { PaletteCommand } from "./constants";
import { StatusPayload, tooltipLines } from "./status";

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  /** Latest payload per workspace folder URI (the server sends one per folder). */
  private readonly byWorkspace = new Map<string, StatusPayload>();
  private lastWorkspace: string | undefined;
  private running = false;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor() {
    this.item = vscode.window.createStatusBarItem("todoLs.status", vscode.StatusBarAlignment.Left, 100);
    this.item.name = "todo-ls";
    this.subscriptions.push(vscode.window.onDidChangeActiveTextEditor(() => this.render()));
  }

  /** The payload shown now: the active editor's folder, else the one that changed last. */
  current(): StatusPayload | undefined {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const folder = uri ? vscode.workspace.getWorkspaceFolder(uri) : undefined;
    const key = folder?.uri.toString();
    return (key !== undefined ? this.byWorkspace.get(key) : undefined) ?? (this.lastWorkspace !== undefined ? this.byWorkspace.get(this.lastWorkspace) : undefined);
  }

  /** Every folder's latest payload (for commands that work across folders). */
  all(): StatusPayload[] {
    return [...this.byWorkspace.values()];
  }

  update(payload: StatusPayload): void {
    this.byWorkspace.set(payload.workspace, payload);
    this.lastWorkspace = payload.workspace;
    this.render();
  }

  showStarting(): void {
    this.running = false;
    this.item.text = "$(sync~spin) todo-ls";
    this.item.tooltip = "todo-ls: starting the server";
    this.item.command = PaletteCommand.showOutput;
    this.item.backgroundColor = undefined;
    this.item.show();
  }

  showRunning(): void {
    this.running = true;
    this.render();
  }

  showStopped(): void {
    this.running = false;
    this.byWorkspace.clear();
    this.item.text = "todo-ls: stopped";
    this.item.tooltip = "The todo-ls server is not running. Click to see its output; run \"todo-ls: Restart server\" to start it again.";
    this.item.command = PaletteCommand.showOutput;
    this.item.backgroundColor = new vscode.ThemeColor("statusBarItem.warningBackground");
    this.item.show();
  }

  /** No server to start (no Python, a failed setup): `text` says so, the tooltip says why. */
  showUnavailable(text: string, tooltip: string): void {
    this.running = false;
    this.byWorkspace.clear();
    this.item.text = text;
    this.item.tooltip = `${tooltip}\n\nClick to see the output.`;
    this.item.command = PaletteCommand.showOutput;
    this.item.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
    this.item.show();
  }

  private render(): void {
    if (!this.running) {
      return;
    }
    const status = this.current();
    this.item.backgroundColor = undefined;
    if (status === undefined) {
      this.item.text = "📋 todo-ls";
      this.item.tooltip = "todo-ls: waiting for the first status";
      this.item.command = PaletteCommand.showOutput;
    } else {
      this.item.text = status.text;
      const others = this.all().filter((other) => other.workspace !== status.workspace);
      this.item.tooltip = ["todo-ls — click for the open items", "", ...tooltipLines(status, others)].join("\n");
      this.item.command = PaletteCommand.list;
    }
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
    for (const s of this.subscriptions) {
      s.dispose();
    }
  }
}
