/** The `todoLs/status` payload and what the UI derives from it (pure: no `vscode`). */

export interface FileStatus {
  uri: string;
  open: number;
  total: number;
  missing: boolean;
}

export interface HostStatus {
  kind: string;
  url: string | null;
  connected: boolean;
  version?: string | null;
}

export interface SessionStatus {
  id: string;
  title?: string | null;
  state: string;
  detail?: string | null;
  open?: number;
  nudges?: number;
  pausedReason?: string | null;
}

export interface StatusPayload {
  workspace: string;
  open: number;
  done: number;
  canceled: number;
  total: number;
  text: string;
  files: FileStatus[];
  supervisor?: {
    enabled: boolean;
    host: HostStatus | null;
    sessions: SessionStatus[];
  } | null;
}

/** One open item as `todoLs.list` reports it (`line` is 1-based, DESIGN.md "Item references"). */
export interface OpenItem {
  uri?: string;
  path?: string;
  line: number;
  text?: string;
  state?: string;
}

export interface ListResult extends StatusPayload {
  items?: OpenItem[];
}

/** A file URI relative to the workspace folder URI, or the URI's last segments when outside it. */
export function relativeTo(workspace: string, uri: string): string {
  const base = workspace.endsWith("/") ? workspace : workspace + "/";
  const rel = uri.startsWith(base) ? uri.slice(base.length) : uri.replace(/^.*\//, "");
  return decodeURIComponent(rel);
}

/** `ses_… working · 1 tool · paused: no-progress` */
export function sessionLine(session: SessionStatus): string {
  const parts = [`${session.id} ${session.state}`];
  if (session.detail) {
    parts.push(session.detail);
  }
  if (session.pausedReason) {
    parts.push(`paused: ${session.pausedReason}`);
  }
  const title = session.title ? ` "${session.title}"` : "";
  return parts.join(" · ") + title;
}

/** The status bar tooltip: one line per subscribed file and per supervised session. */
export function tooltipLines(status: StatusPayload): string[] {
  const lines: string[] = [];
  for (const file of status.files) {
    const name = relativeTo(status.workspace, file.uri);
    lines.push(file.missing ? `${name} (missing)` : `${name} ${file.open}/${file.total} open`);
  }
  if (status.files.length === 0) {
    lines.push('No subscribed files (setting "todoLs.markdownFiles" or "todo-ls: Subscribe this file")');
  }
  const supervisor = status.supervisor;
  if (!supervisor || !supervisor.enabled) {
    lines.push("Supervisor off");
  } else {
    const host = supervisor.host;
    if (host) {
      // Before detection succeeds the kind is still the setting's "auto".
      const kind = host.kind === "auto" ? "OpenCode" : host.kind;
      const version = host.version ? ` ${host.version}` : "";
      lines.push(`${kind}${version} ${host.url ?? ""} ${host.connected ? "connected" : "disconnected"}`.replace(/ +/g, " "));
    }
    for (const session of supervisor.sessions) {
      lines.push(sessionLine(session));
    }
  }
  return lines;
}

export interface ItemTarget {
  label: string;
  description: string;
  /** The file's URI string. */
  uri: string;
  /** 0-based, for a VS Code position. */
  line: number;
}

function joinUri(workspace: string, relPath: string): string {
  const base = workspace.endsWith("/") ? workspace : workspace + "/";
  return base + relPath.split("/").map(encodeURIComponent).join("/");
}

/** Quick pick entries for the open items of a `todoLs.list` result, in the server's order. */
export function openItemTargets(list: ListResult): ItemTarget[] {
  const targets: ItemTarget[] = [];
  for (const item of list.items ?? []) {
    const uri = item.uri ?? (item.path !== undefined ? joinUri(list.workspace, item.path) : undefined);
    if (uri === undefined) {
      continue;
    }
    const where = `${relativeTo(list.workspace, uri)}:${item.line}`;
    const state = item.state && item.state !== "open" ? ` (${item.state})` : "";
    targets.push({ label: (item.text ?? where) + state, description: where, uri, line: Math.max(0, item.line - 1) });
  }
  return targets;
}
