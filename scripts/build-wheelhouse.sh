#!/usr/bin/env bash
# Fills a folder with every wheel todo-ls needs on one platform, for each Python the VS Code
# extension supports, so that `pip install --no-index --find-links <folder> todo-ls` works there
# with no network: the todo-ls wheel, its dependencies (pure wheels once, compiled ones such as
# pydantic-core once per Python version), pip itself (the extension runs it from its wheel) and
# manifest.json (version, target, Python versions, the pip wheel's name).
#
# Usage: scripts/build-wheelhouse.sh <target> <todo_ls wheel> <outdir>
#   target: linux-x64 | linux-arm64 | darwin-x64 | darwin-arm64 | win32-x64 (VS Code's names)
# Downloads (from the package index, binary wheels only) are cached per target and dependency set
# under ${TODO_LS_CACHE:-$HOME/.cache/todo-ls}/wheels; a second build of the same set is offline.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${1:?usage: build-wheelhouse.sh <target> <todo_ls wheel> <outdir>}
WHEEL=${2:?usage: build-wheelhouse.sh <target> <todo_ls wheel> <outdir>}
OUT=${3:?usage: build-wheelhouse.sh <target> <todo_ls wheel> <outdir>}
CACHE="${TODO_LS_CACHE:-$HOME/.cache/todo-ls}"
scripts/setup-packaging.sh
PY="$CACHE/packaging/bin/python"
UV="$CACHE/packaging/bin/uv"
# Resolving for another Python needs no interpreter of that version: never fetch one.
export UV_PYTHON_DOWNLOADS=never
# The Python versions the extension can set the server up with; the extension reads them back
# from manifest.json. pip is pinned so that a rebuild bundles the same installer.
PYTHONS=(3.10 3.11 3.12 3.13)
PIP_PIN=pip==26.3

# Each target as pip's oldest platform tag (pip also accepts every older tag) and as uv's
# platform name. uv resolves: pip download would judge markers such as python_version < "3.11"
# by the Python running it, not the one asked for, and miss tomli and exceptiongroup for 3.10.
case "$TARGET" in
  linux-x64) PLATFORM=manylinux_2_17_x86_64 UV_PLATFORM=x86_64-manylinux_2_17 ;;
  linux-arm64) PLATFORM=manylinux_2_17_aarch64 UV_PLATFORM=aarch64-manylinux_2_17 ;;
  darwin-x64) PLATFORM=macosx_10_12_x86_64 UV_PLATFORM=x86_64-apple-darwin ;;
  darwin-arm64) PLATFORM=macosx_11_0_arm64 UV_PLATFORM=aarch64-apple-darwin ;;
  win32-x64) PLATFORM=win_amd64 UV_PLATFORM=x86_64-pc-windows-msvc ;;
  *) echo "build-wheelhouse: unknown target '$TARGET' (linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64)" >&2; exit 2 ;;
esac
[ -f "$WHEEL" ] || { echo "build-wheelhouse: no wheel at $WHEEL" >&2; exit 2; }

# The wheel's own requirements (without extras), one per line: what pip download resolves.
requirements=$("$PY" - "$WHEEL" <<'EOF'
import sys, zipfile
from email.parser import HeaderParser
with zipfile.ZipFile(sys.argv[1]) as wheel:
    name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    metadata = HeaderParser().parsestr(wheel.read(name).decode("utf-8"))
for requirement in metadata.get_all("Requires-Dist") or []:
    if "extra ==" not in requirement:
        print(requirement)
EOF
)
key=$(printf '%s\n' "$PLATFORM" "$PIP_PIN" "$requirements" | sha1sum | cut -c1-16)
downloads="$CACHE/wheels/$TARGET/$key"
mkdir -p "$CACHE/logs"

resolve() {  # $1: Python version, $2: requirements file, then uv options; prints the pins
  local version=$1 file=$2
  shift 2
  "$UV" pip compile --quiet --no-header --no-annotate --only-binary :all: \
    --python-version "$version" --python-platform "$UV_PLATFORM" "$@" "$file"
}

download() {  # $1: Python version; fills $downloads/py$1 unless a complete earlier run did
  local dir="$downloads/py$1" log="$CACHE/logs/wheels-$TARGET-$1.log"
  [ -f "$dir/.complete" ] && return 0
  rm -rf "$dir"
  mkdir -p "$dir"
  printf '%s\n' "$requirements" >"$dir/requirements.in"
  { resolve "$1" "$dir/requirements.in" >"$dir/requirements.txt" &&
    "$PY" -m pip download --no-deps --only-binary=:all: --platform "$PLATFORM" --implementation cp \
      --python-version "$1" --abi "cp${1/./}" --dest "$dir" -r "$dir/requirements.txt"; } >"$log" 2>&1 ||
    { tail -20 "$log" >&2; echo "build-wheelhouse: download for $TARGET, Python $1 failed" >&2; return 1; }
  touch "$dir/.complete"
}
for version in "${PYTHONS[@]}"; do
  download "$version"
done
if [ ! -f "$downloads/pip/.complete" ]; then
  rm -rf "$downloads/pip"
  "$PY" -m pip download --only-binary=:all: --no-deps --python-version "${PYTHONS[0]}" \
    --dest "$downloads/pip" "$PIP_PIN" >"$CACHE/logs/wheels-pip.log" 2>&1 ||
    { tail -20 "$CACHE/logs/wheels-pip.log" >&2; exit 1; }
  touch "$downloads/pip/.complete"
fi

rm -rf "$OUT"
mkdir -p "$OUT"
# Pure wheels are the same file in every Python's folder: one copy each.
for dir in "$downloads"/py* "$downloads"/pip; do
  cp -f "$dir"/*.whl "$OUT"/
done
cp "$WHEEL" "$OUT"/
pip_wheel=$(basename "$downloads"/pip/pip-*.whl)

# Proof before shipping: for every Python version, todo-ls resolves from this folder alone.
printf 'todo-ls==%s\n' "$(basename "$WHEEL" | cut -d- -f2)" >"$OUT/.check.in"
for version in "${PYTHONS[@]}"; do
  resolve "$version" "$OUT/.check.in" --no-index --find-links "$OUT" >"$CACHE/logs/wheels-check.log" 2>&1 ||
    { cat "$CACHE/logs/wheels-check.log" >&2; echo "build-wheelhouse: $OUT is incomplete for Python $version" >&2; exit 1; }
done
rm -f "$OUT/.check.in"

"$PY" - "$OUT/manifest.json" "$WHEEL" "$TARGET" "$pip_wheel" "${PYTHONS[@]}" <<'EOF'
import json, sys
from pathlib import Path
manifest, wheel, target, pip_wheel, *pythons = sys.argv[1:]
version = Path(wheel).name.split("-")[1]
Path(manifest).write_text(json.dumps(
    {"version": version, "target": target, "pythons": pythons, "pip": pip_wheel}, indent=2) + "\n")
EOF
echo "build-wheelhouse: $TARGET, $(ls "$OUT"/*.whl | wc -l) wheels for Python ${PYTHONS[*]} in $OUT"
