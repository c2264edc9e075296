#!/usr/bin/env bash
# Installs the OpenHands CLI (PyPI openhands 1.16.0, which brings openhands-sdk 1.21.0), which the
# real-program tests run (tests/support/openhands_agent.py), in a Python 3.12 venv under
# ${TODO_LS_CACHE:-$HOME/.cache/todo-ls}/agents (the package requires Python ==3.12.*); skipped
# when its version file matches. About 800 MB and a few minutes on a first run.
set -euo pipefail
ROOT="${TODO_LS_CACHE:-$HOME/.cache/todo-ls}/agents"
mkdir -p "$ROOT"

# shellcheck source=scripts/python312.sh
. "$(dirname "$0")/python312.sh"

OPENHANDS_VERSION=1.16.0
dir="$ROOT/openhands"
if [ "$(cat "$dir/version" 2>/dev/null)" = "$OPENHANDS_VERSION" ] && [ -x "$dir/venv/bin/openhands" ]; then
  echo "openhands $OPENHANDS_VERSION already installed in $dir"
  exit 0
fi
rm -rf "$dir"
"$(python312 "OpenHands CLI")" -m venv "$dir/venv"
"$dir/venv/bin/pip" install --quiet --disable-pip-version-check "openhands==$OPENHANDS_VERSION"
[ -x "$dir/venv/bin/openhands" ] || { echo "setup-openhands: no openhands in $dir" >&2; exit 1; }
echo "$OPENHANDS_VERSION" >"$dir/version"
echo "openhands $OPENHANDS_VERSION installed in $dir"
