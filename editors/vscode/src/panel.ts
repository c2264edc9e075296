/**
 * The todo-ls tree view's model (pure: no `vscode`): what `todoLs.list`, the server's document
 * symbols and `todoLs/status` say, as the nodes the view shows (docs/vscode.md, "The todo-ls view").
 */

import { ServerCommand } from "./constants";
import { ListResult, OpenItem, SessionItem, StatusPayload, folderName, hostLine, hostName, hostProblem, isSessionItem, relativeTo, sessionSummary, shownText } from "./status";

/** The part of an LSP `DocumentSymbol` the view reads (0-based lines). */
export interface SymbolLike {
  name: string;
  detail?: string;
  range: { start: { line: number }; end: { line: number } };
  children?: SymbolLike[];
}

/** What the view read of one file when it was expanded: the server's document symbols, or
 * (a server without them) the file's open items from `todoLs.list {uri}`. */
export type FileContent = { symbols: SymbolLike[] } | { items: OpenItem[] };

/** What one workspace folder contributes: its latest list (its first files by path, the
 * sessions' own items) and what was read of each file expanded since. */
export interface FolderInput {
  workspace: string;
  list: ListResult;
  /** By file URI; a file absent here was not read yet: it shows collapsed, read when expanded. */
  loaded: ReadonlyMap<string, FileContent>;
}

export interface FolderNode {
  kind: "folder";
  workspace: string;
  label: string;
  description: string;
  children: PanelNode[];
}

export interface FileNode {
  kind: "file";
  workspace: string;
  uri: string;
  label: string;
  description: string;
  missing: boolean;
  /** Its items were read: `children` holds them (else they are read when it is expanded). */
  loaded: boolean;
  /** Shown expanded at first (the first files of a folder; VS Code keeps what the user chose). */
  expanded: boolean;
  children: PanelNode[];
}

export interface HeadingNode {
  kind: "heading";
  uri: string;
  line: number;
  label: string;
  description: string;
  children: PanelNode[];
}

export interface ItemNode {
  kind: "item";
  uri: string;
  line: number;
  label: string;
  /** The item's text as the server listed it, sent with a toggle so the item is found where it
   * moved: its markdown from `todoLs.list`, its outline name from document symbols (the
   * server accepts either: docs/status-and-commands.md, "Which item a toggle changes"). */
  text: string;
  state: string;
  /** Closed (done or canceled): the box is ticked. */
  checked: boolean;
  description: string;
  children: PanelNode[];
}

export interface AgentsNode {
  kind: "agents";
  workspace: string;
  label: string;
  description: string;
  children: PanelNode[];
}

export interface SessionNode {
  kind: "session";
  workspace: string;
  id: string;
  label: string;
  description: string;
  tooltip: string;
  state: string;
  paused: boolean;
  children: PanelNode[];
}

export interface SessionItemNode {
  kind: "sessionItem";
  sessionID: string;
  index: number;
  /** As listed: sent with a toggle. */
  content: string;
  /** What the view shows of it (the tooltip; the label adds a mark when read-only). */
  name: string;
  label: string;
  checked: boolean;
  /** The agent host keeps this list: no checkbox, the state in the description. */
  readOnly: boolean;
  description: string;
  children: PanelNode[];
}

/** The agent host the supervisor cannot reach, and why (`error` in the description). */
export interface HostErrorNode {
  kind: "hostError";
  workspace: string;
  label: string;
  description: string;
  tooltip: string;
  children: PanelNode[];
}

/** A line that says what is missing and runs the command that fixes it. */
export interface HintNode {
  kind: "hint";
  workspace: string;
  label: string;
  command: string;
  children: PanelNode[];
}

/** `N more files — Show more`: the folder lists more files than the view shows yet. */
export interface MoreNode {
  kind: "more";
  workspace: string;
  label: string;
  command: string;
  children: PanelNode[];
}

export type PanelNode = FolderNode | FileNode | HeadingNode | ItemNode | AgentsNode | SessionNode | SessionItemNode | HostErrorNode | HintNode | MoreNode;

/** Files a folder shows at first, and how many more each "Show more" adds. */
export const FILES_PAGE = 50;
/** The first files of a folder shown expanded: their items are read at once, the others' on expand. */
export const AUTO_EXPAND_FILES = 20;

export const OPEN_STATES = ["open", "inProgress", "blocked"];
const CLOSED_STATES = ["done", "canceled"];
/** Every state name a symbol's `detail` may start with, as the server or a person writes it. */
const STATE_WORDS: Record<string, string> = {
  open: "open",
  inprogress: "inProgress",
  "in progress": "inProgress",
  "in-progress": "inProgress",
  blocked: "blocked",
  done: "done",
  canceled: "canceled",
  cancelled: "canceled",
};
/** How a state other than open and done reads in an item's description. */
export const STATE_LABELS: Record<string, string> = { inProgress: "in progress", blocked: "blocked", canceled: "canceled" };

/** Session states and their codicon (`$(name)`) in the view. */
export const SESSION_ICONS: Record<string, string> = {
  working: "sync~spin",
  idle: "circle-large-outline",
  waiting: "bell",
  stalled: "warning",
  paused: "debug-pause",
  done: "pass",
};

export interface PanelOptions {
  hideDone: boolean;
  /** Commands the hint lines run. */
  subscribeCommand: string;
  connectCommand: string;
  moreFilesCommand: string;
}

/** The item state a symbol's `detail` names (`done`, `inProgress · 1/2 done`…), or undefined for a heading. */
/**
 * The server command and argument a ticked (or unticked) box of an item sends. The text names the
 * item: if the agent moved it since the view was built, the server finds it where it went or
 * refuses (docs/status-and-commands.md). todoLs.toggle turns open into done and anything else into
 * open: right for an open box and for unticking, but a ticked in-progress or blocked item must
 * become done.
 */
export function tickRequest(node: ItemNode, checked: boolean): { command: typeof ServerCommand.toggle | typeof ServerCommand.setState; argument: { uri: string; line: number; text: string; state?: string } } {
  const item = { uri: node.uri, line: node.line, text: node.text };
  return checked && node.state !== "open"
    ? { command: ServerCommand.setState, argument: { ...item, state: "done" } }
    : { command: ServerCommand.toggle, argument: item };
}

export function symbolState(symbol: SymbolLike): string | undefined {
  const detail = (symbol.detail ?? "").trim().toLowerCase();
  const words = Object.keys(STATE_WORDS).sort((a, b) => b.length - a.length);
  const word = words.find((w) => detail === w || detail.startsWith(`${w} `) || detail.startsWith(`${w}·`) || detail.startsWith(`${w},`));
  return word === undefined ? undefined : STATE_WORDS[word];
}

function isClosed(state: string): boolean {
  return CLOSED_STATES.includes(state);
}

/** An item's description: its state unless open or done, then its children's progress. */
function itemDescription(state: string, detail: string | undefined): string {
  const parts = [STATE_LABELS[state]].filter((p): p is string => p !== undefined);
  const progress = /(\d+\/\d+ done)/.exec(detail ?? "")?.[1];
  if (progress !== undefined) {
    parts.push(progress);
  }
  return parts.join(" · ");
}

/** True when the node stays with "Hide done" on: it is open, or holds something open. */
function keeps(node: PanelNode): boolean {
  if (node.kind === "item" || node.kind === "sessionItem") {
    return !node.checked || node.children.length > 0;
  }
  return true;
}

/** The name the server's outline gives an item without text (todo_ls/checklist/symbols.py). */
const NO_TEXT = "(no text)";

function symbolNodes(uri: string, symbols: SymbolLike[], hideDone: boolean): PanelNode[] {
  const nodes: PanelNode[] = [];
  for (const symbol of symbols) {
    const children = symbolNodes(uri, symbol.children ?? [], hideDone);
    const state = symbolState(symbol);
    const line = symbol.range.start.line;
    let node: PanelNode;
    if (state === undefined) {
      const progress = /(\d+\/\d+ done)/.exec(symbol.detail ?? "")?.[1] ?? "";
      node = { kind: "heading", uri, line, label: symbol.name, description: progress, children };
      if (hideDone && children.length === 0) {
        continue; // a section whose items are all done
      }
    } else {
      const text = symbol.name === NO_TEXT ? "" : symbol.name;
      node = { kind: "item", uri, line, label: symbol.name, text, state, checked: isClosed(state), description: itemDescription(state, symbol.detail), children };
    }
    if (!hideDone || keeps(node)) {
      nodes.push(node);
    }
  }
  return nodes;
}

/** The file's open items from `todoLs.list` (a server without document symbols): flat, in line order. */
function listNodes(uri: string, items: OpenItem[]): PanelNode[] {
  return [...items]
    .filter((item) => item.uri === uri)
    .sort((a, b) => a.line - b.line)
    .map((item) => {
      const state = item.state;
      return { kind: "item", uri, line: Math.max(0, item.line - 1), label: shownText(item), text: item.text, state, checked: isClosed(state), description: itemDescription(state, undefined), children: [] };
    });
}

const SESSION_DONE = ["completed", "cancelled", "canceled"];

function sessionItemNode(item: SessionItem): SessionItemNode {
  const checked = SESSION_DONE.includes(item.status);
  const readOnly = item.readOnly === true;
  // Pending and completed show in the box (or the mark); other statuses are spelled out.
  const status = item.status === "pending" || item.status === "completed" ? "" : item.status.replace(/_/g, " ");
  return {
    kind: "sessionItem",
    sessionID: item.sessionID,
    index: item.index,
    content: item.content,
    name: shownText(item),
    label: readOnly ? `${checked ? "✓" : "○"} ${shownText(item)}` : shownText(item),
    checked,
    readOnly,
    description: [status, item.priority ?? "", readOnly ? "kept by the agent" : ""].filter(Boolean).join(" · "),
    children: [],
  };
}

function agentsNode(folder: FolderInput, options: PanelOptions): AgentsNode {
  const supervisor = folder.list.supervisor;
  const sessions = supervisor.enabled ? supervisor.sessions : [];
  const items = folder.list.items.filter(isSessionItem);
  const children: PanelNode[] = sessions.map((session) => {
    const own = items.filter((i) => i.sessionID === session.id).sort((a, b) => a.index - b.index).map(sessionItemNode);
    const title = session.title ? session.title : session.id;
    return {
      kind: "session",
      workspace: folder.workspace,
      id: session.id,
      label: title,
      description: sessionSummary(session, false),
      tooltip: [title, session.id, session.detail ?? ""].filter(Boolean).join("\n"),
      state: session.state,
      paused: session.state === "paused",
      children: options.hideDone ? own.filter(keeps) : own,
    };
  });
  if (children.length === 0) {
    children.push({ kind: "hint", workspace: folder.workspace, label: "No agent — Connect an agent…", command: options.connectCommand, children: [] });
  }
  const host = supervisor.host;
  const problem = hostProblem(supervisor);
  let description = !supervisor.enabled ? "supervisor off" : `${sessions.length} session${sessions.length === 1 ? "" : "s"}`;
  if (problem !== undefined && host) {
    // The first line under Agents, and named on the collapsed node too.
    children.unshift({ kind: "hostError", workspace: folder.workspace, label: `${hostName(host)} not connected`, description: problem, tooltip: `${hostLine(host)}\n${problem}`, children: [] });
    description += ` · ${hostName(host)} not connected`;
  }
  return { kind: "agents", workspace: folder.workspace, label: "Agents", description, children };
}

/** What an expanded file holds: its items as in the document (or its open items, flat). */
export function fileChildren(content: FileContent | undefined, uri: string, options: PanelOptions): PanelNode[] {
  if (content === undefined) {
    return [];
  }
  return "symbols" in content ? symbolNodes(uri, content.symbols, options.hideDone) : listNodes(uri, content.items);
}

/** One folder's nodes: its subscribed files listed so far (or a hint to subscribe one), a
 * "Show more" line when it has more, then Agents. */
export function folderNodes(folder: FolderInput, options: PanelOptions): PanelNode[] {
  const list = folder.list;
  const nodes: PanelNode[] = list.files.map((file, index) => {
    const content = folder.loaded.get(file.uri);
    return {
      kind: "file",
      workspace: folder.workspace,
      uri: file.uri,
      label: relativeTo(folder.workspace, file.uri),
      description: file.missing ? "missing" : `${file.open} open of ${file.total}`,
      missing: file.missing,
      loaded: file.missing || content !== undefined,
      expanded: index < AUTO_EXPAND_FILES,
      children: file.missing ? [] : fileChildren(content, file.uri, options),
    };
  });
  if (nodes.length === 0) {
    nodes.push({ kind: "hint", workspace: folder.workspace, label: "No subscribed files — Subscribe this file", command: options.subscribeCommand, children: [] });
  }
  const more = list.filesTotal - list.files.length;
  if (more > 0) {
    nodes.push({ kind: "more", workspace: folder.workspace, label: `${more} more file${more === 1 ? "" : "s"} — Show more`, command: options.moreFilesCommand, children: [] });
  }
  nodes.push(agentsNode(folder, options));
  return nodes;
}

/** True when no folder has a subscribed file or an agent session: the view shows its welcome. */
export function isEmpty(folders: FolderInput[]): boolean {
  return folders.every((f) => f.list.files.length === 0 && f.list.supervisor.sessions.length === 0);
}

/** The view's top level: the folder's nodes, or one node per folder when there are several. */
export function panelRoots(folders: FolderInput[], options: PanelOptions): PanelNode[] {
  if (folders.length === 0 || isEmpty(folders)) {
    return [];
  }
  if (folders.length === 1) {
    return folderNodes(folders[0], options);
  }
  return folders.map((folder) => ({
    kind: "folder",
    workspace: folder.workspace,
    label: folderName(folder.workspace),
    description: `${folder.list.open} open of ${folder.list.total}`,
    children: folderNodes(folder, options),
  }));
}

/** A status that arrived after the last list: its counts and sessions at once; the files the
 * view lists keep their place, with the counts of those the status names. */
export function withStatus(list: ListResult, status: StatusPayload): ListResult {
  const fresh = new Map(status.files.map((f) => [f.uri, f]));
  const files = list.files.map((f) => fresh.get(f.uri) ?? f);
  return { ...list, ...status, files, filesTotal: status.filesTotal, items: list.items };
}
