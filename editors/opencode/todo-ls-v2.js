// todo-ls companion plugin for OpenCode 2.x (no npm dependencies). UNTESTED: written from
// the 2.x plugin API (`setup(ctx)`, `ctx.tool.hook("execute.before")`,
// `ctx.session.hook("context")`), not run against a real 2.x build.
//
// It does what the 1.x flavour does (todo-ls-v1.js): adds the session id to the arguments of
// todo-ls's MCP tools, and appends the session's todo list to the system prompt of every
// model request unless the option `injectTodoContext` is false.
// See docs/mcp-todo-tools.md in the todo-ls repository.
import { SESSION_ARG, contextBlock, isTodoTool } from "./todo-ls-common.js"

export default {
  id: "todo-ls",
  async setup(ctx) {
    const inject = ctx.options?.injectTodoContext !== false
    const registrations = [
      await ctx.tool.hook("execute.before", (event) => {
        if (!isTodoTool(event.tool)) return
        const input = event.input && typeof event.input === "object" ? event.input : {}
        event.input = { ...input, [SESSION_ARG]: event.sessionID }
      }),
    ]
    if (inject) {
      registrations.push(
        await ctx.session.hook("context", async (event) => {
          if (!Array.isArray(event.system)) return
          const block = await contextBlock(event.sessionID)
          if (block) event.system.push({ type: "text", text: block })
        }),
      )
    }
    return async () => {
      for (const registration of registrations) await registration.dispose()
    }
  },
}
