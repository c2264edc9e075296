"""Turns the JSON lines of `run_all.sh` into one markdown table, laid out like the README's
Performance table: each figure, its baseline from the same run, the ratio, the budget, pass.

Reads JSON lines on stdin; a benchmark that failed (an `error` line) gets a row saying so.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

Row = tuple[str, str, str, str, str, bool | None]  # figure, result, baseline, ratio, budget, ok


def _x(value: float) -> str:
    return f"{value:.2f}×"


def _ms(value: float) -> str:
    return f"{value:.1f} ms"


def _rounds(r: dict[str, Any]) -> str:
    return _x(r["ratio"]) + f" (rounds {r['round_ratios']['min']}–{r['round_ratios']['max']}×)"


def parse_rows(r: dict[str, Any]) -> Iterator[Row]:
    engine = r.get("engine", "pure")  # reports from before the compiled scanner had no name
    size = f"{r['bytes'] / 1e6:.1f} MB / {r['items']:,} items"
    yield (
        f"parse {size}, {engine} engine vs markdown-it-py (CPU)",
        f"{r['engine_ms']} ms",
        f"markdown-it-py {r['markdown_it_ms']} ms",
        _rounds(r),
        f">= {r['budget_ratio']:g}×, identical items: {r['identical_items']}",
        r["within_budget"],
    )
    pure = r.get("pure")
    if pure is not None:  # the pure scanner, measured in the same rounds: shown, not judged
        yield (
            f"parse {size}, pure engine (the fallback) vs markdown-it-py (CPU)",
            f"{pure['engine_ms']} ms",
            f"markdown-it-py {r['markdown_it_ms']} ms",
            _rounds(pure),
            "- (the budget applies to the engine the package loads)",
            None,
        )


def editor_rows(r: dict[str, Any]) -> Iterator[Row]:
    for mode in ("push", "pull"):
        base = r[mode]["baseline_round_trip"]["p50_ms"]
        for name, figures in r[mode].items():
            if not isinstance(figures, dict) or "budget" not in figures:
                continue
            p50 = figures["p50_ms"]
            budget = ", ".join(f"{k} <= {v:g}" for k, v in figures["budget"].items())
            yield (
                f"{name.replace('_', ' ')} ({mode})",
                f"p50 {_ms(p50)}, p95 {_ms(figures['p95_ms'])}",
                f"no-op round trip {_ms(base)}",
                _x(p50 / base) if base else "-",
                budget,
                figures["within_budget"],
            )


def coldstart_rows(r: dict[str, Any]) -> Iterator[Row]:
    init = r["initialize"]
    yield (
        "spawn -> initialize answer",
        f"p50 {_ms(init['p50_ms'])}",
        f"import pygls alone {_ms(r['import_pygls']['p50_ms'])}",
        _x(init["ratio_to_import_pygls"]),
        f"p50 <= {r['budget']['initialize_p50_ms']:g} ms, no eager heavy import",
        r["within_budget"],
    )


def mcp_start_rows(r: dict[str, Any]) -> Iterator[Row]:
    cpu, base = r["cpu"]["p50_ms"], r["baseline_python_pass"]["p50_ms"]
    yield (
        "todo-ls mcp: spawn -> initialize answer",
        f"CPU p50 {_ms(cpu)} (wall p50 {_ms(r['initialize']['p50_ms'])})",
        f"python -c pass {_ms(base)}",
        _x(cpu / base) if base else "-",
        f"CPU p50 <= {r['budget_cpu_p50_ms']:g} ms",
        r["within_budget"],
    )


def workspace_rows(r: dict[str, Any]) -> Iterator[Row]:
    sizes = list(r["sizes"].values())
    small, big = sizes[0], sizes[-1]
    at = f"{big['files']:,} files vs {small['files']:,}"
    judged = r["judged"]
    yield (
        f"cold index, {at}",
        f"{big['cold_index_ms']:.0f} ms",
        f"{small['cold_index_ms']:.0f} ms",
        _x(judged["cold_growth"]["ratio"]),
        f"<= {judged['cold_growth']['bound']:g}× (linear)",
        judged["cold_growth"]["ok"],
    )
    yield (
        f"status payload, {at}",
        f"{big['payload_bytes']:,} B",
        f"{small['payload_bytes']:,} B",
        _x(judged["payload"]["ratio"]),
        f"<= {judged['payload']['bound']:g}×",
        judged["payload"]["ok"],
    )
    for name in ("status_after_disk_change", "status_after_edit"):
        p50, top = judged[f"{name}_p50"], judged[f"{name}_max"]
        label = name.replace("_", " ")
        yield (
            f"{label} p50, {at}",
            _ms(p50["big_ms"]),
            _ms(small[name]["p50_ms"]),
            "-",
            f"<= 2× + 5 ms = {_ms(p50['bound_ms'])}",
            p50["ok"],
        )
        yield (
            f"{label} max, {at}",
            _ms(top["big_ms"]),
            "-",
            "-",
            f"<= {_ms(top['bound_ms'])}",
            top["ok"],
        )
    peak = judged["peak_rss"]
    yield (
        f"peak RSS, {big['files']:,} files",
        f"{peak['mb']} MB",
        f"{small['peak_rss_mb']} MB",
        "-",
        f"<= {peak['bound']:g} MB",
        peak["ok"],
    )
    for query in big["workspace_symbol"]:
        found = judged[f"workspace_symbol_{query}"]
        yield (
            f"workspace/symbol {query} query, {big['items']:,} items",
            _ms(found["p50_ms"]),
            _ms(small["workspace_symbol"][query]["p50_ms"]),
            "-",
            f"<= {_ms(found['bound_ms'])}",
            found["ok"],
        )
    warm = judged["warm_start"]
    yield (
        f"second start, {big['files']:,} files",
        f"{big['second_start_ms']:.0f} ms",
        f"first {big['cold_index_ms']:.0f} ms",
        _x(warm["ratio"]),
        f"<= {warm['bound']:g}×" + ("" if warm["judged"] else " (not judged)"),
        warm.get("ok"),
    )
    memory = judged["memory"]
    yield (
        f"RSS growth, {r['memory']['documents']} documents opened, outlined, closed",
        f"+{memory['growth_mb']} MB",
        f"after the first {r['memory']['rss_mb_after_each'][0]} MB",
        "-",
        f"<= {memory['bound']:g} MB",
        memory["ok"],
    )


def views_rows(r: dict[str, Any]) -> Iterator[Row]:
    doc, ws = r["plan"], r["workspace_size"]
    sizes = {
        "1mb": f"{doc['bytes'] / 1e6:.1f} MB plan",
        "1000_lines": f"{doc['plan_lines']}-line plan",
    }
    where = {**sizes, "workspace": f"{ws['files']:,} files / {ws['items']:,} items"}
    for part in ("document", "workspace"):
        for name, figures in r[part].items():
            if not isinstance(figures, dict) or "budget_p50_ms" not in figures:
                continue
            p50, base = figures["p50_ms"], figures["baseline_p50_ms"]
            asked = "asked in turn, back to back"
            if figures["baseline"].endswith(("_1mb", "_lines")):
                asked = "asked in turn, after the same edit"
            base_text = (
                f"no-op {asked} {_ms(base)} (server CPU {_ms(figures['baseline_cpu_p50_ms'])})"
            )
            if part == "document":
                request, _, size = name.rpartition("_1")
                label = f"{request.replace('_', ' ')} after an edit, {where['1' + size]}"
                extra = "".join(
                    f"; {what} {_ms(r[part][name + suffix]['server_cpu_p50_ms'])}"
                    for suffix, what in (
                        ("_new_line", "after a new line"),
                        ("_unchanged", "unchanged"),
                    )
                    if name + suffix in r[part]
                )
            else:
                label = f"{name.replace('_', ' ')}, {where['workspace']}"
                extra = f"; {figures['results']} results"
            yield (
                label,
                f"server CPU p50 {_ms(figures['server_cpu_p50_ms'])} (wall "
                f"{_ms(figures['server_p50_ms'])}){extra}; round trip p50 {_ms(p50)}, "
                f"p95 {_ms(figures['p95_ms'])}",
                base_text,
                _x(p50 / base) if base else "-",
                f"server CPU p50 <= {figures['budget_p50_ms']:g} ms",
                figures["within_budget"],
            )


def supervisor_rows(r: dict[str, Any]) -> Iterator[Row]:
    budget = r["budget"]
    for framing in ("v1", "v2"):
        flow = r.get(f"stream_{framing}")
        if flow is None:
            continue
        per_cpu = flow["events_per_cpu_s"]
        yield (
            f"OpenCode {framing[1]}.x stream -> language server, events per server CPU-second",
            f"{per_cpu:,} ({flow['events']:,} events)",
            f"in process {flow['in_process_events_per_cpu_s']:,}",
            _x(flow["ratio_to_in_process"]),
            f">= {budget['events_per_cpu_s']:,.0f}",
            per_cpu >= budget["events_per_cpu_s"],
        )
        growth = flow["rss_growth_mb_after_first_quarter"]
        first, last = flow["rss_mb_checkpoints"][0][1], flow["rss_mb_checkpoints"][-1][1]
        yield (
            f"server RSS over the {framing[1]}.x stream",
            f"+{growth} MB after the first quarter",
            f"{first} MB -> {last} MB",
            "-",
            f"<= {budget['rss_growth_mb']:g} MB",
            growth <= budget["rss_growth_mb"],
        )
    nudge = r["nudge"]
    delay = nudge["delay_after_settle"]
    yield (
        f"nudge after settleMs, {nudge['sessions']} sessions (through the stream)",
        f"+{delay['p99_ms']:.1f} ms p99, +{delay['p50_ms']:.1f} ms p50" if delay else "none",
        f"settleMs {nudge['settle_ms']}, nudged {nudge['nudged']}/{nudge['sessions']}",
        "-",
        f"+ {budget['nudge_delay_p99_ms']:g} ms p99",
        delay is not None
        and nudge["nudged"] == nudge["sessions"]
        and delay["p99_ms"] <= budget["nudge_delay_p99_ms"],
    )


def hook_rows(r: dict[str, Any]) -> Iterator[Row]:
    yield (
        "agent hook Stop run",
        f"p50 {_ms(r['hook_stop']['p50_ms'])}",
        f"python + json + sqlite3 {_ms(r['python_import_json_sqlite3']['p50_ms'])}",
        _x(r["ratio_p50"]),
        f"<= {r['budget']['ratio_p50_max']:g}×, no heavy module",
        r["within_budget"],
    )


def flood_rows(r: dict[str, Any]) -> Iterator[Row]:
    capped, uncapped = r["capped"], r["uncapped"]
    size = f"{r['document']['bytes'] / 1e6:.1f} MB / {r['document']['items']:,} items"
    yield (
        f"push client, {r['burst']} edits back to back in {size}: diagnostics of the last",
        f"{_ms(capped['burst_ms'])}, {capped['publishes']} notification(s) of "
        f"{capped['diagnostics_in_last']} diagnostics",
        f"uncapped {_ms(uncapped['burst_ms'])}, {uncapped['diagnostics_in_last']} diagnostics",
        _x(capped["ratio_to_uncapped"]),
        ", ".join(f"{k} <= {v:g}" for k, v in capped["budget"].items()),
        capped["within_budget"],
    )


def watch_rows(r: dict[str, Any]) -> Iterator[Row]:
    base, large, budget = r["baseline"], r["large"], r["budget"]
    req, base_req = large["request"], base["request"]
    yield (
        f"request while re-checking, {large['files']:,} files, no client watcher",
        f"p50 {_ms(req['p50_ms'])}, max {_ms(req['max_ms'])}",
        f"{base['files']:,} files: p50 {_ms(base_req['p50_ms'])}, max {_ms(base_req['max_ms'])}",
        _x(r["p50_ratio"]),
        f"max <= {budget['request_max_ms']:g} ms, p50 <= {budget['p50_ratio']:g}× + "
        f"{budget['p50_slack_ms']:g} ms",
        req["max_ms"] <= budget["request_max_ms"]
        and req["p50_ms"] <= budget["p50_ratio"] * base_req["p50_ms"] + budget["p50_slack_ms"],
    )
    yield (
        "change on disk seen without an event",
        _ms(large["change_seen_ms"]),
        _ms(base["change_seen_ms"]),
        "-",
        f"<= {budget['seen_s']:g} s",
        large["change_seen_ms"] <= 1000 * budget["seen_s"],
    )


def warm_rows(r: dict[str, Any]) -> Iterator[Row]:
    for size in r["sizes"]:
        yield (
            f"warm start, {size['files']:,} files (net of a {_ms(r['fixed_start_ms'])} start)",
            _ms(size["warm_ms"]),
            f"cold {_ms(size['cold_ms'])}",
            f"{_x(size['warm_ratio'])} (net {size['net_warm_ratio']})",
            f"net <= {r['budget']['warm_ratio']:g}×, counts right after a change",
            size["net_warm_ratio"] is not None
            and size["net_warm_ratio"] <= r["budget"]["warm_ratio"]
            and size["counts_after_change_correct"],
        )


def peer_rows(r: dict[str, Any]) -> Iterator[Row]:
    ws = r["workspace_size"]
    where = {
        "document": f"{r['plan_lines']}-line plan, after an edit",
        "workspace": f"{ws['files']:,} files, warm",
    }
    for part in ("document", "workspace"):
        for name, figures in r[part].items():
            ours, peer = figures["todo_ls"], figures["peer"]
            query = f" {figures['query']!r}" if "query" in figures else ""
            label = name.removesuffix("_1000_lines").replace("_", " ")
            yield (
                f"{label}{query}, {where[part]} (todo-ls vs {r['peer']['server']})",
                f"p50 {_ms(ours['p50_ms'])}, p90 {_ms(ours['p90_ms'])}; {ours['results']} results",
                f"peer p50 {_ms(peer['p50_ms'])}, p90 {_ms(peer['p90_ms'])}; "
                f"{peer['results']} results",
                _x(figures["ratio_p50"]) if figures["ratio_p50"] is not None else "-",
                "p50 <= the peer's" if "within_budget" in figures else "- (reported)",
                figures.get("within_budget"),
            )


def memory_rows(r: dict[str, Any]) -> Iterator[Row]:
    docs = r["documents"]
    yield (
        f"RSS after {docs['documents']} documents of {docs['bytes_each'] / 1e6:.1f} MB opened, "
        "outlined, closed",
        f"{docs['rss_mb_last']} MB (+{docs['growth_mb']} MB)",
        f"after the first {docs['rss_mb_first']} MB",
        f"+{docs['growth_mb']} MB",
        f"<= +{docs['budget_growth_mb']:g} MB",
        docs["within_budget"],
    )
    ws, base = r["workspace"], r["workspace_baseline"]
    yield (
        f"peak RSS, {ws['files']:,} files / {ws['items']:,} items",
        f"{ws['peak_rss_mb']} MB",
        f"{base['files']:,} files {base['peak_rss_mb']} MB",
        _x(ws["ratio_to_baseline"]),
        f"<= {ws['budget_peak_rss_mb']:g} MB",
        ws["within_budget"],
    )


ROWS: dict[str, Callable[[dict[str, Any]], Iterator[Row]]] = {
    "parse": parse_rows,
    "editor": editor_rows,
    "coldstart": coldstart_rows,
    "mcp_start": mcp_start_rows,
    "workspace": workspace_rows,
    "watch": watch_rows,
    "warm": warm_rows,
    "views": views_rows,
    "supervisor": supervisor_rows,
    "hook": hook_rows,
    "flood": flood_rows,
    "peer": peer_rows,
    "memory": memory_rows,
}


def main() -> None:
    print("| benchmark | figure | result | baseline (same run) | ratio | budget | pass |")
    print("|---|---|---|---|---|---|---|")
    machine: dict[str, Any] = {}
    for line in sys.stdin:
        if not line.strip():
            continue
        report = json.loads(line)
        if isinstance(report.get("machine"), dict):  # bench_parse names only the architecture
            machine = report["machine"]
        name = report.get("benchmark", "?")
        if "error" in report or name not in ROWS:
            print(f"| {name} | - | {report.get('error', 'unknown report')} | - | - | - | FAIL |")
            continue
        for figure, result, baseline, ratio, budget, ok in ROWS[name](report):
            verdict = "-" if ok is None else "pass" if ok else "FAIL"
            print(f"| {name} | {figure} | {result} | {baseline} | {ratio} | {budget} | {verdict} |")
    if machine:
        print(
            f"\n{machine.get('nproc')} CPUs ({machine.get('cpu')}), Python {machine.get('python')},"
            f" load average {machine.get('loadavg_1m')} at the last benchmark"
        )


if __name__ == "__main__":
    main()
