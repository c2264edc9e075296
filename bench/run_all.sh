#!/usr/bin/env bash
# Runs every benchmark and prints one markdown table (bench/table.py): each figure, its
# baseline from the same run, the ratio, the budget and pass/FAIL, as in the README's
# Performance section. The JSON report of each benchmark (one per line) is kept in the file
# named by BENCH_JSON when set. Extra arguments are not passed on: each script has its own
# options (see `--help`). Exit code 1 when any budget is missed.
set -uo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python}"
status=0
lines="$(mktemp)"
trap 'rm -f "$lines"' EXIT
for bench in parse editor views coldstart mcp_start workspace watch warm supervisor hook flood peer memory; do
  out="$("$PY" "bench/bench_$bench.py")"
  rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "{\"benchmark\": \"$bench\", \"error\": \"the benchmark failed (exit code $rc)\"}" >>"$lines"
    status=1
    continue
  fi
  # bench_parse prints indented JSON: one line per object here.
  line="$(printf '%s' "$out" | "$PY" -c 'import json, sys; print(json.dumps(json.load(sys.stdin)))')"
  echo "$line" >>"$lines"
  case "$line" in *'"within_budget": false'*) status=1 ;; esac
done
[ -n "${BENCH_JSON:-}" ] && cp "$lines" "$BENCH_JSON"
"$PY" bench/table.py <"$lines"
exit "$status"
