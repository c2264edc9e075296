"""The event mix of the supervisor benchmark, for OpenCode 1.x and 2.x framing.

Built from the real OpenCode 1.18 events of the recorded sample (14 scenarios, 12 sessions):
copied with their ids rewritten until about 200 distinct sessions take part, interleaved event
by event like live sessions. Session ids stay the same on every pass; message, part, call and
event ids carry the pass number, so a long stream keeps meeting new ones (as a real one does).

The recorded model answers are a few words; real ones are paragraphs. Every assistant text and
reasoning part therefore grows to `text_chars` characters: its `message.part.delta` events
carry equal slices of that text and the `message.part.updated` that ends the part carries all
of it (the events the adapter has to decode whole).

The 2.x mix is the same turns in the 2.x vocabulary (`session.execution.*`, `session.step.*`,
`session.text.*`, `session.tool.*`); events 2.x has no counterpart for (`message.updated`,
`todo.updated`) are left out, and 1.x noise (`plugin.added`, `session.diff`, ...) becomes 2.x
events that name no session.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

SAMPLE_FILE = (
    Path(__file__).resolve().parents[1]
    / "tests"
    / "hosts"
    / "data"
    / "opencode-v1-events-sample.jsonl"
)
GENERATION = "@G@"  # placeholder for the pass number in every id but the session's
TEXT_CHARS = 2000
_ID = re.compile(r"\b(ses|msg|prt|call|evt|per)_([A-Za-z0-9]{8,})")
_WORDS = [
    "the",
    "plan",
    "has",
    "three",
    "open",
    "items",
    "and",
    "the",
    "next",
    "one",
    "is",
    "to",
    "update",
    "the",
    "parser",
    "tests",
]


def sample_rows() -> list[dict[str, Any]]:
    """The recorded sample: one `{scenario, t, event}` per line."""
    return [json.loads(line) for line in SAMPLE_FILE.read_text().splitlines() if line.strip()]


def _prose(chars: int, seed: int) -> str:
    words = [_WORDS[(seed + n) % len(_WORDS)] for n in range(chars // 4 + 1)]
    return " ".join(words)[:chars]


def grown(rows: list[dict[str, Any]], text_chars: int = TEXT_CHARS) -> list[dict[str, Any]]:
    """The sample's events with every assistant text / reasoning part `text_chars` long: the
    deltas carry equal slices, the part's last `message.part.updated` the whole text."""
    deltas: dict[str, int] = {}
    for row in rows:
        props = row["event"]["properties"]
        if row["event"]["type"] == "message.part.delta":
            deltas[props["partID"]] = deltas.get(props["partID"], 0) + 1
    texts = {part: _prose(text_chars, n) for n, part in enumerate(deltas)}
    sent: dict[str, int] = {}
    out = []
    for row in rows:
        event = json.loads(json.dumps(row["event"]))
        props = event["properties"]
        if event["type"] == "message.part.delta" and props["partID"] in texts:
            part_id = props["partID"]
            step = -(-text_chars // deltas[part_id])
            n = sent.get(part_id, 0)
            props["delta"] = texts[part_id][n * step : (n + 1) * step]
            sent[part_id] = n + 1
        elif event["type"] == "message.part.updated":
            part = props["part"]
            ended = isinstance(part.get("time"), dict) and part["time"].get("end") is not None
            if part["id"] in texts and ended:
                part["text"] = texts[part["id"]]
        out.append({**row, "event": event})
    return out


def rewrite(text: str, copy: int, project: str) -> str:
    def new_id(match: re.Match[str]) -> str:
        prefix, rest = match.group(1), match.group(2)
        tag = f"c{copy}" if prefix == "ses" else f"c{copy}{GENERATION}"
        return f"{prefix}_{tag}{rest}"

    return _ID.sub(new_id, text).replace("<tmp>/project", project)


def v1_template(project: str, copies: int, text_chars: int = TEXT_CHARS) -> str:
    """One pass of the 1.x `/global/event` stream as SSE text, ids holding `GENERATION`."""
    frames: list[str] = []
    for row in grown(sample_rows(), text_chars):
        line = json.dumps({"directory": project, "payload": row["event"]})
        for copy in range(copies):
            frames.append(f"data: {rewrite(line, copy, project)}\n\n")
    return "".join(frames)


def generation(template: str, number: int) -> str:
    """Pass `number` of a template: fresh ids for everything but the sessions."""
    return template.replace(GENERATION, f"g{number}")


def split_frames(stream: str) -> list[str]:
    """The SSE frames of a stream made here (each ends with a blank line)."""
    return [frame + "\n\n" for frame in stream.split("\n\n") if frame]


# --- 2.x ----------------------------------------------------------------------------------


def _v2_part(sid: str, part: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    kind = part.get("type")
    message = part.get("messageID", "")
    base = {"sessionID": sid, "assistantMessageID": message}
    ended = isinstance(part.get("time"), dict) and part["time"].get("end") is not None
    if kind == "step-start":
        return "session.step.started", {**base, "agent": "build", "started": 0}
    if kind == "step-finish":
        return "session.step.ended", {**base, "finish": part.get("reason") or "stop", "cost": 0}
    if kind in ("text", "reasoning") and isinstance(part.get("time"), dict):
        span = f"session.{kind}"
        if ended:
            return f"{span}.ended", {**base, "ordinal": 0, "text": part.get("text", "")}
        return f"{span}.started", {**base, "ordinal": 0}
    if kind == "tool":
        state = part.get("state", {})
        call = {**base, "id": part.get("callID"), "name": part.get("tool")}
        status = state.get("status")
        if status == "pending":
            return "session.tool.input.started", call
        if status == "running":
            return "session.tool.called", {**call, "input": state.get("input", {})}
        if status == "completed":
            output = state.get("output") or ""
            content = [{"type": "text", "text": output}]
            return "session.tool.success", {**call, "content": content}
        if status == "error":
            return "session.tool.failed", {**call, "error": state.get("error")}
    return None


def v2_event(event: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """A 1.x event of the sample as a 2.x (type, data), or None when 2.x has none like it."""
    etype, props = event["type"], event["properties"]
    sid = props.get("sessionID")
    if not sid:
        return "catalog.updated", {}
    if etype == "session.updated":
        # 1.x repeats the session for every cost, token or title change; 2.x reports usage
        # apart (its session events are created / renamed / moved, rare).
        return "session.usage.updated", {"sessionID": sid, "cost": 0}
    if etype == "session.created":
        info = props.get("info", {})
        data = {
            "sessionID": sid,
            "id": sid,
            "title": info.get("title", ""),
            "location": {"directory": info.get("directory")},
        }
        if info.get("parentID"):
            data["parentID"] = info["parentID"]
        return "session.created", data
    if etype == "session.deleted":
        return etype, {"sessionID": sid}
    if etype == "session.status":
        kind = props["status"].get("type")
        if kind == "busy":
            return "session.execution.started", {"sessionID": sid}
        if kind == "retry":
            return "session.retry.scheduled", {"sessionID": sid, "attempt": 1, "at": 0}
        return "session.execution.succeeded", {"sessionID": sid}
    if etype == "session.error":
        error = {"type": "provider", "message": "boom"}
        return "session.execution.failed", {"sessionID": sid, "error": error}
    if etype == "message.part.updated":
        return _v2_part(sid, props["part"])
    if etype == "message.part.delta":
        data = {"sessionID": sid, "assistantMessageID": props.get("messageID"), "ordinal": 0}
        return "session.text.delta", {**data, "delta": props.get("delta", "")}
    if etype in ("permission.asked", "permission.replied"):
        return etype.replace("permission.", "permission.v2."), props
    if etype in ("session.diff", "session.idle"):
        return "session.usage.updated", {"sessionID": sid, "cost": 0}
    return None


def v2_pass(
    project: str, copies: int, number: int, text_chars: int = TEXT_CHARS
) -> Iterator[tuple[str, dict[str, Any]]]:
    """One pass of the 2.x mix as (type, data), copies interleaved, ids of pass `number`."""
    for row in grown(sample_rows(), text_chars):
        converted = v2_event(row["event"])
        if converted is None:
            continue
        text = json.dumps(converted)
        for copy in range(copies):
            etype, data = json.loads(generation(rewrite(text, copy, project), number))
            yield etype, data


def session_ids(copies: int) -> list[str]:
    """Every session id of the mix (its copies included)."""
    found: dict[str, None] = {}
    for row in sample_rows():
        sid = row["event"]["properties"].get("sessionID")
        if sid:
            for copy in range(copies):
                found[rewrite(sid, copy, "")] = None
    return list(found)
