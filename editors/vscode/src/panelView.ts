/**
 * The todo-ls tree view in the Explorer: subscribed files with their items (native checkboxes),
 * then the agent sessions with their own todos. The nodes come from panel.ts; this file feeds it
 * and turns clicks, ticks and inline actions into the server's commands.
 *
 * It stays as fast with 20,000 files as with one (docs/vscode.md, "A big workspace"): each reload
 * (after a `todoLs/status`) asks for the counts and the first files by path only
 * (`todoLs.list {limit: 0, filesOffset, filesLimit}`), and a file's items are read when it is
 * expanded (its document symbols, or `todoLs.list {uri}`), so the server reads the files a user
 * looks at and no other.
 */

import * as vscode from "vscode";
import { EditResult } from "./answers";
import { PaletteCommand, ServerCommand } from "./constants";
import { TodoLsClient } from "./client";
import { reportFailure } from "./commands";
import { FILES_PAGE, FileContent, FolderInput, PanelNode, SESSION_ICONS, SymbolLike, fileChildren, panelRoots, tickRequest, withStatus } from "./panel";
import { ListResult, OpenItem, SessionItem, StatusPayload, isSessionItem } from "./status";

export const PANEL_VIEW = "todoLs.panel";

/** Context keys the view's menus and welcome read (package.json). */
const HIDE_DONE_KEY = "todoLs.panel.hideDone";
const STATE_KEY = "todoLs.panel.state";

/** Ids of the commands the view's nodes and menus run (package.json). */
export const PanelCommand = {
  refresh: "todoLs.panel.refresh",
  hideDone: "todoLs.panel.hideDone",
  showDone: "todoLs.panel.showDone",
  open: "todoLs.panel.open",
  nudge: "todoLs.panel.nudge",
  pause: "todoLs.panel.pause",
  resume: "todoLs.panel.resume",
  unsubscribe: "todoLs.panel.unsubscribe",
  moreFiles: "todoLs.panel.moreFiles",
} as const;

/** The most files one `todoLs.list` answer lists (the server's `filesLimit` maximum). */
const FILES_PER_REQUEST = 1000;

/** One folder as the view holds it: `loaded` is filled as files are expanded. */
interface HeldFolder extends FolderInput {
  loaded: Map<string, FileContent>;
}

/** Coalesces a burst of statuses (the server sends up to ~10 a second) into one reload. */
const RELOAD_DELAY_MS = 150;

export class PanelView implements vscode.TreeDataProvider<PanelNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<PanelNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<PanelNode>;
  private readonly subscriptions: vscode.Disposable[] = [];
  /** Latest input per workspace folder URI. */
  private readonly folders = new Map<string, HeldFolder>();
  /** Files listed per workspace folder (`folderKey`): FILES_PAGE, and FILES_PAGE more per "Show more". */
  private readonly shownFiles = new Map<string, number>();
  /** Bumped by each reload: a file read for an older one is shown, not kept. */
  private generation = 0;
  private readonly reading = new Map<string, Promise<FileContent | undefined>>();
  private hideDone = false;
  private reloadTimer: ReturnType<typeof setTimeout> | undefined;
  private reloading: Promise<void> | undefined;
  private reloadAgain = false;

  constructor(
    private readonly client: TodoLsClient,
    private readonly output: vscode.OutputChannel,
  ) {
    this.view = vscode.window.createTreeView(PANEL_VIEW, { treeDataProvider: this, showCollapseAll: true, manageCheckboxStateManually: true });
    void this.setState("starting");
    void vscode.commands.executeCommand("setContext", HIDE_DONE_KEY, false);
    this.subscriptions.push(
      this.view,
      this.changed,
      this.view.onDidChangeCheckboxState((event) => void reportFailure(this.output, () => this.ticked(event.items))),
      client.onStatus((status) => this.statusArrived(status)),
      client.onDidChangeRunning((running) => {
        if (running) {
          this.scheduleReload();
        } else {
          this.folders.clear();
          void this.setState("stopped");
          this.changed.fire(undefined);
        }
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.scheduleReload()),
    );
  }

  register(): vscode.Disposable[] {
    const table: [string, (node?: PanelNode) => Promise<void>][] = [
      [PanelCommand.refresh, async () => {
        await this.client.execute(ServerCommand.refresh, {});
        await this.reload();
      }],
      [PanelCommand.hideDone, () => this.setHideDone(true)],
      [PanelCommand.showDone, () => this.setHideDone(false)],
      [PanelCommand.nudge, (node) => this.sessionCommand(ServerCommand.nudge, node)],
      [PanelCommand.pause, (node) => this.sessionCommand(ServerCommand.pause, node)],
      [PanelCommand.resume, (node) => this.sessionCommand(ServerCommand.resume, node)],
      [PanelCommand.unsubscribe, (node) => this.unsubscribe(node)],
      [PanelCommand.moreFiles, (node) => this.moreFiles(node)],
    ];
    return [
      ...table.map(([id, run]) => vscode.commands.registerCommand(id, (node?: PanelNode) => reportFailure(this.output, () => run(node)))),
      vscode.commands.registerCommand(PanelCommand.open, (uri: string, line: number) => reportFailure(this.output, () => openLine(uri, line))),
    ];
  }

  async getChildren(node?: PanelNode): Promise<PanelNode[]> {
    if (node === undefined) {
      return panelRoots(this.orderedFolders(), this.options());
    }
    if (node.kind === "file" && !node.loaded) {
      // Expanded (by the user, or one of the first files): its items are read now.
      return fileChildren(await this.readFile(node.workspace, node.uri), node.uri, this.options());
    }
    return node.children;
  }

  getTreeItem(node: PanelNode): vscode.TreeItem {
    const collapsed = collapsibleState(node);
    const item = new vscode.TreeItem(node.label, collapsed);
    item.id = nodeId(node);
    switch (node.kind) {
      case "folder":
        item.iconPath = new vscode.ThemeIcon("root-folder");
        item.description = node.description;
        break;
      case "file":
        item.description = node.description;
        item.resourceUri = vscode.Uri.parse(node.uri);
        item.iconPath = node.missing ? new vscode.ThemeIcon("warning") : vscode.ThemeIcon.File;
        item.contextValue = "file";
        item.tooltip = node.missing ? `${node.label} does not exist (yet): it counts once created` : `${node.label}: ${node.description}`;
        if (!node.missing) {
          item.command = { command: PanelCommand.open, title: "Open", arguments: [node.uri, 0] };
        }
        break;
      case "heading":
        item.description = node.description;
        item.iconPath = new vscode.ThemeIcon("list-tree");
        item.command = { command: PanelCommand.open, title: "Open", arguments: [node.uri, node.line] };
        break;
      case "item":
        item.description = node.description;
        item.checkboxState = node.checked ? vscode.TreeItemCheckboxState.Checked : vscode.TreeItemCheckboxState.Unchecked;
        item.contextValue = "item";
        item.tooltip = `${node.label}\nline ${node.line + 1} · ${node.state}`;
        item.command = { command: PanelCommand.open, title: "Open", arguments: [node.uri, node.line] };
        break;
      case "agents":
        item.description = node.description;
        item.iconPath = new vscode.ThemeIcon("hubot");
        item.contextValue = "agents";
        break;
      case "session":
        item.description = node.description;
        item.tooltip = node.tooltip;
        item.iconPath = new vscode.ThemeIcon(SESSION_ICONS[node.state] ?? "circle-outline");
        item.contextValue = node.paused ? "session.paused" : "session";
        break;
      case "sessionItem":
        item.description = node.description;
        if (!node.readOnly) {
          item.checkboxState = node.checked ? vscode.TreeItemCheckboxState.Checked : vscode.TreeItemCheckboxState.Unchecked;
        }
        item.tooltip = node.readOnly ? `${node.name}\nThe agent keeps this list: ask it to update the item.` : node.name;
        break;
      case "hostError":
        item.description = node.description;
        item.tooltip = node.tooltip;
        item.iconPath = new vscode.ThemeIcon("debug-disconnect");
        break;
      case "hint":
        item.iconPath = new vscode.ThemeIcon("info");
        item.command = { command: node.command, title: node.label };
        break;
      case "more":
        item.iconPath = new vscode.ThemeIcon("ellipsis");
        item.command = { command: node.command, title: node.label, arguments: [node] };
        break;
    }
    return item;
  }

  /** Ticking a box: an item becomes done (or open again); a session item completed ↔ pending. */
  private async ticked(items: readonly [PanelNode, vscode.TreeItemCheckboxState][]): Promise<void> {
    for (const [node, box] of items) {
      let result: EditResult | undefined;
      if (node.kind === "item") {
        const { command, argument } = tickRequest(node, box === vscode.TreeItemCheckboxState.Checked);
        result = await this.client.execute(command, argument);
      } else if (node.kind === "sessionItem") {
        result = await this.client.execute(ServerCommand.toggle, { sessionID: node.sessionID, index: node.index, content: node.content });
      }
      if (result !== undefined && !result.applied) {
        void vscode.window.showWarningMessage(`todo-ls: "${node.label}" not changed: ${result.reason ?? "refused"}.`);
      }
    }
    // The status that follows the edit reloads the view; a refused edit must put the box back.
    this.scheduleReload();
  }

  private async sessionCommand(command: typeof ServerCommand.nudge | typeof ServerCommand.pause | typeof ServerCommand.resume, node?: PanelNode): Promise<void> {
    if (node?.kind !== "session") {
      return;
    }
    const result = await this.client.execute(command, { sessionID: node.id });
    const skipped = "skipped" in result ? result.skipped.map((s) => s.reason) : [];
    if (skipped.length > 0) {
      void vscode.window.showWarningMessage(`todo-ls: ${node.label}: ${skipped.join("; ")}.`);
    }
    this.scheduleReload();
  }

  private async unsubscribe(node?: PanelNode): Promise<void> {
    if (node?.kind !== "file") {
      return;
    }
    await this.client.execute(ServerCommand.unsubscribe, { uri: node.uri });
    this.scheduleReload();
  }

  /** "Show more": FILES_PAGE more files of that folder. */
  private async moreFiles(node?: PanelNode): Promise<void> {
    if (node?.kind !== "more") {
      return;
    }
    const key = folderKey(node.workspace);
    this.shownFiles.set(key, (this.shownFiles.get(key) ?? FILES_PAGE) + FILES_PAGE);
    await this.reload();
  }

  /** What one file holds, read once per reload (the view asks again after each status). */
  private readFile(workspace: string, uri: string): Promise<FileContent | undefined> {
    const generation = this.generation;
    const key = `${generation}\n${uri}`;
    const known = this.folders.get(workspace)?.loaded.get(uri);
    if (known !== undefined) {
      return Promise.resolve(known);
    }
    let reading = this.reading.get(key);
    if (reading === undefined) {
      reading = this.fetchFile(workspace, uri)
        .then((content) => {
          const folder = this.folders.get(workspace);
          if (content !== undefined && folder !== undefined && generation === this.generation) {
            folder.loaded.set(uri, content);
          }
          return content;
        })
        .catch((error: unknown) => {
          this.output.appendLine(`[todo-ls] The view could not read ${uri}: ${String(error)}`);
          return undefined;
        })
        .finally(() => this.reading.delete(key));
      this.reading.set(key, reading);
    }
    return reading;
  }

  private async fetchFile(workspace: string, uri: string): Promise<FileContent | undefined> {
    if (!this.client.isRunning) {
      return undefined;
    }
    if (this.client.supports("documentSymbol")) {
      const found = await this.client.request<SymbolLike[] | null>("textDocument/documentSymbol", { textDocument: { uri } });
      if (Array.isArray(found)) {
        return { symbols: found };
      }
    }
    const listed = await this.client.execute(ServerCommand.list, { workspace, uri });
    return { items: listed.items.filter((i): i is OpenItem => !isSessionItem(i)) };
  }

  private async setHideDone(hide: boolean): Promise<void> {
    this.hideDone = hide;
    await vscode.commands.executeCommand("setContext", HIDE_DONE_KEY, hide);
    this.changed.fire(undefined);
  }

  private options(): { hideDone: boolean; subscribeCommand: string; connectCommand: string; moreFilesCommand: string } {
    return { hideDone: this.hideDone, subscribeCommand: PaletteCommand.subscribe, connectCommand: PaletteCommand.connectAgent, moreFilesCommand: PanelCommand.moreFiles };
  }

  /** The folders in the window's order (statuses arrive in any order). */
  private orderedFolders(): FolderInput[] {
    const order = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString());
    const known = [...this.folders.values()].filter((f) => order.length === 0 || order.includes(f.workspace));
    return known.sort((a, b) => order.indexOf(a.workspace) - order.indexOf(b.workspace));
  }

  private statusArrived(status: StatusPayload): void {
    const known = this.folders.get(status.workspace);
    if (known !== undefined) {
      // Counts and sessions show at once; the files and items follow with the reload.
      this.folders.set(status.workspace, { ...known, list: withStatus(known.list, status) });
      this.changed.fire(undefined);
    }
    this.scheduleReload();
  }

  private scheduleReload(): void {
    if (this.reloadTimer !== undefined) {
      return;
    }
    this.reloadTimer = setTimeout(() => {
      this.reloadTimer = undefined;
      void this.reload();
    }, RELOAD_DELAY_MS);
  }

  /** Reads every folder's list and each subscribed file's symbols; one reload at a time. */
  private async reload(): Promise<void> {
    if (this.reloading !== undefined) {
      this.reloadAgain = true;
      return await this.reloading;
    }
    this.reloading = this.readAll().finally(() => {
      this.reloading = undefined;
    });
    await this.reloading;
    if (this.reloadAgain) {
      this.reloadAgain = false;
      await this.reload();
    }
  }

  private async readAll(): Promise<void> {
    if (!this.client.isRunning) {
      return;
    }
    const workspaces = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString());
    try {
      const fresh = new Map<string, HeldFolder>();
      for (const workspace of workspaces) {
        const list = await this.readFolder(workspace, this.shownFiles.get(folderKey(workspace)) ?? FILES_PAGE);
        fresh.set(list.workspace, { workspace: list.workspace, list, loaded: new Map() });
      }
      // What the files held may have changed: each expanded file is read again when the
      // tree asks for its children (only those the user sees).
      this.generation += 1;
      this.folders.clear();
      for (const [key, value] of fresh) {
        this.folders.set(key, value);
      }
    } catch (error) {
      this.output.appendLine(`[todo-ls] The view could not read the lists: ${String(error)}`);
    }
    const empty = this.folders.size > 0 && panelRoots(this.orderedFolders(), this.options()).length === 0;
    await this.setState(this.folders.size === 0 ? "starting" : empty ? "empty" : "ready");
    this.changed.fire(undefined);
  }

  /** A folder's counts, its first `shown` files by path (no file is read for them: the counts
   * are the server's), and its sessions' own items. */
  private async readFolder(workspace: string, shown: number): Promise<ListResult> {
    const first = await this.client.execute(ServerCommand.list, { workspace, limit: 0, filesOffset: 0, filesLimit: Math.min(shown, FILES_PER_REQUEST) });
    const files = [...first.files];
    while (files.length < Math.min(shown, first.filesTotal)) {
      const page = await this.client.execute(ServerCommand.list, { workspace, limit: 0, filesOffset: files.length, filesLimit: Math.min(shown - files.length, FILES_PER_REQUEST) });
      if (page.files.length === 0) {
        break;
      }
      files.push(...page.files);
    }
    const lists = await Promise.all(first.supervisor.sessions.map((session) => this.client.execute(ServerCommand.list, { workspace, sessionID: session.id })));
    const items: SessionItem[] = lists.flatMap((own) => own.items.filter(isSessionItem));
    return { ...first, files, items };
  }

  private async setState(state: "starting" | "stopped" | "empty" | "ready"): Promise<void> {
    await vscode.commands.executeCommand("setContext", STATE_KEY, state);
  }

  dispose(): void {
    if (this.reloadTimer !== undefined) {
      clearTimeout(this.reloadTimer);
    }
    for (const s of this.subscriptions) {
      s.dispose();
    }
  }
}

/** A stable id per node, so VS Code keeps what the user expanded across reloads. */
function nodeId(node: PanelNode): string {
  switch (node.kind) {
    case "folder":
    case "agents":
      return `${node.kind}:${node.workspace}`;
    case "file":
      return `file:${node.uri}`;
    case "heading":
    case "item":
      return `${node.kind}:${node.uri}:${node.line}`;
    case "session":
      return `session:${node.workspace}:${node.id}`;
    case "sessionItem":
      return `sessionItem:${node.sessionID}:${node.index}`;
    case "hostError":
      return `hostError:${node.workspace}`;
    case "hint":
      return `hint:${node.workspace}:${node.label}`;
    case "more":
      return `more:${node.workspace}`;
  }
}

/** A folder's key whichever side spelled its URI (VS Code and the server may escape it apart). */
function folderKey(uri: string): string {
  return vscode.Uri.parse(uri).fsPath;
}

/** Files start collapsed (the first few expanded) until read; a read file or another node with
 * nothing under it has no twisty. */
function collapsibleState(node: PanelNode): vscode.TreeItemCollapsibleState {
  if (node.kind === "file" && !node.loaded) {
    return node.expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed;
  }
  if (node.children.length === 0) {
    return vscode.TreeItemCollapsibleState.None;
  }
  return node.kind === "file" && !node.expanded ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded;
}

/** Opens `uri` with the cursor at the start of `line` (0-based). */
async function openLine(uri: string, line: number): Promise<void> {
  const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
  const position = new vscode.Position(line, 0);
  await vscode.window.showTextDocument(document, { selection: new vscode.Range(position, position), preview: false });
}
