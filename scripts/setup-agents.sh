#!/usr/bin/env bash
# Installs the real agent CLIs the hook tests run: Claude Code (@anthropic-ai/claude-code@2.1.332),
# Codex CLI (@openai/codex@0.171.0) and Gemini CLI (@google/gemini-cli@0.61.0), each into its
# own folder under
# ${TODO_LS_CACHE:-$HOME/.cache/todo-ls}/agents. Skipped per agent when its binary already
# reports the pinned version. npm 11 does not run the packages' postinstall scripts, so the
# tests run the platform binaries directly (paths below, also in tests/support/agent_harness.py);
# for the same reason npm's engine warning about Node (Claude Code asks for Node 22) is harmless:
# the binaries need no Node. Gemini CLI is one bundled script with no dependencies: its package
# is unpacked (`npm pack`) and run with Node (`node package/bundle/gemini.js`). About 30 s and
# 910 MB on a first run.
set -euo pipefail
ROOT="${TODO_LS_CACHE:-$HOME/.cache/todo-ls}/agents"

install_agent() {  # name package version binary-path-inside-the-folder
  local name="$1" package="$2" version="$3" rel="$4"
  local dir="$ROOT/$name"
  local bin="$dir/$rel"
  if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -qF "$version"; then
    echo "$name $version already installed in $dir"
    return 0
  fi
  command -v npm >/dev/null || { echo "setup-agents: npm is required" >&2; exit 1; }
  mkdir -p "$dir"
  (
    cd "$dir"
    [ -f package.json ] || npm init -y >/dev/null
    npm install --no-audit --no-fund --save-exact "$package@$version"
  )
  local got
  got="$("$bin" --version 2>&1 || true)"
  case "$got" in
    *"$version"*) echo "$name $version installed in $dir" ;;
    *) echo "setup-agents: $name: expected $version, got: $got" >&2; exit 1 ;;
  esac
}

install_agent claude-code @anthropic-ai/claude-code 2.1.332 \
  node_modules/@anthropic-ai/claude-code-linux-x64/claude
install_agent codex @openai/codex 0.171.0 \
  node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex

install_packed() {  # name package version script-path-inside-the-folder
  local name="$1" package="$2" version="$3" rel="$4"
  local dir="$ROOT/$name"
  if [ -f "$dir/$rel" ] && [ "$(cat "$dir/version" 2>/dev/null)" = "$version" ]; then
    echo "$name $version already installed in $dir"
    return 0
  fi
  command -v npm >/dev/null || { echo "setup-agents: npm is required" >&2; exit 1; }
  rm -rf "$dir"
  mkdir -p "$dir"
  (
    cd "$dir"
    local tarball
    tarball="$(npm pack --silent "$package@$version" | tail -n 1)"
    tar -xzf "$tarball"
    rm -f "$tarball"
  )
  local got
  got="$(node "$dir/$rel" --version 2>&1 || true)"
  case "$got" in
    *"$version"*) echo "$version" >"$dir/version"; echo "$name $version installed in $dir" ;;
    *) echo "setup-agents: $name: expected $version, got: $got" >&2; exit 1 ;;
  esac
}

install_packed gemini-cli @google/gemini-cli 0.61.0 package/bundle/gemini.js

# --- Qwen Code, GitHub Copilot CLI, Factory Droid (the hook hosts added for issue 18) ---------
# Qwen Code ships as one bundle with no dependencies: unpacked like Gemini CLI (about 123 MB),
# run with Node (`node package/cli-entry.js`). Copilot CLI's loader package brings the platform
# binary (a 197 MB Node single-executable that unpacks ~235 MB into XDG_CACHE_HOME on its
# first run). Droid: the platform package itself (the launcher of that release has no matching
# binary on the registry). About 30 s and 600 MB more on a first run.
install_packed qwen-code @qwen-code/qwen-code 0.24.4 package/cli-entry.js
# Copilot's first run unpacks into XDG_CACHE_HOME: the version check does it once into the
# folder the tests share (tests/support/chat_agents.py), not into the user's ~/.cache.
XDG_CACHE_HOME="$ROOT/copilot-cli/xdg-cache" install_agent copilot-cli @github/copilot 1.0.102 \
  node_modules/@github/copilot-linux-x64/copilot
install_agent droid @factory/cli-linux-x64 0.225.2 \
  node_modules/@factory/cli-linux-x64/bin/droid
# --- end of Qwen Code, Copilot CLI, Droid ----------------------------------------------------

# --- pi (docs/agents.md) ------------------------------------------------------------------
# pi (@mariozechner/pi-coding-agent) runs from its package with Node >= 20.6 (`node
# .../dist/cli.js`, which prints its version on stderr); it needs none of its dependencies'
# install scripts. About 15 s and 200 MB on a first run.
PI_VERSION=0.73.1
PI_CLI="$ROOT/pi/node_modules/@mariozechner/pi-coding-agent/dist/cli.js"
if [ "$(PI_OFFLINE=1 node "$PI_CLI" --version 2>&1)" = "$PI_VERSION" ]; then
  echo "pi $PI_VERSION already installed in $ROOT/pi"
else
  rm -rf "$ROOT/pi" && mkdir -p "$ROOT/pi"
  npm install --prefix "$ROOT/pi" --ignore-scripts --no-audit --no-fund --save-exact \
    "@mariozechner/pi-coding-agent@$PI_VERSION"
  [ "$(PI_OFFLINE=1 node "$PI_CLI" --version 2>&1)" = "$PI_VERSION" ] ||
    { echo "setup-agents: pi: expected $PI_VERSION" >&2; exit 1; }
  echo "pi $PI_VERSION installed in $ROOT/pi"
fi
# --- end of pi ---------------------------------------------------------------------------------
