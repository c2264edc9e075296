#!/usr/bin/env bash
# Installs the real Kilo Code CLI the Kilo host tests run (`kilo serve`, an OpenCode 1.x server
# with version 7.x): @kilocode/cli-linux-x64@7.7.9 into ${TODO_LS_CACHE:-$HOME/.cache/todo-ls}/kilo.
# The platform package directly: its launcher package finds no linux binary. Skipped when the
# binary already reports the pinned version.
set -euo pipefail
VERSION="7.7.9"
DIR="${TODO_LS_CACHE:-$HOME/.cache/todo-ls}/kilo"
BIN="$DIR/node_modules/@kilocode/cli-linux-x64/bin/kilo"

if [ -x "$BIN" ] && [ "$("$BIN" --version 2>/dev/null)" = "$VERSION" ]; then
  echo "kilo $VERSION already installed in $DIR"
  exit 0
fi
command -v npm >/dev/null || { echo "setup-kilo: npm is required" >&2; exit 1; }
mkdir -p "$DIR"
cd "$DIR"
[ -f package.json ] || npm init -y >/dev/null
npm install --no-audit --no-fund --save-exact "@kilocode/cli-linux-x64@$VERSION"
got="$("$BIN" --version 2>&1 || true)"
[ "$got" = "$VERSION" ] || { echo "setup-kilo: expected $VERSION, got: $got" >&2; exit 1; }
echo "kilo $VERSION installed in $DIR"
