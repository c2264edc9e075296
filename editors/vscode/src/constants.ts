/** Names shared with the server (docs/status-and-commands.md); keep them in one place. */

export const CLIENT_ID = "todoLs";
export const CLIENT_NAME = "todo-ls";
export const CONFIG_SECTION = "todoLs";
/** This extension's id (`publisher.name` in package.json). */
export const EXTENSION_ID = "todo-ls.todo-ls";
/** Settings read by the extension itself, never sent to the server. */
export const CLIENT_ONLY_SETTINGS = ["server", "trace"] as const;

export const STATUS_NOTIFICATION = "todoLs/status";

/** `workspace/executeCommand` ids implemented by the server. */
export const ServerCommand = {
  toggle: "todoLs.toggle",
  setState: "todoLs.setState",
  subscribe: "todoLs.subscribe",
  unsubscribe: "todoLs.unsubscribe",
  nudge: "todoLs.nudge",
  pause: "todoLs.pause",
  resume: "todoLs.resume",
  list: "todoLs.list",
  refresh: "todoLs.refresh",
  foldDone: "todoLs.foldDone",
} as const;

/**
 * Command palette ids. They differ from the server's ids because vscode-languageclient
 * registers each server command under its own id (for code lenses and code actions).
 */
export const PaletteCommand = {
  toggle: "todoLs.palette.toggle",
  setState: "todoLs.palette.setState",
  subscribe: "todoLs.palette.subscribe",
  unsubscribe: "todoLs.palette.unsubscribe",
  nudge: "todoLs.palette.nudge",
  pause: "todoLs.palette.pause",
  resume: "todoLs.palette.resume",
  list: "todoLs.palette.list",
  refresh: "todoLs.palette.refresh",
  restart: "todoLs.palette.restart",
  showOutput: "todoLs.palette.showOutput",
  connectAgent: "todoLs.palette.connectAgent",
  foldDone: "todoLs.palette.foldDone",
} as const;

/** Item states in the order a user picks them (docs/checklists.md). */
export const STATES = ["open", "inProgress", "blocked", "done", "canceled"] as const;
export type ItemState = (typeof STATES)[number];
