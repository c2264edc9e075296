#!/usr/bin/env bash
# Builds the wheel and the sdist into dist/ (or $1) and checks them with twine, as the release
# uploads them. Usage: scripts/build-dist.sh [outdir]
# The tools come from scripts/setup-packaging.sh (run here when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$(mkdir -p "${1:-dist}" && cd "${1:-dist}" && pwd)
CACHE="${TODO_LS_CACHE:-$HOME/.cache/todo-ls}"
scripts/setup-packaging.sh
TOOLS="$CACHE/packaging"

version=$("$TOOLS/bin/python" - "$ROOT/todo_ls/__init__.py" <<'EOF'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
print(re.search(r'^__version__ = "([^"]+)"$', text, re.M).group(1))
EOF
)
rm -f "$OUT/todo_ls-$version"-*.whl "$OUT/todo_ls-$version.tar.gz"
# The sdist first, then the wheel from the sdist (build's default): the wheel proves the sdist
# holds everything a build needs.
"$TOOLS/bin/python" -m build --outdir "$OUT" "$ROOT" >"$OUT/.build.log" 2>&1 ||
  { tail -30 "$OUT/.build.log" >&2; exit 1; }
"$TOOLS/bin/twine" check --strict "$OUT/todo_ls-$version-py3-none-any.whl" "$OUT/todo_ls-$version.tar.gz"
echo "$OUT/todo_ls-$version-py3-none-any.whl"
echo "$OUT/todo_ls-$version.tar.gz"
