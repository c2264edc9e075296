// Bundles the extension (and, with --tests, the pure-TypeScript unit tests) into out/.
// The extension is one CommonJS file; `vscode` is provided by the editor at run time.
import * as esbuild from "esbuild";
import { readdirSync } from "node:fs";

const tests = process.argv.includes("--tests");
const common = { bundle: true, platform: "node", format: "cjs", target: "node20", logLevel: "warning" };

if (tests) {
  await esbuild.build({
    ...common,
    entryPoints: readdirSync("test").filter((f) => f.endsWith(".test.ts")).map((f) => `test/${f}`),
    outdir: "out/test",
    sourcemap: true,
    external: ["vscode"],
  });
} else {
  await esbuild.build({
    ...common,
    entryPoints: ["src/extension.ts"],
    outfile: "out/extension.js",
    external: ["vscode"],
    minify: true,
  });
}
