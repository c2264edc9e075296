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
import { SESSION_ARG, contextBlock, isTodoTool } from "./todo-ls-common.js"

export const TodoLs = async () => ({
  "tool.execute.before": async (input, output) => {
    // The same `args` object is then sent to the MCP server: mutate it in place.
    if (isTodoTool(input?.tool) && output?.args && typeof output.args === "object") {
      output.args[SESSION_ARG] = input.sessionID
    }
  },
  // Called before every model request with the system prompt's entries.
  "experimental.chat.system.transform": async (input, output) => {
    if (!Array.isArray(output?.system)) return
    const block = await contextBlock(input?.sessionID)
    if (block) output.system.push(block)
  },
})
