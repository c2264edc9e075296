// todo-ls companion plugin for OpenCode 1.x (an ES module with no npm dependencies).
//
// 1. MCP gives a tool call no session id, and OpenCode runs one `todo-ls mcp` for all the
//    sessions of a project: this plugin adds the session id to the arguments of todo-ls's
//    tools (`todo_todo_write`, ...), so each session keeps its own list.
// 2. It appends the session's todo list to the system prompt of every model request, so the
//    list survives compaction. The text comes from a small per-session file that
//    `todo-ls mcp` rewrites on every `todo_write`; the plugin only reads it.
//
// `todo-ls install opencode` puts this file and the MCP entry into opencode.json.
// See docs/mcp-todo-tools.md in the todo-ls repository.
import { readFile } from "node:fs/promises"
import { homedir } from "node:os"
import { join } from "node:path"

const SERVER = "todo" // the MCP server's name in opencode.json
const TOOLS = new Set(["todo_write", "todo_read", "todo_subscribe", "todo_unsubscribe"])
const SESSION_ARG = "todoLsSessionID"
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/

// The same folder as todo-ls's default state folder (`todo_ls.store.default_state_dir`).
function stateDir(env) {
  if (env.TODO_LS_STATE_DIR) return env.TODO_LS_STATE_DIR
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, "todo-ls")
  return join(env.HOME || homedir(), ".local", "state", "todo-ls")
}

function isTodoTool(name) {
  return typeof name === "string" && name.startsWith(SERVER + "_") && TOOLS.has(name.slice(SERVER.length + 1))
}

async function contextBlock(sessionID) {
  if (typeof sessionID !== "string" || !SESSION_ID.test(sessionID)) return ""
  try {
    return await readFile(join(stateDir(process.env), "context", `${sessionID}.md`), "utf8")
  } catch {
    return "" // no list written yet, or injection is off (`injectTodoContext = false`)
  }
}

export const TodoLs = async () => ({
  "tool.execute.before": async (input, output) => {
    // The same `args` object is then sent to the MCP server: mutate it in place.
    if (isTodoTool(input?.tool) && output?.args && typeof output.args === "object") {
      output.args[SESSION_ARG] = input.sessionID
    }
  },
  "experimental.chat.system.transform": async (input, output) => {
    if (!Array.isArray(output?.system)) return
    const block = await contextBlock(input?.sessionID)
    if (block.trim()) output.system.push(block)
  },
})
