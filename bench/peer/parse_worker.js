// The client side of VS Code's markdown server that bench_peer.py cannot be: VS Code answers
// the server's `markdown/parse` with the tokens of its own markdown-it (the extension host
// parses, the server only reads tokens). One request a line on stdin, as JSON:
//   {"op": "set", "uri": ..., "version": n, "text": ...}   an open document's current text
//   {"op": "close", "uri": ...}
//   {"op": "parse", "id": n, "uri": ..., "text": ...}      text given, or the open document's,
//                                                          or the file on disk
// and for each parse one line `id<TAB>tokens as JSON` on stdout. Like VS Code's engine
// (markdownEngine.ts, TokenCache) the tokens of the last document version parsed are kept, so
// documentSymbol and foldingRange on one version parse it once. markdown-it is set up as VS
// Code's defaults have it: HTML on, linkify on, typographer off.
"use strict";
const fs = require("fs");
const readline = require("readline");
const { fileURLToPath } = require("url");
const MarkdownIt = require("markdown-it");

const md = new MarkdownIt({ html: true, linkify: true, typographer: false });
const open = new Map(); // uri -> {version, text}
let cached = null; // {uri, version, json}

function tokensOf(uri, text, version) {
  if (version !== undefined && cached && cached.uri === uri && cached.version === version) {
    return cached.json;
  }
  const json = JSON.stringify(md.parse(text.replace(/\u2028|\u2029/g, ""), {}));
  if (version !== undefined) cached = { uri, version, json };
  return json;
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.op === "set") {
    open.set(message.uri, { version: message.version, text: message.text });
  } else if (message.op === "close") {
    open.delete(message.uri);
  } else if (message.op === "parse") {
    let json;
    if (typeof message.text === "string") {
      json = tokensOf(message.uri, message.text, undefined);
    } else if (open.has(message.uri)) {
      const doc = open.get(message.uri);
      json = tokensOf(message.uri, doc.text, doc.version);
    } else {
      let text = null;
      try {
        text = fs.readFileSync(fileURLToPath(message.uri), "utf8");
      } catch {
        text = null;
      }
      json = text === null ? "[]" : tokensOf(message.uri, text, undefined);
    }
    process.stdout.write(`${message.id}\t${json}\n`);
  }
});
