import assert from "node:assert/strict";
import { test } from "node:test";
import { serverSettings } from "../src/settings";

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
