#!/usr/bin/env bash
# Sets up everything the tests need on a fresh machine (Python packages, OpenCode 1.x, Neovim,
# code-server + Chromium) and runs lint, types and the whole test suite. Heavy installs are
# cached under ~/.cache/todo-ls and reused when present.
set -euo pipefail
cd "$(dirname "$0")/.."
export TODO_LS_CACHE="${TODO_LS_CACHE:-$HOME/.cache/todo-ls}"
mkdir -p "$TODO_LS_CACHE"

echo "== set up"
scripts/setup.sh --test
for s in scripts/setup-*.sh; do
  [ -e "$s" ] || continue
  echo "== $s"
  "$s"
done

echo "== lint and types"
.venv/bin/ruff check todo_ls tests bench
.venv/bin/ruff format --check todo_ls tests bench
.venv/bin/mypy

echo "== tests"
.venv/bin/python -m pytest -p no:cacheprovider "$@"
