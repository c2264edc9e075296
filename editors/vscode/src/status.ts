/**
 * The `todoLs/status` payload and what the UI derives from it (pure: no `vscode`). The server
 * declares the same objects in todo_ls/payloads.py (the interface names are its class names);
 * tests/unit/test_status_payload_contract.py fails when a member, its optionality or its
 * nullability differs.
 */

export interface FileStatus {
  uri: string;
  open: number;
  total: number;
  missing: boolean;
  /** Why the file could not be read (sent only then). */
  error?: string;
}

export interface HostStatus {
  kind: string;
  url: string | null;
  connected: boolean;
  version: string | null;
  /** Why the last connection attempt failed (sent only while it stands). */
  error?: string;
}

/** How many items of the session's own todo list are open. */
export interface SessionTodos {
  open: number;
  total: number;
}

/** One supervised session: the server's `SupervisedSession` record as `to_wire` writes it. */
export interface SessionStatus {
  id: string;
  /** The host kind: `opencode-v1`, `opencode-v2`, `claude-code`, `codex`, … */
  host: string;
  title: string | null;
  state: string;
  detail: string | null;
  open: number;
  nudges: number;
  pausedReason: string | null;
  /** Only when the session keeps a todo list of its own. */
  todos?: SessionTodos;
}

/** `host` is null while the supervisor does not run. */
export interface SupervisorStatus {
  enabled: boolean;
  host: HostStatus | null;
  sessions: SessionStatus[];
}

export interface StatusPayload {
  workspace: string;
  open: number;
  done: number;
  canceled: number;
  total: number;
  text: string;
  /** At most 50 of the folder's subscribed files; `filesTotal` counts them all. */
  files: FileStatus[];
  filesTotal: number;
  supervisor: SupervisorStatus;
}

/** One open item of a subscribed file as `todoLs.list` reports it (`line` is 1-based). */
export interface OpenItem {
  uri: string;
  /** Relative to the item's workspace folder. */
  path: string;
  line: number;
  state: string;
  /** The item's markdown as written: what a toggle names it by. */
  text: string;
  /** The text a reader sees (inline markdown as plain text), as the outline names the item;
   * an older server sends none: show `text` then (`shownText`). */
  name: string;
  /** `path:line`. */
  ref: string;
}

/** One item of a session's own todo list (`index`: its place in that list). */
export interface SessionItem {
  sessionID: string;
  index: number;
  /** As the agent wrote it: what a toggle compares. */
  content: string;
  /** `content` as a reader sees it; none from an older server (`shownText`). */
  name: string;
  status: string;
  priority: string | null;
  /** The agent host keeps this list (its own todo tool, a hook host's mirror): toggling is refused. */
  readOnly?: true;
}

/** The `todoLs.list` answer: one page of items and how many there are in all. */
export interface ListResult extends StatusPayload {
  items: (OpenItem | SessionItem)[];
  itemsTotal: number;
}

/** What a view shows of a listed item: its `name`, or its raw text from a server without names. */
export function shownText(item: OpenItem | SessionItem): string {
  const name = (item as { name?: unknown }).name;
  if (typeof name === "string") {
    return name;
  }
  return isSessionItem(item) ? item.content : item.text;
}

export function isSessionItem(item: OpenItem | SessionItem): item is SessionItem {
  return "sessionID" in item;
}

/** A file URI relative to the workspace folder URI, or the URI's last segments when outside it. */
export function relativeTo(workspace: string, uri: string): string {
  const base = workspace.endsWith("/") ? workspace : workspace + "/";
  const rel = uri.startsWith(base) ? uri.slice(base.length) : uri.replace(/^.*\//, "");
  return decodeURIComponent(rel);
}

/**
 * `working · 1 tool · 3/7 todos · paused: no-progress · claude-code`: a session's state, then
 * what else the status says of it (its detail only when `withDetail`).
 */
export function sessionSummary(session: SessionStatus, withDetail = true): string {
  const parts = [session.state];
  if (withDetail && session.detail) {
    parts.push(session.detail);
  }
  if (session.todos) {
    parts.push(`${session.todos.open}/${session.todos.total} todos`);
  }
  if (session.pausedReason) {
    parts.push(`paused: ${session.pausedReason}`);
  }
  if (session.host) {
    parts.push(session.host);
  }
  return parts.join(" · ");
}

/** `ses_… working · 1 tool · 3/7 todos · paused: no-progress · claude-code "title"` */
export function sessionLine(session: SessionStatus): string {
  const title = session.title ? ` "${session.title}"` : "";
  return `${session.id} ${sessionSummary(session)}${title}`;
}

/** The last path segment of a folder URI, decoded: how the tooltip names a folder. */
export function folderName(workspace: string): string {
  return decodeURIComponent(workspace.replace(/\/+$/, "").replace(/^.*\//, ""));
}

/** The agent host's kind as a user reads it: before detection succeeds it is the setting's "auto". */
export function hostName(host: HostStatus): string {
  return host.kind === "auto" ? "OpenCode" : host.kind;
}

/** `opencode-v1 1.18.33 http://127.0.0.1:4096 connected`: the watched server in one line. */
export function hostLine(host: HostStatus): string {
  const version = host.version ? ` ${host.version}` : "";
  return `${hostName(host)}${version} ${host.url ?? ""} ${host.connected ? "connected" : "disconnected"}`.replace(/ +/g, " ");
}

/**
 * Why the supervisor cannot watch its host, when the views should say so (docs/vscode.md): a
 * failed connection to a server the user named or todo-ls had found; with nothing found by
 * discovery, only while no session is listed (a user of hook agents alone needs no OpenCode).
 */
export function hostProblem(supervisor: SupervisorStatus): string | undefined {
  const host = supervisor.enabled ? supervisor.host : null;
  if (!host || host.connected || !host.error) {
    return undefined;
  }
  return host.url !== null || supervisor.sessions.length === 0 ? host.error : undefined;
}

/**
 * The status bar tooltip: one line per subscribed file and per supervised session of the
 * folder shown; with several folders, it names that folder first and ends with one line for
 * each other folder.
 */
export function tooltipLines(status: StatusPayload, others: StatusPayload[] = []): string[] {
  const lines: string[] = others.length > 0 ? [`Folder ${folderName(status.workspace)}:`] : [];
  for (const file of status.files) {
    const name = relativeTo(status.workspace, file.uri);
    lines.push(file.missing ? `${name} (missing)` : `${name} ${file.open}/${file.total} open`);
  }
  if (status.files.length === 0) {
    lines.push('No subscribed files (setting "todoLs.markdownFiles" or "todo-ls: Subscribe this file")');
  }
  const supervisor = status.supervisor;
  if (!supervisor.enabled) {
    lines.push("Supervisor off");
  } else {
    const host = supervisor.host;
    if (host) {
      lines.push(host.error ? `${hostLine(host)}: ${host.error}` : hostLine(host));
    }
    for (const session of supervisor.sessions) {
      lines.push(sessionLine(session));
    }
  }
  for (const other of others) {
    lines.push(`Folder ${folderName(other.workspace)}: ${other.text}`);
  }
  return lines;
}

export interface ItemTarget {
  kind: "file";
  label: string;
  description: string;
  /** The file's URI string. */
  uri: string;
  /** 0-based, for a VS Code position. */
  line: number;
}

export interface SessionTarget {
  kind: "session";
  label: string;
  description: string;
  sessionID: string;
  index: number;
  content: string;
}

/** The workspace folder holding `uri`: the longest of `workspaces` it starts with. */
function folderOf(uri: string, workspaces: string[]): string | undefined {
  const inside = workspaces.filter((w) => uri.startsWith(w.endsWith("/") ? w : w + "/"));
  return inside.sort((a, b) => b.length - a.length)[0];
}

/**
 * Quick pick entries for the open file items of a `todoLs.list` result, in the server's order.
 * `workspaces` are every folder's URI: with several, a path starts with its folder's name.
 */
export function openItemTargets(list: ListResult, workspaces: string[] = [list.workspace]): ItemTarget[] {
  const targets: ItemTarget[] = [];
  for (const item of list.items) {
    if (isSessionItem(item)) {
      continue;
    }
    const uri = item.uri;
    const folder = folderOf(uri, workspaces) ?? list.workspace;
    const prefix = workspaces.length > 1 ? `${folderName(folder)}/` : "";
    const where = `${prefix}${relativeTo(folder, uri)}:${item.line}`;
    const state = item.state !== "open" ? ` (${item.state})` : "";
    targets.push({ kind: "file", label: shownText(item) + state, description: where, uri, line: Math.max(0, item.line - 1) });
  }
  return targets;
}

const STATUS_MARKS: Record<string, string> = { completed: "[x]", in_progress: "[/]", cancelled: "[~]", canceled: "[~]" };

/** Quick pick entries for the items of the sessions' own lists; picking one toggles it. */
export function sessionItemTargets(list: ListResult): SessionTarget[] {
  const targets: SessionTarget[] = [];
  for (const item of list.items) {
    if (!isSessionItem(item)) {
      continue;
    }
    const mark = STATUS_MARKS[item.status] ?? "[ ]";
    const priority = item.priority ? ` · ${item.priority}` : "";
    targets.push({
      kind: "session",
      label: `${mark} ${shownText(item)}`,
      description: `${item.sessionID} #${item.index + 1} · ${item.status}${priority}`,
      sessionID: item.sessionID,
      index: item.index,
      content: item.content,
    });
  }
  return targets;
}
