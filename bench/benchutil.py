"""Shared helpers of the benchmarks: percentiles, the machine description, the JSON report."""

from __future__ import annotations

import asyncio
import json
import math
import os
import platform
import statistics
from collections.abc import Sequence
from typing import Any


def ms(seconds: float) -> float:
    """Seconds as milliseconds, rounded for the report."""
    return round(seconds * 1000, 3)


def percentile(samples: Sequence[float], q: float) -> float:
    """The nearest-rank `q` percentile (0 < q <= 100) of `samples`."""
    ordered = sorted(samples)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def summary(samples: Sequence[float]) -> dict[str, float]:
    """p50 / p95 / p99 / max of `samples` (seconds) in milliseconds, and their count."""
    return {
        "n": len(samples),
        "p50_ms": ms(statistics.median(samples)),
        "p95_ms": ms(percentile(samples, 95)),
        "p99_ms": ms(percentile(samples, 99)),
        "max_ms": ms(max(samples)),
    }


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (every thread), from /proc (Linux)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, Any]:
    """What the figures were measured on (the load average says how busy it was)."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu_model(),
        "python": platform.python_version(),
        "loadavg_1m": round(load[0], 2) if load else None,
    }


def report(name: str, results: dict[str, Any]) -> None:
    """Print one benchmark's report as a single JSON line."""
    print(json.dumps({"benchmark": name, **results, "machine": machine()}), flush=True)


def rss_kib(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak) of a process in KiB, from /proc."""
    found: dict[str, int] = {}
    with open(f"/proc/{pid}/status", encoding="utf-8") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0])
    return found


async def end_process(process: asyncio.subprocess.Process, timeout: float = 10) -> None:
    """Close a helper process's stdin (its signal to stop) and wait for it; killed if it hangs."""
    assert process.stdin is not None
    process.stdin.close()
    try:
        await asyncio.wait_for(process.wait(), timeout)
    except asyncio.TimeoutError:
        process.kill()
        await process.wait()
