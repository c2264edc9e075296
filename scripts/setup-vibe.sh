#!/usr/bin/env bash
# Installs Mistral Vibe (PyPI mistral-vibe 3.0.3), which the real-program tests run
# (tests/support/vibe_agent.py), in a Python 3.12 venv under
# ${TODO_LS_CACHE:-$HOME/.cache/todo-ls}/agents; skipped when its version file matches.
set -euo pipefail
ROOT="${TODO_LS_CACHE:-$HOME/.cache/todo-ls}/agents"
mkdir -p "$ROOT"

# shellcheck source=scripts/python312.sh
. "$(dirname "$0")/python312.sh"

done_already() {  # folder version
  [ "$(cat "$1/version" 2>/dev/null)" = "$2" ]
}

# --- Mistral Vibe: the wheel pins certifi==2026.10.19, which not every registry has, so its
# requirements are installed with that one pin relaxed, then the wheel without dependencies.
VIBE_VERSION=3.0.3
dir="$ROOT/mistral-vibe"
if done_already "$dir" "$VIBE_VERSION"; then
  echo "mistral-vibe $VIBE_VERSION already installed in $dir"
else
  rm -rf "$dir"
  "$(python312 "Mistral Vibe")" -m venv "$dir/venv"
  mkdir -p "$dir/wheel"
  "$dir/venv/bin/pip" download --quiet --no-deps -d "$dir/wheel" "mistral-vibe==$VIBE_VERSION"
  wheel="$(ls "$dir"/wheel/mistral_vibe-*.whl)"
  "$dir/venv/bin/python" - "$wheel" >"$dir/requirements.txt" <<'PY'
import re, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
    for line in z.read(meta).decode().splitlines():
        if line.startswith("Requires-Dist:") and "extra ==" not in line:
            req = line.split(":", 1)[1].strip()
            print(re.sub(r"^certifi==", "certifi>=", req))
PY
  "$dir/venv/bin/pip" install --quiet -r "$dir/requirements.txt"
  "$dir/venv/bin/pip" install --quiet --no-deps "$wheel"
  rm -rf "$dir/wheel"
  [ -x "$dir/venv/bin/vibe" ] || { echo "setup-vibe: no vibe in $dir" >&2; exit 1; }
  echo "$VIBE_VERSION" >"$dir/version"
  echo "mistral-vibe $VIBE_VERSION installed in $dir"
fi
