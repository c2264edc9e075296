#!/usr/bin/env bash
# Builds the compiled checklist scanner (mypyc) beside todo_ls/checklist/scan.py, so that the
# tests and benchmarks run it (the differential tests check it and the pure scan.py both, and
# fail while it is missing or older than scan.py). Skipped when it is built from the current
# scan.py (scripts/compile_engine.py compares a SHA-256 stamp). Needs the [test] extras (mypy,
# setuptools: scripts/setup.sh --test), a C compiler and the Python headers: installed with
# apt-get when missing and run as root, else it fails saying what to install.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
[ -x "$PY" ] || scripts/setup.sh --test
if "$PY" scripts/compile_engine.py --check; then
  echo "setup-compiled: up to date"
  exit 0
fi
"$PY" -c 'import mypyc, setuptools' 2>/dev/null ||
  { echo "setup-compiled: mypy (mypyc) or setuptools missing in .venv: run scripts/setup.sh --test" >&2; exit 1; }
headers="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
# The compiler this Python was built with, which setuptools calls (gcc, cc, clang).
cc="$("$PY" -c 'import sysconfig; print((sysconfig.get_config_var("CC") or "cc").split()[0])')"
if ! command -v "$cc" >/dev/null || [ ! -f "$headers/Python.h" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc python3-dev >/dev/null
  fi
fi
command -v "$cc" >/dev/null ||
  { echo "setup-compiled: no C compiler ($cc): install it (Debian: apt-get install gcc)" >&2; exit 1; }
[ -f "$headers/Python.h" ] ||
  { echo "setup-compiled: no Python.h in $headers: install this Python's headers (Debian: python3-dev)" >&2; exit 1; }
mkdir -p build
"$PY" scripts/compile_engine.py >build/compile-engine.log 2>&1 ||
  { tail -30 build/compile-engine.log >&2; echo "setup-compiled: mypyc failed (log: build/compile-engine.log)" >&2; exit 1; }
echo "setup-compiled: built $(grep '^todo_ls/' build/compile-engine.log | tr '\n' ' ')"
