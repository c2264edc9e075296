/** How the extension finds the server executable (pure: no `vscode`, injected file checks). */

import * as path from "node:path";

export interface CommandLine {
  command: string;
  args: string[];
}

export interface CommandContext {
  /** `PATH` of the extension host. */
  pathEnv: string | undefined;
  home: string | undefined;
  platform: NodeJS.Platform;
  /** The first workspace folder's path, for `${workspaceFolder}`. */
  workspaceFolder: string | undefined;
  isExecutable: (file: string) => boolean;
}

/** Finds `name` in the directories of `pathEnv`, as a shell would. */
export function findOnPath(name: string, ctx: CommandContext): string | undefined {
  const sep = ctx.platform === "win32" ? ";" : ":";
  const suffixes = ctx.platform === "win32" ? [".exe", ".cmd", ".bat", ""] : [""];
  for (const dir of (ctx.pathEnv ?? "").split(sep)) {
    if (dir === "") {
      continue;
    }
    for (const suffix of suffixes) {
      const candidate = path.join(dir, name + suffix);
      if (ctx.isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

function expand(part: string, ctx: CommandContext): string {
  let out = part;
  if (ctx.workspaceFolder !== undefined) {
    out = out.split("${workspaceFolder}").join(ctx.workspaceFolder);
  }
  if (ctx.home !== undefined && (out === "~" || out.startsWith("~/"))) {
    out = ctx.home + out.slice(1);
  }
  return out;
}

/** How to start the server: a command line, or the server bundled with the extension. */
export type ServerChoice =
  | { kind: "command"; line: CommandLine; why: string }
  | { kind: "bundled"; why: string };

/**
 * The `todoLs.server.command` setting when it is set; else the server bundled with the extension;
 * `todo-ls` on PATH (pipx / uv tool install) only when `useInstalled` asks for it. A build without
 * bundled wheels (a developer's) falls back to `todo-ls` on PATH, else the Python module.
 */
export function resolveServerCommand(
  setting: readonly string[],
  useInstalled: boolean,
  hasBundled: boolean,
  ctx: CommandContext,
): ServerChoice {
  const parts = setting.filter((p) => p.trim() !== "").map((p) => expand(p, ctx));
  if (parts.length > 0) {
    return { kind: "command", line: { command: parts[0], args: parts.slice(1) }, why: "todoLs.server.command" };
  }
  if (useInstalled || !hasBundled) {
    const installed = findOnPath("todo-ls", ctx);
    if (installed !== undefined) {
      return { kind: "command", line: { command: installed, args: [] }, why: "todo-ls on PATH" };
    }
  }
  if (hasBundled) {
    const why = useInstalled ? "todoLs.server.useInstalled is on but todo-ls is not on PATH" : "bundled";
    return { kind: "bundled", why };
  }
  const python = ctx.platform === "win32" ? "python" : "python3";
  return { kind: "command", line: { command: python, args: ["-m", "todo_ls"] }, why: "no bundled server" };
}
