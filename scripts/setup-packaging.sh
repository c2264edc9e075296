#!/usr/bin/env bash
# Installs the packaging tools the release uses and its tests check (build, twine, hatchling,
# pipx, uv) into their own venv under ${TODO_LS_CACHE:-$HOME/.cache/todo-ls}/packaging, so that
# they never mix with the project's .venv (the install tests need a pipx and a uv that a user
# would have, not the ones of the code under test). Skipped when those versions are there.
# Prints nothing but its own progress; scripts/build-*.sh find the tools through this folder.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${TODO_LS_CACHE:-$HOME/.cache/todo-ls}"
TOOLS="$CACHE/packaging"
PY=${PYTHON:-python3}
PINS=(build==1.6.1 twine==7.0.0 hatchling==1.33.0 pipx==1.18.4 uv==0.13.9)
stamp="$TOOLS/.installed-$(printf '%s\n' "${PINS[@]}" | sha1sum | cut -c1-12)"

if [ -f "$stamp" ]; then
  exit 0
fi
echo "setup-packaging: ${PINS[*]} → $TOOLS"
rm -rf "$TOOLS"
"$PY" -m venv "$TOOLS"
mkdir -p "$CACHE/logs"
"$TOOLS/bin/python" -m pip install -q "${PINS[@]}" >"$CACHE/logs/packaging.log" 2>&1 ||
  { tail -30 "$CACHE/logs/packaging.log" >&2; exit 1; }
touch "$stamp"
echo "setup-packaging: ok"
