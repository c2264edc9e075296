import assert from "node:assert/strict";
import { test } from "node:test";
import { AUTO_EXPAND_FILES, FolderInput, PanelNode, SymbolLike, panelRoots, symbolState, tickRequest, withStatus } from "../src/panel";
import { ListResult, OpenItem, SessionStatus } from "../src/status";

const WS = "file:///home/u/proj";
const PLAN = `${WS}/PLAN.md`;
const OPTIONS = { hideDone: false, subscribeCommand: "subscribe", connectCommand: "connect", moreFilesCommand: "more" };
const INTRO: OpenItem = { uri: PLAN, path: "PLAN.md", line: 3, text: "write the intro", name: "write the intro", state: "open", ref: "PLAN.md:3" };

/** A session as the server sends it: every field, with `overrides` on top. */
function session(overrides: Partial<SessionStatus> & Pick<SessionStatus, "id" | "state">): SessionStatus {
  return { host: "claude-code", title: null, detail: null, open: 0, nudges: 0, pausedReason: null, ...overrides };
}

function list(overrides: Partial<ListResult> = {}): ListResult {
  return {
    workspace: WS,
    open: 3,
    done: 3,
    canceled: 1,
    total: 7,
    text: "📋 3/7 open",
    files: [
      { uri: PLAN, open: 3, total: 7, missing: false },
      { uri: `${WS}/NEXT.md`, open: 0, total: 0, missing: true },
    ],
    filesTotal: 2,
    supervisor: {
      enabled: true,
      host: null,
      sessions: [
        session({ id: "ses_1", host: "claude-code", title: "Build it", state: "working", todos: { open: 1, total: 3 } }),
        session({ id: "ses_2", host: "opencode-v1", title: null, state: "paused", pausedReason: "no-progress" }),
      ],
    },
    // The view lists no file item (limit 0): the sessions' own items, then each file's on expand.
    items: [
      { sessionID: "ses_1", index: 1, content: "Test", name: "Test", status: "completed", priority: null, readOnly: true },
      { sessionID: "ses_1", index: 0, content: "Refactor", name: "Refactor", status: "in_progress", priority: null, readOnly: true },
      { sessionID: "ses_2", index: 0, content: "Docs", name: "Docs", status: "pending", priority: "low" },
    ],
    itemsTotal: 4,
    ...overrides,
  };
}

function symbol(name: string, line: number, detail: string, children: SymbolLike[] = []): SymbolLike {
  return { name, detail, range: { start: { line }, end: { line } }, children };
}

// The plan as the server's documentSymbol answers it: a heading holding items and child items.
const SYMBOLS = [
  symbol("Plan", 0, "3/7 done", [
    symbol("write the intro", 2, "open"),
    symbol("set up CI", 3, "done"),
    symbol("ship it", 4, "inProgress · 1/2 done", [symbol("tag the release", 5, "blocked"), symbol("write the changelog", 6, "done")]),
    symbol("old idea", 7, "canceled"),
  ]),
];

function input(overrides: Partial<FolderInput> = {}): FolderInput {
  return { workspace: WS, list: list(), loaded: new Map([[PLAN, { symbols: SYMBOLS }]]), ...overrides };
}

/** `label [description]` per node, indented by depth: the tree as a user reads it. */
function render(nodes: PanelNode[], depth = 0): string[] {
  return nodes.flatMap((node) => {
    const box = "checked" in node && !(node.kind === "sessionItem" && node.readOnly) ? (node.checked ? "[x] " : "[ ] ") : "";
    const description = "description" in node && node.description ? ` (${node.description})` : "";
    return [`${"  ".repeat(depth)}${box}${node.label}${description}`, ...render(node.children, depth + 1)];
  });
}

const UNREACHABLE = "GET /global/health: http://127.0.0.1:9 unreachable (All connection attempts failed)";

/** The Agents part of the tree for a supervisor whose host is `host`, with `sessions`. */
function agentRows(host: NonNullable<ListResult["supervisor"]>["host"], sessions: SessionStatus[]): string[] {
  const rows = render(panelRoots([input({ list: list({ supervisor: { enabled: true, host, sessions }, items: [] }) })], OPTIONS));
  return rows.slice(rows.findIndex((r) => r.startsWith("Agents")));
}

test("a host the supervisor cannot reach: Agents names it, its first line says why", () => {
  const host = { kind: "auto", url: "http://127.0.0.1:9", connected: false, version: null, error: UNREACHABLE };
  assert.deepEqual(agentRows(host, [session({ id: "ses_1", state: "idle" })]), [
    "Agents (1 session · OpenCode not connected)",
    `  OpenCode not connected (${UNREACHABLE})`,
    "  ses_1 (idle · claude-code)",
  ]);
});

test("nothing found by discovery is said only while no session is listed", () => {
  const error = "no OpenCode server found: run `opencode --port 4096`";
  const host = { kind: "auto", url: null, connected: false, version: null, error };
  assert.deepEqual(agentRows(host, []), ["Agents (0 sessions · OpenCode not connected)", `  OpenCode not connected (${error})`, "  No agent — Connect an agent…"]);
  // A user of hook agents alone needs no OpenCode: no error line beside their sessions.
  assert.deepEqual(agentRows(host, [session({ id: "ses_1", state: "idle" })]), ["Agents (1 session)", "  ses_1 (idle · claude-code)"]);
});

test("a connected host adds no line", () => {
  const host = { kind: "opencode-v1", url: "http://127.0.0.1:4096", connected: true, version: "1.18.33" };
  assert.deepEqual(agentRows(host, []), ["Agents (0 sessions)", "  No agent — Connect an agent…"]);
});

test("one folder: its files with their items as in the document, then the agents with their own todos", () => {
  assert.deepEqual(render(panelRoots([input()], OPTIONS)), [
    "PLAN.md (3 open of 7)",
    "  Plan (3/7 done)",
    "    [ ] write the intro",
    "    [x] set up CI",
    "    [ ] ship it (in progress · 1/2 done)",
    "      [ ] tag the release (blocked)",
    "      [x] write the changelog",
    "    [x] old idea (canceled)",
    "NEXT.md (missing)",
    "Agents (2 sessions)",
    "  Build it (working · 1/3 todos · claude-code)",
    "    ○ Refactor (in progress · kept by the agent)",
    "    ✓ Test (kept by the agent)",
    "  ses_2 (paused · paused: no-progress · opencode-v1)",
    "    [ ] Docs (low)",
  ]);
});

test("items keep their 0-based line and file, sessions say whether they are paused", () => {
  const [plan, , agents] = panelRoots([input()], OPTIONS);
  const ship = plan.children[0].children[2];
  assert.ok(ship.kind === "item");
  assert.deepEqual([ship.uri, ship.line, ship.state, ship.checked], [PLAN, 4, "inProgress", false]);
  // A tick names the item by its text too, so the server finds it if the agent moved it.
  assert.deepEqual(tickRequest(ship, true), { command: "todoLs.setState", argument: { uri: PLAN, line: 4, text: "ship it", state: "done" } });
  assert.deepEqual(tickRequest(ship, false), { command: "todoLs.toggle", argument: { uri: PLAN, line: 4, text: "ship it" } });
  const [working, paused] = agents.children;
  assert.ok(working.kind === "session" && paused.kind === "session");
  assert.deepEqual([working.paused, paused.paused], [false, true]);
});

test("an item without text is named by its empty text, not by the outline's placeholder", () => {
  const [plan] = panelRoots([input({ loaded: new Map([[PLAN, { symbols: [symbol("(no text)", 1, "open")] }]]) })], OPTIONS);
  const item = plan.children[0];
  assert.ok(item.kind === "item");
  assert.deepEqual(tickRequest(item, true).argument, { uri: PLAN, line: 1, text: "" });
});

test("hide done leaves out closed items, unless they hold open ones, and finished sections", () => {
  const done = symbol("Done section", 9, "1/1 done", [symbol("all of it", 10, "done")]);
  const folder = input({ loaded: new Map([[PLAN, { symbols: [...SYMBOLS, done] }]]) });
  const lines = render(panelRoots([folder], { ...OPTIONS, hideDone: true }));
  assert.deepEqual(lines.slice(0, 5), [
    "PLAN.md (3 open of 7)",
    "  Plan (3/7 done)",
    "    [ ] write the intro",
    "    [ ] ship it (in progress · 1/2 done)",
    "      [ ] tag the release (blocked)",
  ]);
  assert.ok(!lines.some((l) => l.includes("Done section") || l.includes("set up CI") || l.includes("✓ Test")), lines.join("\n"));
});

test("a server without document symbols: the file's open items from todoLs.list, 1-based lines made 0-based", () => {
  const [plan] = panelRoots([input({ loaded: new Map([[PLAN, { items: [INTRO] }]]) })], OPTIONS);
  assert.deepEqual(render([plan]), ["PLAN.md (3 open of 7)", "  [ ] write the intro"]);
  const item = plan.children[0];
  assert.ok(item.kind === "item" && item.line === 2);
  assert.deepEqual(tickRequest(item, true).argument, { uri: PLAN, line: 2, text: "write the intro" });
});

test("listed items show their name (the outline's plain text) and a toggle still sends their markdown", () => {
  const marked: OpenItem = { ...INTRO, text: "fix `parse()` in **core**", name: "fix parse() in core" };
  // An older server sends no `name`: the item shows its text.
  const older = { ...INTRO, line: 4, text: "ship *it*" } as Partial<OpenItem>;
  delete older.name;
  const [plan] = panelRoots([input({ loaded: new Map([[PLAN, { items: [marked, older as OpenItem] }]]) })], OPTIONS);
  assert.deepEqual(render([plan]), ["PLAN.md (3 open of 7)", "  [ ] fix parse() in core", "  [ ] ship *it*"]);
  const item = plan.children[0];
  assert.deepEqual(tickRequest(item as Extract<PanelNode, { kind: "item" }>, true).argument, { uri: PLAN, line: 2, text: "fix `parse()` in **core**" });
  const sessions = list({
    items: [{ sessionID: "ses_1", index: 0, content: "run `make` **twice**", name: "run make twice", status: "pending", priority: null }],
  });
  const agents = panelRoots([input({ list: sessions })], OPTIONS).find((n) => n.kind === "agents");
  const own = agents?.children[0].children[0];
  assert.ok(own?.kind === "sessionItem");
  assert.deepEqual([own.label, own.name, own.content], ["run make twice", "run make twice", "run `make` **twice**"]);
});

test("what is missing says what to do: no files, no agent; nothing at all leaves the view to its welcome", () => {
  const noFiles = input({ list: list({ files: [], filesTotal: 0, items: [], supervisor: { enabled: true, host: null, sessions: [session({ id: "s", state: "idle" })] } }) });
  assert.deepEqual(render(panelRoots([noFiles], OPTIONS)), [
    "No subscribed files — Subscribe this file",
    "Agents (1 session)",
    "  s (idle · claude-code)",
  ]);
  const noAgent = input({ list: list({ supervisor: { enabled: false, host: null, sessions: [] } }) });
  const roots = panelRoots([noAgent], OPTIONS);
  const agents = roots[roots.length - 1];
  assert.deepEqual(render([agents]), ["Agents (supervisor off)", "  No agent — Connect an agent…"]);
  assert.ok(agents.children[0].kind === "hint" && agents.children[0].command === "connect");
  const nothing = input({ list: list({ files: [], filesTotal: 0, items: [], supervisor: { enabled: true, host: null, sessions: [] } }) });
  assert.deepEqual(panelRoots([nothing], OPTIONS), []);
});

test("several folders: one node per folder, in the order given", () => {
  const other = `${WS}-two`;
  const second = input({ workspace: other, list: list({ workspace: other, open: 1, total: 2, files: [{ uri: `${other}/TASKS.md`, open: 1, total: 2, missing: false }], filesTotal: 1, items: [], supervisor: { enabled: false, host: null, sessions: [] } }), loaded: new Map() });
  const roots = panelRoots([input(), second], OPTIONS);
  assert.deepEqual(roots.map((r) => [r.kind, r.label, "description" in r ? r.description : ""]), [
    ["folder", "proj", "3 open of 7"],
    ["folder", "proj-two", "1 open of 2"],
  ]);
  assert.deepEqual(render(roots[1].children), ["TASKS.md (1 open of 2)", "Agents (supervisor off)", "  No agent — Connect an agent…"]);
});

test("a symbol's detail names its state, however it is spelled; a heading's names none", () => {
  assert.equal(symbolState(symbol("a", 0, "in progress · 1/2 done")), "inProgress");
  assert.equal(symbolState(symbol("a", 0, "inProgress")), "inProgress");
  assert.equal(symbolState(symbol("a", 0, "cancelled")), "canceled");
  assert.equal(symbolState(symbol("a", 0, "2/3 done")), undefined);
  assert.equal(symbolState(symbol("a", 0, "")), undefined);
});

/** A folder of `total` files listing the first `listed` by path, none of them read yet. */
function bigFolder(listed: number, total: number): FolderInput {
  const files = Array.from({ length: listed }, (_, n) => ({ uri: `${WS}/notes/n${String(n).padStart(5, "0")}.md`, open: 1, total: 2, missing: false }));
  return input({ list: list({ files, filesTotal: total, items: [], supervisor: { enabled: false, host: null, sessions: [] } }), loaded: new Map() });
}

test("a big workspace: the files listed so far, collapsed and unread but the first few, then Show more", () => {
  const roots = panelRoots([bigFolder(50, 20_000)], OPTIONS);
  const files = roots.filter((n) => n.kind === "file");
  assert.equal(files.length, 50);
  assert.ok(files.every((f) => f.kind === "file" && !f.loaded && f.children.length === 0));
  assert.deepEqual(files.map((f) => f.kind === "file" && f.expanded), files.map((_, n) => n < AUTO_EXPAND_FILES));
  assert.deepEqual(render(roots.slice(49)), ["notes/n00049.md (1 open of 2)", "19950 more files — Show more", "Agents (supervisor off)", "  No agent — Connect an agent…"]);
  const more = roots[50];
  assert.ok(more.kind === "more" && more.command === "more" && more.workspace === WS);
  // All listed: no Show more line.
  assert.ok(!panelRoots([bigFolder(3, 3)], OPTIONS).some((n) => n.kind === "more"));
  assert.equal(render(panelRoots([bigFolder(1, 2)], OPTIONS))[1], "1 more file — Show more");
});

test("a file read on expand holds its items; one not read yet holds none and says so", () => {
  const folder = bigFolder(2, 2);
  const second = folder.list.files[1].uri;
  const roots = panelRoots([{ ...folder, loaded: new Map([[second, { symbols: [symbol("do it", 0, "open")] }]]) }], OPTIONS);
  const [first, read] = roots;
  assert.ok(first.kind === "file" && read.kind === "file");
  assert.deepEqual([first.loaded, read.loaded], [false, true]);
  assert.deepEqual(render([read]), ["notes/n00001.md (1 open of 2)", "  [ ] do it"]);
});

test("a status keeps the files the view lists, in their place, with the counts it names", () => {
  const base = list();
  const status = { ...base, open: 2, files: [{ uri: PLAN, open: 2, total: 7, missing: false }, { uri: `${WS}/OTHER.md`, open: 9, total: 9, missing: false }], filesTotal: 3 };
  const merged = withStatus(base, status);
  assert.deepEqual(merged.files.map((f) => [f.uri, f.open]), [[PLAN, 2], [`${WS}/NEXT.md`, 0]]);
  assert.deepEqual([merged.open, merged.filesTotal, merged.items], [2, 3, base.items]);
});
