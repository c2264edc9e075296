"""Helpers shared by the reliability tests (a plain module: `conftest` is not importable by
name once several suites have one)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
# Beside the repository (in CI too): the 489 events recorded from OpenCode 1.18.33.
EVENTS_SAMPLE = REPO.parent / "shared" / "reference" / "opencode-v1-events-sample.jsonl"


def load_v1_sample() -> dict[str, list[dict[str, Any]]]:
    """The recorded 1.x events by scenario, in stream order (the bare `{type, properties}`)."""
    if not EVENTS_SAMPLE.is_file():
        raise AssertionError(
            f"the recorded OpenCode events are missing: expected {EVENTS_SAMPLE} "
            "(../shared/reference/ relative to the repository root)"
        )
    scenarios: dict[str, list[dict[str, Any]]] = {}
    for line in EVENTS_SAMPLE.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            scenarios.setdefault(record["scenario"], []).append(record["event"])
    return scenarios
