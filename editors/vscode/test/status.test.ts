import assert from "node:assert/strict";
import { test } from "node:test";
import { ListResult, StatusPayload, openItemTargets, relativeTo, sessionItemTargets, tooltipLines } from "../src/status";

const WS = "file:///home/u/my%20project";

function status(overrides: Partial<StatusPayload> = {}): StatusPayload {
  return {
    workspace: WS,
    open: 4,
    done: 3,
    canceled: 1,
    total: 8,
    text: "📋 ████░░░░ 4/8 open · working",
    files: [
      { uri: `${WS}/PLAN.md`, open: 3, total: 7, missing: false },
      { uri: `${WS}/docs/r%C3%A9sum%C3%A9.md`, open: 1, total: 1, missing: false },
      { uri: `${WS}/NEXT.md`, open: 0, total: 0, missing: true },
    ],
    filesTotal: 3,
    supervisor: {
      enabled: true,
      host: { kind: "opencode-v1", url: "http://127.0.0.1:4096", connected: true, version: "1.18.33" },
      sessions: [
        { id: "ses_1", host: "opencode-v1", title: "build it", state: "working", detail: "1 tool", open: 3, nudges: 0, pausedReason: null, todos: { open: 3, total: 7 } },
        { id: "ses_2", host: "claude-code", title: null, state: "paused", detail: null, open: 3, nudges: 5, pausedReason: "no-progress" },
      ],
    },
    ...overrides,
  };
}

test("the tooltip has one line per file and per session", () => {
  assert.deepEqual(tooltipLines(status()), [
    "PLAN.md 3/7 open",
    "docs/résumé.md 1/1 open",
    "NEXT.md (missing)",
    "opencode-v1 1.18.33 http://127.0.0.1:4096 connected",
    'ses_1 working · 1 tool · 3/7 todos · opencode-v1 "build it"',
    "ses_2 paused · paused: no-progress · claude-code",
  ]);
});

test("with several folders the tooltip names the one shown and sums up the others", () => {
  const other = status({ workspace: "file:///home/u/second", text: "📋 ████░░░░ 1/2 open · working" });
  const lines = tooltipLines(status(), [other]);
  assert.equal(lines[0], "Folder my project:");
  assert.equal(lines[lines.length - 1], "Folder second: 📋 ████░░░░ 1/2 open · working");
});

test("the tooltip says when nothing is subscribed and the supervisor is off", () => {
  const lines = tooltipLines(status({ files: [], supervisor: { enabled: false, host: null, sessions: [] } }));
  assert.match(lines[0], /No subscribed files/);
  assert.equal(lines[1], "Supervisor off");
});

test("a disconnected host is shown as such", () => {
  const s = status({ supervisor: { enabled: true, host: { kind: "opencode-v2", url: null, connected: false, version: null }, sessions: [] } });
  assert.deepEqual(tooltipLines(s).slice(-1), ["opencode-v2 disconnected"]);
});

test("a host not detected yet is called OpenCode, not by the setting value auto", () => {
  const host = { kind: "auto", url: "http://127.0.0.1:4096", connected: false, version: null };
  const s = status({ supervisor: { enabled: true, host, sessions: [] } });
  assert.deepEqual(tooltipLines(s).slice(-1), ["OpenCode http://127.0.0.1:4096 disconnected"]);
});

test("the tooltip says why the host is not connected", () => {
  const error = "GET /global/health: http://127.0.0.1:9 unreachable (All connection attempts failed)";
  const host = { kind: "auto", url: "http://127.0.0.1:9", connected: false, version: null, error };
  const s = status({ supervisor: { enabled: true, host, sessions: [] } });
  assert.deepEqual(tooltipLines(s).slice(-1), [`OpenCode http://127.0.0.1:9 disconnected: ${error}`]);
});

test("relative paths outside the workspace fall back to the file name", () => {
  assert.equal(relativeTo(WS, "file:///elsewhere/TODO.md"), "TODO.md");
  assert.equal(relativeTo(`${WS}/`, `${WS}/a/b.md`), "a/b.md");
});

test("open items become quick pick targets at 0-based lines", () => {
  const list: ListResult = {
    ...status(),
    items: [
      { uri: `${WS}/PLAN.md`, path: "PLAN.md", line: 3, text: "write the intro", name: "write the intro", state: "open", ref: "PLAN.md:3" },
      { uri: `${WS}/docs/r%C3%A9sum%C3%A9.md`, path: "docs/résumé.md", line: 10, text: "ask the user", name: "ask the user", state: "blocked", ref: "docs/résumé.md:10" },
    ],
    itemsTotal: 2,
  };
  assert.deepEqual(openItemTargets(list), [
    { kind: "file", label: "write the intro", description: "PLAN.md:3", uri: `${WS}/PLAN.md`, line: 2 },
    { kind: "file", label: "ask the user (blocked)", description: "docs/résumé.md:10", uri: `${WS}/docs/r%C3%A9sum%C3%A9.md`, line: 9 },
  ]);
});

test("quick pick entries show the items' names, not their markdown", () => {
  const list: ListResult = {
    ...status(),
    items: [
      { uri: `${WS}/PLAN.md`, path: "PLAN.md", line: 3, text: "fix `parse()` in **core**", name: "fix parse() in core", state: "open", ref: "PLAN.md:3" },
      { sessionID: "ses_1", index: 0, content: "run `make`", name: "run make", status: "pending", priority: null },
    ],
    itemsTotal: 2,
  };
  assert.equal(openItemTargets(list)[0].label, "fix parse() in core");
  const [target] = sessionItemTargets(list);
  assert.deepEqual([target.label, target.content], ["[ ] run make", "run `make`"]);
});

test("items of a second folder open by their own URI and name their folder", () => {
  const second = "file:///home/u/second";
  const list: ListResult = { ...status(), items: [{ uri: `${second}/PLAN.md`, path: "PLAN.md", line: 3, text: "only item", name: "only item", state: "open", ref: "PLAN.md:3" }], itemsTotal: 1 };
  assert.deepEqual(openItemTargets(list, [WS, second]), [
    { kind: "file", label: "only item", description: "second/PLAN.md:3", uri: `${second}/PLAN.md`, line: 2 },
  ]);
});

test("session items become toggle targets beside the file items", () => {
  const list: ListResult = {
    ...status(),
    items: [
      { uri: `${WS}/PLAN.md`, path: "PLAN.md", line: 3, text: "write the intro", name: "write the intro", state: "open", ref: "PLAN.md:3" },
      { sessionID: "ses_1", index: 0, content: "Write the parser", name: "Write the parser", status: "completed", priority: "high" },
      { sessionID: "ses_1", index: 1, content: "Add tests", name: "Add tests", status: "pending", priority: null },
    ],
    itemsTotal: 3,
  };
  assert.equal(openItemTargets(list).length, 1);
  assert.deepEqual(sessionItemTargets(list), [
    { kind: "session", label: "[x] Write the parser", description: "ses_1 #1 · completed · high", sessionID: "ses_1", index: 0, content: "Write the parser" },
    { kind: "session", label: "[ ] Add tests", description: "ses_1 #2 · pending", sessionID: "ses_1", index: 1, content: "Add tests" },
  ]);
});
