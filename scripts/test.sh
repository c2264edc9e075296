#!/usr/bin/env bash
# Sets up everything the tests need on a fresh machine (Python packages, OpenCode 1.x, Kilo,
# Neovim, code-server + Chromium) and runs lint, types and the whole test suite. Heavy installs are
# cached under ~/.cache/todo-ls and reused when present.
#
# scripts/test.sh --quick [PYTEST ARGS]: the developer loop. It sets up .venv and the compiled
# scanner only (no editors, OpenCode or agents to install), runs lint and types, then every test
# that needs no install: unit, LSP, and the host, reliability and MCP tests that run against the
# fake 2.x server or none (no real OpenCode, editor or agent), then the benchmarks' smoke tests
# (tests/bench) on their own. CI runs the full suite (no --quick).
set -euo pipefail
cd "$(dirname "$0")/.."
export TODO_LS_CACHE="${TODO_LS_CACHE:-$HOME/.cache/todo-ls}"
mkdir -p "$TODO_LS_CACHE"

quick=0
if [ "${1:-}" = "--quick" ]; then
  quick=1
  shift
fi

echo "== set up"
scripts/setup.sh --test
# The compiled checklist scanner: the unit tests check it as well as the pure one, so the quick
# loop builds it too (a few seconds, nothing when it matches scan.py).
scripts/setup-compiled.sh
if [ "$quick" = 0 ]; then
  for s in scripts/setup-*.sh; do
    [ -e "$s" ] || continue
    [ "$s" = scripts/setup-compiled.sh ] && continue
    echo "== $s"
    "$s"
  done
fi

echo "== lint and types"
.venv/bin/ruff check todo_ls tests bench
.venv/bin/ruff format --check todo_ls tests bench
.venv/bin/mypy

echo "== tests"
if [ "$quick" = 1 ]; then
  # The markers keep out what needs an install; further arguments go to pytest (e.g. -k toggle).
  # TODO_LS_TEST_WORKERS: pytest-xdist workers (0: one process, as CI runs the full suite).
  .venv/bin/python -m pytest -p no:cacheprovider -n "${TODO_LS_TEST_WORKERS:-4}" \
    -m "not opencode and not editor and not agents and not kilo" \
    tests/unit tests/lsp tests/hosts tests/reliability tests/mcp "$@"
  # The benchmark scripts at tiny sizes (tests/bench): each starts its own servers, so they run
  # after the rest, in one process. A narrowed run (with pytest arguments) leaves them out.
  if [ $# -eq 0 ]; then
    echo "== benchmark smoke tests"
    # The side by side with VS Code's markdown server needs scripts/setup-peer.sh: full run only.
    exec .venv/bin/python -m pytest -p no:cacheprovider -n 0 -m "not peer" tests/bench
  fi
  exit 0
fi
.venv/bin/python -m pytest -p no:cacheprovider "$@"
