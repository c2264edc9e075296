#!/usr/bin/env bash
# Builds the self-contained VS Code extension for one or more platforms: each .vsix carries
# todo-ls and every dependency for that platform (scripts/build-wheelhouse.sh), unpacked into
# server/ (scripts/unpack_server.py), which the extension runs with a Python it finds: nothing
# is installed on first start.
#
# Usage: scripts/build-vsix.sh [--wheel FILE] [--out DIR] [--no-check] <target>...
#   target: linux-x64 | linux-arm64 | darwin-x64 | darwin-arm64 | win32-x64
#   --wheel     the todo-ls wheel to bundle (the release passes the one it uploads); default: built here
#   --out       where the .vsix files go (default dist/); each is todo-ls-<target>-<version>.vsix
#   --no-check  skip `npm run check` (for the test suite, which runs it as a test of its own)
# The extension is type-checked, linted and unit-tested once, bundled once, then packaged per target.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE="${TODO_LS_CACHE:-$HOME/.cache/todo-ls}"
WHEEL=""
OUT=dist
CHECK=1
TARGETS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --wheel) WHEEL=$(realpath "$2"); shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --no-check) CHECK=""; shift ;;
    -*) echo "build-vsix: unknown option $1" >&2; exit 2 ;;
    *) TARGETS+=("$1"); shift ;;
  esac
done
[ ${#TARGETS[@]} -gt 0 ] || { echo "usage: build-vsix.sh [--wheel FILE] [--out DIR] [--no-check] <target>..." >&2; exit 2; }
mkdir -p "$OUT" "$CACHE/logs"
OUT=$(cd "$OUT" && pwd)
scripts/setup-packaging.sh
TOOLS="$CACHE/packaging"

# One version for everything: the .vsix carries todo_ls/__init__.py's version whatever
# package.json says (tests/packaging keeps the two equal for developer builds).
version=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' todo_ls/__init__.py)

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
if [ -z "$WHEEL" ]; then
  "$TOOLS/bin/python" -m build --no-isolation --wheel --outdir "$STAGE/dist" "$ROOT" >"$CACHE/logs/vsix-wheel.log" 2>&1 ||
    { tail -30 "$CACHE/logs/vsix-wheel.log" >&2; exit 1; }
  WHEEL=$(echo "$STAGE"/dist/todo_ls-"$version"-py3-none-any.whl)
fi
[ -f "$WHEEL" ] || { echo "build-vsix: no wheel at $WHEEL" >&2; exit 1; }

cd "$ROOT/editors/vscode"
if [ ! -d node_modules ] || [ package.json -nt node_modules ] || [ package-lock.json -nt node_modules ]; then
  npm install --no-audit --no-fund >"$CACHE/logs/vscode-npm.log" 2>&1 ||
    { tail -30 "$CACHE/logs/vscode-npm.log" >&2; exit 1; }
  touch node_modules
fi
{ if [ -n "$CHECK" ]; then npm run check; fi && npm run bundle; } >"$CACHE/logs/vsix-check.log" 2>&1 ||
  { tail -40 "$CACHE/logs/vsix-check.log" >&2; exit 1; }

# The package's folder: what the .vsix holds, and nothing that vsce would rebuild or prune.
pkg="$STAGE/extension"
mkdir -p "$pkg/out"
cp out/extension.js "$pkg/out/"
cp README.md "$pkg/"
cp "$ROOT/CHANGELOG.md" "$ROOT/LICENSE" "$pkg/"
node -e '
  const manifest = require("./package.json");
  manifest.version = process.argv[2];
  delete manifest.scripts;
  delete manifest.devDependencies;
  require("fs").writeFileSync(process.argv[1], JSON.stringify(manifest, null, 2) + "\n");
' "$pkg/package.json" "$version"

for target in "${TARGETS[@]}"; do
  # The wheels, then what the extension runs: them unpacked (shared pure-Python libraries once,
  # compiled ones per Python version), so a first start installs nothing.
  "$ROOT/scripts/build-wheelhouse.sh" "$target" "$WHEEL" "$STAGE/wheels-$target"
  "$TOOLS/bin/python" "$ROOT/scripts/unpack_server.py" "$TOOLS/bin/uv" "$STAGE/wheels-$target" \
    "$ROOT/editors/vscode/server/todo-ls.py" "$pkg/server" >"$CACHE/logs/vsix-server-$target.log" 2>&1 ||
    { tail -30 "$CACHE/logs/vsix-server-$target.log" >&2; exit 1; }
  vsix="$OUT/todo-ls-$target-$version.vsix"
  (cd "$pkg" && "$ROOT/editors/vscode/node_modules/.bin/vsce" package --target "$target" \
    --no-dependencies --allow-missing-repository -o "$vsix") >"$CACHE/logs/vsix-$target.log" 2>&1 ||
    { tail -30 "$CACHE/logs/vsix-$target.log" >&2; exit 1; }
  echo "$vsix"
done
