#!/usr/bin/env bash
# Sets up todo-ls in .venv and checks the sample plan (exit 1 while it has open items).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/todo-ls check examples/PLAN.md "$@"
