#!/usr/bin/env bash
# Creates .venv with todo-ls installed (editable) plus the test tools. Idempotent and quick
# when nothing changed. Usage: scripts/setup.sh [--test]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
extra=""
[ "${1:-}" = "--test" ] && extra="[test]"
stamp=".venv/.installed$extra"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".$extra"
  touch "$stamp"
fi
