// What both flavours of the todo-ls companion plugin share (no npm dependencies).
// See docs/mcp-todo-tools.md in the todo-ls repository.
import { readFile } from "node:fs/promises"
import { homedir } from "node:os"
import { join } from "node:path"

// Must match todo_ls.todos.tools.SESSION_ARG: the argument todo-ls reads the session id from.
export const SESSION_ARG = "todoLsSessionID"
const TOOL = /^todo[_./:]todo_(write|read|subscribe|unsubscribe)$/ // server `todo`, its tools
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/

// The same folder as todo-ls's default state folder (todo_ls.store.default_state_dir).
function stateDir(env) {
  if (env.TODO_LS_STATE_DIR) return env.TODO_LS_STATE_DIR
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, "todo-ls")
  return join(env.HOME || homedir(), ".local", "state", "todo-ls")
}

/** Whether `name` is one of todo-ls's MCP tools as OpenCode names them (`todo_todo_write`). */
export function isTodoTool(name) {
  return typeof name === "string" && TOOL.test(name)
}

/** The session's context block that `todo-ls mcp` keeps; "" when there is none. */
export async function contextBlock(sessionID) {
  if (typeof sessionID !== "string" || !SESSION_ID.test(sessionID)) return ""
  try {
    const text = await readFile(join(stateDir(process.env), "context", `${sessionID}.md`), "utf8")
    return text.trim() ? text : ""
  } catch {
    return "" // no list written yet, or injection is off (`injectTodoContext = false`)
  }
}
