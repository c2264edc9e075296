#!/usr/bin/env bash
# Installs the real OpenCode 1.x server the host tests run against (opencode-ai@1.18.33) into
# ${TODO_LS_CACHE:-$HOME/.cache/todo-ls}/opencode. Skipped when that binary already reports
# the right version. npm warns that the opencode-ai postinstall is "not yet covered by
# allowScripts": harmless, the tests run the platform binary directly.
# Also tmux (Debian package): tests/hosts/test_opencode_tui.py runs the real OpenCode TUI in it.
set -euo pipefail
if ! command -v tmux >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null
fi
VERSION="1.18.33"
DIR="${TODO_LS_CACHE:-$HOME/.cache/todo-ls}/opencode"
BIN="$DIR/node_modules/opencode-linux-x64/bin/opencode"

if [ -x "$BIN" ] && [ "$("$BIN" --version 2>/dev/null)" = "$VERSION" ]; then
  echo "opencode $VERSION already installed in $DIR"
  exit 0
fi
command -v npm >/dev/null || { echo "setup-opencode: npm is required" >&2; exit 1; }
mkdir -p "$DIR"
cd "$DIR"
[ -f package.json ] || npm init -y >/dev/null
npm install --no-audit --no-fund "opencode-ai@$VERSION"
got="$("$BIN" --version)"
[ "$got" = "$VERSION" ] || { echo "setup-opencode: expected $VERSION, got $got" >&2; exit 1; }
echo "opencode $VERSION installed in $DIR"
