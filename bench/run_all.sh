#!/usr/bin/env bash
# Runs every benchmark and prints one JSON object per benchmark, one per line (JSON Lines).
# Extra arguments are not passed on: each script has its own options (see `--help`).
# The figures are medians of repeated runs; each object carries its baseline, its budget,
# `within_budget` and the machine it ran on. Exit code 1 when any budget is missed.
set -uo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python}"
status=0
for bench in parse editor coldstart workspace supervisor hook; do
  out="$("$PY" "bench/bench_$bench.py")"
  rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "{\"benchmark\": \"$bench\", \"error\": \"the benchmark failed (exit code $rc)\"}"
    status=1
    continue
  fi
  # bench_parse prints indented JSON: one line per object here.
  line="$(printf '%s' "$out" | "$PY" -c 'import json, sys; print(json.dumps(json.load(sys.stdin)))')"
  echo "$line"
  case "$line" in *'"within_budget": false'*) status=1 ;; esac
done
exit "$status"
