/** What "todo-ls: Connect an agent…" runs and says (pure: no `vscode`; the command is connectAgent.ts). */

import { CommandLine } from "./serverCommand";

export interface AgentHost {
  /** `todo-ls install`'s name for it. */
  id: string;
  label: string;
  detail: string;
}

/** The hosts `todo-ls install` knows, in the order the README lists them. */
export const AGENT_HOSTS: AgentHost[] = [
  { id: "claude-code", label: "Claude Code", detail: "hooks in the project's .claude/settings.json" },
  { id: "codex", label: "Codex", detail: "hooks in .codex/hooks.json (trust them in Codex with /hooks)" },
  { id: "gemini-cli", label: "Gemini CLI", detail: "hooks in .gemini/settings.json (trust the folder in Gemini CLI)" },
  { id: "qwen-code", label: "Qwen Code", detail: "its hooks, which call todo-ls hook" },
  { id: "copilot-cli", label: "Copilot CLI", detail: "its hooks, which call todo-ls hook" },
  { id: "droid", label: "Factory Droid", detail: "its hooks, which call todo-ls hook" },
  { id: "opencode", label: "OpenCode", detail: "the todo-ls plugin and the todo tools in OpenCode's config" },
];

export type Scope = "project" | "user";

/**
 * `todo-ls install` with the server's own command line: the same executable and interpreter
 * options, `serve` (if the line names it) replaced by `install …`.
 */
export function installCommand(server: CommandLine, host: string, scope: Scope, folder: string): CommandLine {
  const args = server.args[server.args.length - 1] === "serve" ? server.args.slice(0, -1) : [...server.args];
  return { command: server.command, args: [...args, "install", host, "--scope", scope, "--directory", folder] };
}

/** What the message says after a run: its first line (what changed) and its last (the next step). */
export function installSummary(stdout: string): { changed: string; next: string } {
  const lines = stdout.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const changed = lines[0] ?? "nothing to change";
  const next = lines.length > 1 ? lines[lines.length - 1] : "";
  return { changed, next };
}
