// Drives real VS Code (code-server) in headless Chromium as a user would, and checks what the
// todo-ls extension shows. Started by tests/editors/test_vscode.py, which installs the .vsix,
// starts code-server and passes everything through the environment:
//   CODE_SERVER_URL  the workbench URL          PLAYWRIGHT_DIR  folder with node_modules/playwright-core
//   WORKSPACE        the folder with PLAN.md    ARTIFACTS       where the screenshots go
//   CHROMIUM         the Chromium binary
//   BROKEN_SERVER_COMMAND  JSON array: a server command line that cannot start
//   SCENARIO         "editing" (default), "agent" (then PROGRESS: the count PLAN.md starts with),
//                    "bundled" (the server the extension set up itself: status, then a quick fix),
//                    "no-python" (no Python to set it up with: one message, no restarts) or
//                    "folders" (a multi-root workspace: WORKSPACE is its first folder, with PLAN.md;
//                    the second folder holds TASKS.md and an agent session SESSION with a todo list)
//                    or "panel" (the todo-ls view, opened before any file: lists, opens, ticks,
//                    Ctrl+T, Fold done items, Connect an agent… for Claude Code, then the
//                    agent's session under Agents) or "start" (open the plan, wait for its counts
//                    in the status bar, nothing else: bench/bench_vscode_start.py times it)
//                    or "slow-start" (a palette command while the server waits for the file
//                    GATE before it starts; the driver then creates GATE: the command's answer)
//                    or "big" (a workspace of FILES subscribed notes, tests/editors/big_workspace.py:
//                    the view lists the first files, expands one, ticks an item, shows more)
// Prints one JSON line per passed step (ms since start) and exits 1 on the first failure.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const env = (name) => {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set`);
  }
  return value;
};
const url = env("CODE_SERVER_URL");
const workspace = env("WORKSPACE");
const artifacts = env("ARTIFACTS");
// The workspace settings: VS Code watches the workspace folder, so edits there apply at once.
const workspaceSettings = path.join(workspace, ".vscode", "settings.json");
const brokenCommand = JSON.parse(env("BROKEN_SERVER_COMMAND"));
// "editing" (default): the editor features; "agent": a real OpenCode at work (PROGRESS: "4/7 open").
const scenario = process.env.SCENARIO ?? "editing";
// PLAN.md as the test wrote it, before any edit.
const PLAN = existsSync(path.join(workspace, "PLAN.md")) ? readFileSync(path.join(workspace, "PLAN.md"), "utf8") : "";
const { chromium } = createRequire(path.join(env("PLAYWRIGHT_DIR"), "noop.js"))("playwright-core");

const started = Date.now();
const TIMEOUT = 20_000;
const step = (name, data = {}) => console.log(JSON.stringify({ step: name, ms: Date.now() - started, ...data }));
// The DOM renders spaces in editor lines and inlay hints as U+00A0.
const plain = (text) => text.replace(/\u00a0/g, " ");

const browser = await chromium.launch({
  executablePath: env("CHROMIUM"),
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-quic"],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 850 } });
const shot = async (name) => {
  const file = path.join(artifacts, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
};
const statusBar = page.locator("#workbench\\.parts\\.statusbar");
const editorLines = page.locator(".monaco-editor .view-lines").first();

/** Polls `read` until `accept` holds; on timeout throws with the last value seen. */
async function waitFor(what, read, accept, timeout = TIMEOUT) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    last = plain(await read().catch((e) => `<${e.message}>`));
    if (accept(last)) {
      return last;
    }
    await page.waitForTimeout(100);
  }
  throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
}

/** Loads the workbench and opens PLAN.md the way a user does: Quick Open; `line` shows it is open. */
async function openPlan(line) {
  await loadWorkbench();
  await openFile("PLAN.md", line);
}

/** The workbench, loaded with its status bar. */
async function loadWorkbench() {
  await page.goto(url);
  await page.locator(".monaco-workbench").waitFor({ timeout: 30_000 });
  await statusBar.waitFor({ timeout: TIMEOUT });
  step("workbench loaded");
}

/** Quick Open (Ctrl+P) `name`; `line` in the editor shows it is open. */
async function openFile(name, line) {
  await page.locator(".monaco-workbench").click({ position: { x: 700, y: 400 } });
  await page.keyboard.press("Control+P");
  await page.locator(".quick-input-widget input").fill(name);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: name }).first().waitFor({ timeout: TIMEOUT });
  await page.keyboard.press("Enter");
  await waitFor(`${name} in the editor`, () => editorLines.innerText(), (t) => t.includes(line));
  step(`${name} open`);
}

/** The status bar shows PLAN.md's counts: the server runs and has read the plan. */
async function statusBarCounts() {
  const text = await waitFor("the todo-ls status", () => statusBar.innerText(), (t) => /📋 [█░]+ 3\/5 open/.test(t));
  step("status bar", { text: text.match(/📋 [^\n]*open[^\n]*/)[0], screenshot: await shot("1-status-bar") });
}

/** Ctrl+. on the first item → "Mark done": the line, the count and the heading's hint follow. */
async function quickFixMarksDone() {
  await page.locator(".monaco-editor .view-line", { hasText: "write the intro" }).click();
  await page.keyboard.press("End");
  const markDone = page.locator(".action-widget .monaco-list-row", { hasText: /Mark done(?! with)/ }).first();
  // Right after the server starts, the menu may open before the line's actions are known; a user
  // then presses Escape and Ctrl+. again.
  await waitFor("Mark done in the quick fix menu", async () => {
    await page.keyboard.press("Escape");
    await page.keyboard.press("Control+.");
    return String(await markDone.waitFor({ timeout: 3_000 }).then(() => true, () => false));
  }, (shown) => shown === "true");
  step("quick fix menu", { screenshot: await shot("3-quick-fix") });
  await markDone.click();
  await waitFor("the edited line", () => editorLines.innerText(), (t) => t.includes("- [x] write the intro ✓"));
  const after = await waitFor("the new count", () => statusBar.innerText(), (t) => /📋 [█░]+ 2\/5 open/.test(t));
  await waitFor("the heading hint update", () => editorLines.innerText(), (t) => /Plan — café.*3\/5 done/.test(t));
  step("quick fix applied", { text: after.match(/📋 [^\n]*open[^\n]*/)[0] });
}

/** The editor features without an agent: status, hints, lens, problems, quick fix, commands. */
async function editing() {
  await statusBarCounts();

  // Inlay hints: after the heading (all five items) and after the parent item (its two children).
  const lines = await waitFor("inlay hints", () => editorLines.innerText(),
    (t) => /Plan — café.*2\/5 done/.test(t) && /ship it.*1\/2 done/.test(t));
  step("inlay hints", { heading: lines.match(/Plan — café.*/)[0] });

  // Code lens on the first line: progress, the supervisor's state and its commands.
  const lens = await waitFor("the code lens", () => page.locator(".monaco-editor .codelens-decoration").first().innerText(),
    (t) => t.includes("3/5 open") && t.includes("Nudge now"));
  step("code lens", { text: lens });

  // Problems panel: one entry per open item, from source todo-ls.
  await page.keyboard.press("Control+Shift+M");
  const problems = page.locator(".markers-panel");
  const rows = await waitFor("the Problems entries", () => problems.innerText(),
    (t) => (t.match(/todo-ls/g) ?? []).length >= 3 && t.includes("write the intro ✓"));
  step("problems", { first: rows.split("\n").find((l) => l.includes("write the intro")), screenshot: await shot("2-problems-and-hints") });

  await quickFixMarksDone();

  // The status bar item's tooltip lists each subscribed file.
  const item = statusBar.locator(".statusbar-item", { hasText: "📋" });
  await item.hover();
  const hover = page.locator(".workbench-hover, .monaco-hover").filter({ hasText: "PLAN.md 2/5 open" }).filter({ hasText: "OpenCode" }).first();
  await hover.waitFor({ timeout: TIMEOUT });
  step("tooltip", { text: plain(await hover.innerText()).split("\n").filter(Boolean), screenshot: await shot("4-tooltip") });

  // A click on it lists the open items (todoLs.list); picking one jumps to its line.
  await item.click();
  const row = page.locator(".quick-input-list .monaco-list-row", { hasText: "tag the release" });
  await row.waitFor({ timeout: TIMEOUT });
  const picks = await page.locator(".quick-input-list .monaco-list-row").allInnerTexts();
  step("open items quick pick", { rows: picks.map((r) => plain(r).replace(/\n/g, " ")), screenshot: await shot("5-open-items") });
  await row.click();
  await waitFor("the cursor on line 6", () => statusBar.innerText(), (t) => t.includes("Ln 6, Col 1"));
  step("jumped to PLAN.md:6");

  // The palette command toggles the item on the cursor line.
  await page.keyboard.press("Control+Shift+P");
  await page.locator(".quick-input-widget input").fill(">todo-ls: Toggle the item on this line");
  await page.locator(".quick-input-list .monaco-list-row", { hasText: "Toggle the item on this line" }).first().waitFor({ timeout: TIMEOUT });
  await page.keyboard.press("Enter");
  await waitFor("the toggled line", () => editorLines.innerText(), (t) => t.includes("- [x] tag the release") && /ship it.*2\/2 done/.test(t));
  const toggled = await waitFor("the count after toggling", () => statusBar.innerText(), (t) => /📋 [█░]+ 1\/5 open/.test(t));
  step("palette toggle", { text: toggled.match(/📋 [^\n]*open[^\n]*/)[0] });

  // Save: the file on disk has exactly those two markers changed.
  await page.keyboard.press("Control+S");
  const expected = PLAN.replace("- [ ] write the intro", "- [x] write the intro").replace("- [ ] tag the release", "- [x] tag the release");
  const onDisk = await waitFor("the saved file", async () => readFileSync(path.join(workspace, "PLAN.md"), "utf8"),
    (t) => t === expected);
  step("saved", { lines: onDisk.split("\n").length, screenshot: await shot("6-saved") });

  // A server command that cannot start: the extension restarts on the setting change and says so.
  const settings = readFileSync(workspaceSettings, "utf8");
  writeFileSync(workspaceSettings, JSON.stringify({ ...JSON.parse(settings), "todoLs.server.command": brokenCommand }));
  await waitFor("the stopped status", () => statusBar.innerText(), (t) => t.includes("todo-ls: stopped"));
  step("broken server command shows stopped", { screenshot: await shot("7-stopped") });

  // Back to the working command, then "todo-ls: Restart server" from the palette.
  writeFileSync(workspaceSettings, settings);
  await waitFor("the status after the fix", () => statusBar.innerText(), (t) => /📋 [█░]+ 1\/5 open/.test(t));
  await page.keyboard.press("Control+Shift+P");
  await page.locator(".quick-input-widget input").fill(">todo-ls: Restart server");
  await page.locator(".quick-input-list .monaco-list-row", { hasText: "Restart server" }).first().waitFor({ timeout: TIMEOUT });
  await page.keyboard.press("Enter");
  // The server stops (the item leaves the count for a moment), then starts and reports again.
  await waitFor("the server to stop", () => statusBar.innerText(), (t) => !/📋 [█░]+ 1\/5 open/.test(t));
  await waitFor("the status after the restart", () => statusBar.innerText(), (t) => /📋 [█░]+ 1\/5 open/.test(t));
  step("restarted");
}

/**
 * The item's tooltip once it satisfies `accept`. The hover keeps the text of the moment it opened
 * (and stays when the mouse leaves), so Escape closes it and the mouse comes back until it does.
 */
async function tooltip(what, accept, timeout = TIMEOUT) {
  const item = statusBar.locator(".statusbar-item", { hasText: "📋" });
  const hover = page.locator(".workbench-hover, .monaco-hover").filter({ hasText: "todo-ls — click" }).first();
  return await waitFor(what, async () => {
    await page.mouse.move(1000, 480);
    await page.keyboard.press("Escape");
    await hover.waitFor({ state: "hidden", timeout: 3_000 }).catch(() => {});
    await item.hover();
    await hover.waitFor({ timeout: 3_000 });
    return await hover.innerText();
  }, accept, timeout);
}

/** Every distinct text the todo-ls item showed since this call, recorded in the page: a state
 * that lasts 300 ms (idle before a nudge) would slip between two polls from here. */
async function recordStatusTexts() {
  await page.evaluate(() => {
    const bar = document.getElementById("workbench.parts.statusbar");
    const seen = (window.todoLsSeen = []);
    const record = () => {
      const item = [...bar.querySelectorAll(".statusbar-item")].find((e) => e.innerText.includes("📋"));
      const text = item?.innerText.replace(/\u00a0/g, " ").trim();
      if (text && text !== seen[seen.length - 1]) {
        seen.push(text);
      }
    };
    record();
    new MutationObserver(record).observe(bar, { subtree: true, childList: true, characterData: true });
  });
  return async () => await page.evaluate(() => window.todoLsSeen);
}

/** `working`, `idle`…: the state word of each recorded text, consecutive repeats dropped (as
 * test_editor_agent.state_words, which the test applies to the same texts). */
const stateWords = (texts) =>
  texts.map((t) => (t.includes(" · ") ? t.split(" · ").pop() : "")).filter(Boolean).filter((w, i, all) => w !== all[i - 1]);

/**
 * A real OpenCode supervised from VS Code. Steps the test reacts to: "supervisor connected" (it
 * then starts a session whose first tool runs several seconds). Ends paused by the palette.
 */
async function agent() {
  const progress = env("PROGRESS");
  await waitFor("the todo-ls status", () => statusBar.innerText(), (t) => t.includes(`📋`) && t.includes(progress));
  const seen = await recordStatusTexts();
  const connected = await tooltip("the supervisor connected", (t) => /opencode-v1 1\.18\.33 http:\/\/127\.0\.0\.1:\d+ connected/.test(t));
  const counted = await waitFor("no state word (no session yet)", () => statusBar.innerText(), (t) => new RegExp(`📋 [█░]+ ${progress}\n`).test(t + "\n"));
  step("supervisor connected", { text: counted.match(/📋 [^\n]*/)[0], tooltip: connected.split("\n").filter(Boolean) });

  // The test prompts the agent now: its tool runs while the status bar says so.
  const working = await waitFor("working", () => statusBar.innerText(), (t) => t.includes(`${progress} · working`));
  step("working", { text: working.match(/📋 [^\n]*/)[0] });
  const hover = await tooltip("the session in the tooltip", (t) => /^ses_\w+ working · .*tool/m.test(t));
  const session = hover.match(/^ses_\w+/m)[0];
  step("tooltip lists the session", { session, tooltip: hover.split("\n").filter(Boolean), screenshot: await shot("8-agent-working") });
  await page.mouse.move(1000, 480);

  // The turn ends with items open: idle, the nudge makes it work again, then idle once more.
  await waitFor("working, idle, working, idle", async () => JSON.stringify(stateWords(await seen()).slice(-4)),
    (t) => t === JSON.stringify(["working", "idle", "working", "idle"]), 30_000);
  step("nudged turn over", { seen: await seen() });

  // "todo-ls: Pause supervision" from the palette, for the session of the tooltip.
  await page.keyboard.press("Control+Shift+P");
  await page.locator(".quick-input-widget input").fill(">todo-ls: Pause supervision");
  await page.locator(".quick-input-list .monaco-list-row", { hasText: "Pause supervision" }).first().waitFor({ timeout: TIMEOUT });
  await page.keyboard.press("Enter");
  const pick = page.locator(".quick-input-list .monaco-list-row", { hasText: session });
  await pick.waitFor({ timeout: TIMEOUT });
  await pick.click();
  const paused = await waitFor("paused", () => statusBar.innerText(), (t) => t.includes(`${progress} · paused`));
  const toast = page.locator(".notification-toast", { hasText: "todo-ls: pause" }).first();
  await toast.waitFor({ timeout: TIMEOUT });
  step("paused", { text: paused.match(/📋 [^\n]*/)[0], message: plain(await toast.innerText()), seen: await seen(), screenshot: await shot("9-agent-paused") });
  // The code lens on the first line follows too.
  const lens = await waitFor("the code lens", () => page.locator(".monaco-editor .codelens-decoration").first().innerText(),
    (t) => t.includes(`${progress} · supervisor: paused`));
  step("code lens paused", { text: lens, screenshot: await shot("10-agent-lens") });
}

/**
 * A multi-root workspace: the status bar shows the active editor's folder, the tooltip a
 * session's own todos and host, and the quick pick toggles an item of that session's list.
 */
async function folders() {
  const session = env("SESSION");
  await openFile("TASKS.md", "only item here");
  const second = await waitFor("the second folder's status", () => statusBar.innerText(), (t) => /📋 [█░]+ 1\/2 open · working/.test(t));
  step("second folder status", { text: second.match(/📋 [^\n]*/)[0] });
  const hover = await tooltip("the session's todos", (t) => new RegExp(`^${session} working · .*1/2 todos · opencode-v2`, "m").test(t));
  step("tooltip shows the session's todos", { tooltip: hover.split("\n").filter(Boolean), screenshot: await shot("13-folders-tooltip") });
  await page.mouse.move(1000, 480);
  await page.keyboard.press("Escape");

  // A click on the status bar item: the open items and, apart, the agent's list.
  await statusBar.locator(".statusbar-item", { hasText: "📋" }).click();
  const row = page.locator(".quick-input-list .monaco-list-row", { hasText: "Update the docs" });
  await row.waitFor({ timeout: TIMEOUT });
  const rows = await page.locator(".quick-input-list .monaco-list-row").allInnerTexts();
  step("quick pick lists the session items", { rows: rows.map((r) => plain(r).replace(/\n/g, " ")), screenshot: await shot("14-folders-quick-pick") });
  await row.click();
  const toast = page.locator(".notification-toast", { hasText: "is now completed" }).first();
  await toast.waitFor({ timeout: TIMEOUT });
  const toggled = await tooltip("the toggled todo", (t) => new RegExp(`^${session} working · .*0/2 todos`, "m").test(t));
  step("session item toggled", { message: plain(await toast.innerText()), tooltip: toggled.split("\n").filter(Boolean) });
  await page.mouse.move(1000, 480);
  await page.keyboard.press("Escape");

  // The first folder's file: its own status (no session there, so no state word).
  await openFile("PLAN.md", "write the intro");
  const first = await waitFor("the first folder's status", () => statusBar.innerText(), (t) => /📋 [█░]+ 3\/5 open(?! ·)/.test(t));
  step("first folder status", { text: first.match(/📋 [^\n]*/)[0] });
}

/**
 * No Python the bundled server fits: the status bar and one error message say so, and nothing
 * retries. The window is watched for a while (OBSERVE_MS) to catch restarts.
 */
async function noPython() {
  const text = await waitFor("the no-Python status", () => statusBar.innerText(), (t) => t.includes("todo-ls: no Python"), 60_000);
  const toasts = page.locator(".notification-toast", { hasText: "todo-ls needs Python" });
  await toasts.first().waitFor({ timeout: TIMEOUT });
  step("no Python", { text: text.split("\n").find((l) => l.includes("no Python")), message: plain(await toasts.first().innerText()), screenshot: await shot("11-no-python") });
  await page.waitForTimeout(Number(env("OBSERVE_MS")));
  const after = plain(await statusBar.innerText());
  step("still no Python", { statusBar: after.includes("todo-ls: no Python"), toasts: await toasts.count() });
}

/** The todo-ls view in the Explorer, expanded. */
async function panelView() {
  await page.keyboard.press("Control+Shift+E");
  const pane = page.locator(".pane", { has: page.locator(".pane-header", { hasText: /todo-ls/i }) }).first();
  await pane.waitFor({ timeout: TIMEOUT });
  const header = pane.locator(".pane-header").first();
  if ((await header.getAttribute("aria-expanded")) !== "true") {
    await header.click();
  }
  // The folders' pane collapsed: the view gets the Explorer's height (and the screenshots show it).
  const folders = page.locator(".pane-header", { has: page.locator(".title", { hasText: new RegExp(`^${path.basename(workspace)}$`, "i") }) }).first();
  if ((await folders.getAttribute("aria-expanded")) === "true") {
    await folders.click();
  }
  // A wider side bar, as a user drags it, so that a session's description shows whole.
  const sash = await page.locator(".part.sidebar").boundingBox();
  await page.mouse.move(sash.x + sash.width + 1, 430);
  await page.mouse.down();
  await page.mouse.move(sash.x + 640, 430, { steps: 5 });
  await page.mouse.up();
  await page.mouse.move(1000, 480);
  return pane;
}

/** The view's rows as a user reads them: `[x] ` for a ticked box, the label, the description. */
async function panelRows(pane) {
  const rows = await pane.locator(".monaco-list-row").evaluateAll((elements) => elements.map((row) => {
    const text = (selector) => (row.querySelector(selector)?.textContent ?? "").trim();
    const box = row.querySelector(".custom-view-tree-node-item-checkbox");
    const ticked = box && (box.getAttribute("aria-checked") === "true" || box.classList.contains("checked"));
    const mark = box ? (ticked ? "[x] " : "[ ] ") : "";
    const depth = Number(row.getAttribute("aria-level") ?? "1") - 1;
    return "  ".repeat(depth) + `${mark}${text(".label-name")} ${text(".label-description")}`.trim();
  }));
  return plain(rows.join("\n"));
}

/** Runs a palette command by its title. */
async function palette(title) {
  await page.keyboard.press("Control+Shift+P");
  await page.locator(".quick-input-widget input").fill(`>${title}`);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor({ timeout: TIMEOUT });
  await page.keyboard.press("Enter");
}

/** Picks the quick pick row showing `text`. */
async function pick(text) {
  const row = page.locator(".quick-input-list .monaco-list-row", { hasText: text }).first();
  await row.waitFor({ timeout: TIMEOUT });
  await row.click();
}

/**
 * A command run while the server is still starting waits for it and then answers, rather than
 * saying at once that the server is not running. The server's command waits for GATE to exist;
 * a while later (no answer yet, no error), the driver creates it.
 */
async function slowStart() {
  await palette("todo-ls: Re-read subscribed files");
  const toasts = page.locator(".notification-toast", { hasText: "todo-ls:" });
  await page.waitForTimeout(2000);
  step("command waits for the start", { toasts: await toasts.count(), screenshot: await shot("21-slow-start") });
  writeFileSync(env("GATE"), "");
  const answer = page.locator(".notification-toast", { hasText: "re-read" }).first();
  await answer.waitFor({ timeout: 60_000 });
  step("answered once started", { message: plain(await answer.innerText()), toasts: await toasts.count() });
}

/**
 * The todo-ls view, opened before any file (the project file started the extension): the plan
 * with its counts and items, a click opens an item's line, a ticked box edits the editor and
 * the status bar follows; "Connect an agent…" writes Claude Code's hooks (the test checks the
 * file), then the test's real Claude Code session shows under Agents while it works and after.
 */
async function panel() {
  // The item ticked below as PLAN.md writes it (the test may give it markup; the view shows
  // it as the outline names it, "write the intro ✓").
  const intro = /- \[ \] (write the .*intro.*)/.exec(PLAN)?.[1] ?? "write the intro ✓";
  const pane = await panelView();
  const listed = await waitFor("the plan in the view", () => panelRows(pane),
    (t) => t.includes("PLAN.md 3 open of 5") && t.includes("[x] write the changelog"), 90_000);
  step("view lists the plan", { rows: listed.split("\n"), screenshot: await shot("15-view") });

  await pane.locator(".monaco-list-row", { hasText: "tag the release" }).first().click();
  await waitFor("PLAN.md in the editor", () => editorLines.innerText(), (t) => plain(t).includes(intro));
  await waitFor("the cursor on line 6", () => statusBar.innerText(), (t) => t.includes("Ln 6, Col 1"));
  step("click opens the item's line");

  const row = pane.locator(".monaco-list-row", { hasText: "write the intro" }).first();
  // A status arriving as the box is clicked re-renders the row and can swallow the click: a
  // user whose box stays empty clicks again (the box shows unticked until the edit lands).
  await waitFor("the ticked line in the editor", async () => {
    const text = plain(await editorLines.innerText());
    if (!text.includes(`- [x] ${intro}`)) {
      await row.locator(".custom-view-tree-node-item-checkbox").click();
      await page.waitForTimeout(1_500);
    }
    return await editorLines.innerText();
  }, (t) => plain(t).includes(`- [x] ${intro}`));
  const counted = await waitFor("the new count", () => statusBar.innerText(), (t) => /📋 [█░]+ 2\/5 open/.test(t));
  const after = await waitFor("the view's new count", () => panelRows(pane), (t) => t.includes("PLAN.md 2 open of 5"));
  await page.keyboard.press("Control+S");
  step("checkbox ticked", { text: counted.match(/📋 [^\n]*open[^\n]*/)[0], rows: after.split("\n"), screenshot: await shot("16-view-ticked") });

  // Ctrl+T: the server's workspace symbols are the open items; picking one opens its line.
  await page.keyboard.press("Control+T");
  await page.locator(".quick-input-widget input").fill("#tag");
  const found = page.locator(".quick-input-list .monaco-list-row", { hasText: "tag the release" }).first();
  await found.waitFor({ timeout: TIMEOUT });
  const symbols = await page.locator(".quick-input-list .monaco-list-row").allInnerTexts();
  step("Ctrl+T lists the item", { rows: symbols.map((r) => plain(r).replace(/\n/g, " ")), screenshot: await shot("17-ctrl-t") });
  await found.click();
  await waitFor("the cursor on line 6", () => statusBar.innerText(), (t) => t.includes("Ln 6, Col"));
  step("Ctrl+T opens its line");

  // Fold done items: lines 3-4 are closed now (the tick above and "set up CI"); line 4 hides.
  await palette("todo-ls: Fold done items");
  const folded = await waitFor("the closed run folded", () => editorLines.innerText(),
    (t) => plain(t).includes(intro) && !t.includes("set up CI") && t.includes("ship it"));
  step("done items folded", { lines: folded.split("\n"), screenshot: await shot("18-folded") });

  await palette("todo-ls: Connect an agent…");
  await pick("Claude Code");
  await pick("This project");
  const toast = page.locator(".notification-toast", { hasText: "Claude Code: changed" }).first();
  await toast.waitFor({ timeout: TIMEOUT });
  step("agent connected", { message: plain(await toast.innerText()) });

  // The test starts Claude Code now; its session shows under Agents with its state.
  const working = await waitFor("the session working under Agents", () => panelRows(pane),
    (t) => /working · .*claude-code/.test(t), 60_000);
  // The lens above the plan follows the session too (the server asks for a lens refresh when
  // the state word changes); the toast is dismissed first: it shows the project's full path.
  await palette("Notifications: Clear All Notifications");
  await toast.waitFor({ state: "detached", timeout: TIMEOUT });
  const lensNow = await waitFor("the code lens saying working",
    () => page.locator(".monaco-editor .codelens-decoration").first().innerText(),
    (t) => t.includes("supervisor: working"));
  step("agent session working", { rows: working.split("\n"), lens: lensNow, screenshot: await shot("19-view-agent") });
  const over = await waitFor("the session's turn over", () => panelRows(pane),
    (t) => /(idle|done) · .*claude-code/.test(t) && t.includes("PLAN.md 0 open of 5"), 60_000);
  step("agent session finished", { rows: over.split("\n"), screenshot: await shot("20-view-agent-done") });
}

/** The tree's rows after scrolling it to its end (it renders only the rows in sight). */
async function panelEnd(pane) {
  // The mouse moved and the wheel turned directly: a locator's hover waits for the element to
  // settle, which a tree re-rendering after each status delays by seconds.
  const box = await pane.locator(".monaco-list").first().boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, 100_000);
  await page.waitForTimeout(100);
  return await panelRows(pane);
}

/**
 * A workspace of FILES subscribed notes (tests/editors/big_workspace.py; note n holds `task n.0`
 * to `task n.2`, two open): the view lists the first files by path with the first ones' items,
 * a collapsed file's items are read when it is expanded, ticking one of them writes the file,
 * and "Show more" lists 50 more files. Each step's `ms` says how long the user waited.
 */
async function big() {
  const total = Number(env("FILES"));
  const name = (n) => `notes/part${String(Math.floor(n / 1000)).padStart(2, "0")}/n${String(n).padStart(5, "0")}.md`;
  const pane = await panelView();
  const shown = await waitFor("the first files in the view", () => panelRows(pane),
    (t) => t.includes(`${name(0)} 2 open of 3`) && t.includes("[ ] task 0.0"), 240_000);
  step("view lists the first files", { rows: shown.split("\n").slice(0, 12), screenshot: await shot("22-big-view") });

  // Collapse All (the view's title bar): the 50 files, one row each.
  await pane.locator(".pane-header").first().hover();
  await pane.locator(".pane-header .action-label[aria-label^='Collapse All']").first().click();
  const target = 24; // beyond the files shown expanded at first: its items were never read
  await waitFor("the files collapsed", () => panelRows(pane), (t) => !t.includes("task 0.0") && t.includes(name(target)));
  const before = await panelRows(pane);
  step("files collapsed", { unread: !before.includes(`task ${target}.0`) });
  const row = pane.locator(".monaco-list-row", { hasText: name(target) }).first();
  await row.locator(".monaco-tl-twistie").click();
  const expanded = await waitFor("the expanded file's items", () => panelRows(pane), (t) => t.includes(`[ ] task ${target}.0`) && t.includes(`[x] task ${target}.2`));
  const ofTarget = (rows) => rows.split("\n").filter((r) => r.includes(name(target)) || r.includes(`Note ${target} `) || r.includes(`task ${target}.`));
  step("file expanded", { rows: ofTarget(expanded), screenshot: await shot("23-big-expanded") });

  const file = path.join(workspace, name(target));
  const item = pane.locator(".monaco-list-row", { hasText: `task ${target}.0` }).first();
  await waitFor("the ticked item on disk", async () => {
    const text = readFileSync(file, "utf8");
    if (!text.includes(`- [x] task ${target}.0`)) {
      await item.locator(".custom-view-tree-node-item-checkbox").click();
      await page.waitForTimeout(1_500);
    }
    return readFileSync(file, "utf8");
  }, (t) => t.includes(`- [x] task ${target}.0`), 60_000);
  const ticked = await waitFor("the view's new count", () => panelRows(pane), (t) => t.includes(`${name(target)} 1 open of 3`) && t.includes(`[x] task ${target}.0`), 60_000);
  step("item ticked", { rows: ofTarget(ticked), screenshot: await shot("24-big-ticked") });

  const more = `${total - 50} more files — Show more`;
  await waitFor("the Show more line", () => panelEnd(pane), (t) => t.includes(more));
  step("show more line", {});
  await pane.locator(".monaco-list-row", { hasText: more }).first().click();
  const listed = await waitFor("50 more files", () => panelEnd(pane), (t) => t.includes(`${total - 100} more files — Show more`) && t.includes(name(99)), 60_000);
  step("show more lists 50 more", { rows: listed.split("\n").slice(-4), screenshot: await shot("25-big-more") });
}

let failed = false;
try {
  if (scenario === "start") {
    await openPlan("write the intro");
    await waitFor("the todo-ls status", () => statusBar.innerText(), (t) => /📋 [█░]+ 3\/5 open/.test(t), 90_000);
    step("status bar");
  } else if (scenario === "slow-start") {
    await openPlan("write the intro");
    await slowStart();
  } else if (scenario === "big") {
    await loadWorkbench();
    await big();
  } else if (scenario === "panel") {
    await loadWorkbench();
    await panel();
  } else if (scenario === "folders") {
    await loadWorkbench();
    await folders();
  } else if (scenario === "bundled") {
    await openPlan("write the intro");
    await statusBarCounts();
    await quickFixMarksDone();
  } else if (scenario === "no-python") {
    await openPlan("write the intro");
    await noPython();
  } else if (scenario === "agent") {
    await openPlan(PLAN.split("\n")[0]);
    await agent();
  } else {
    await openPlan("write the intro");
    await editing();
  }
} catch (error) {
  failed = true;
  console.log(JSON.stringify({ error: String(error?.stack ?? error), ms: Date.now() - started }));
  await shot("failure").then((f) => console.log(JSON.stringify({ screenshot: f }))).catch(() => {});
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
