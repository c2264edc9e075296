import assert from "node:assert/strict";
import { test } from "node:test";
import { explicitSettings, serverSettings } from "../src/settings";

test("the extension's own keys stay in the extension", () => {
  const settings = serverSettings({ server: { command: ["x"] }, trace: { server: "off" }, markdownFiles: ["PLAN.md"] });
  assert.deepEqual(settings, { markdownFiles: ["PLAN.md"] });
});

test("an untrusted workspace gets the editor features without the supervisor", () => {
  const settings = serverSettings({ markdownFiles: ["PLAN.md"], supervisor: { url: "http://127.0.0.1:9", enabled: true } }, false);
  assert.deepEqual(settings, { markdownFiles: ["PLAN.md"], supervisor: { url: "http://127.0.0.1:9", enabled: false } });
  assert.deepEqual(serverSettings(undefined, false), { supervisor: { enabled: false } });
  // A trusted workspace keeps what the user set.
  assert.deepEqual(serverSettings({ supervisor: { enabled: true } }, true), { supervisor: { enabled: true } });
});

test("only the keys the user set are sent, nested, the most specific scope winning", () => {
  const keys = ["markdownFiles", "supervisor.url", "supervisor.settleMs", "codeLens.enabled"];
  const found: Record<string, object> = {
    markdownFiles: { globalValue: ["PLAN.md"], workspaceFolderValue: ["TODO.md"] },
    "supervisor.settleMs": { workspaceValue: 100 },
    "codeLens.enabled": { globalValue: false },
    "supervisor.url": {}, // only VS Code's default: left to the project file and the server
  };
  assert.deepEqual(
    explicitSettings(keys, (key) => found[key]),
    { markdownFiles: ["TODO.md"], supervisor: { settleMs: 100 }, codeLens: { enabled: false } },
  );
  assert.deepEqual(explicitSettings(keys, () => undefined), {});
});
