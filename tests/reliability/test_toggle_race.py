"""A toggle racing an agent that rewrites the same file every millisecond
(docs/reliability.md, "An agent's write is never undone").

The agent is a real separate process. Each write it makes reads the file, checks that the file
still shows the sequence number of its own previous write, and writes the next one in the
content it just read (keeping whatever state the toggles gave `alpha`). A toggle that installs
content read before one of the agent's writes takes the file back to an older sequence number:
the agent's next read sees it, and that is one lost write. The toggles are
`todo_ls.disk.write_markers`, what `todoLs.toggle` calls for a subscribed file that is not
open, in a thread of this process, as fast as they can go. Both ways agents write are run:
atomic (temp file + rename) and in place (truncate + write).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from todo_ls.checklist import MarkerEdit
from todo_ls.disk import DiskError, read_text, write_markers

pytestmark = pytest.mark.timeout(120)

RUN_S = 3.0
LINE = 2  # `- [ ] alpha`

AGENT = r"""
import json, os, sys, time
path, mode, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
last, writes, lost, torn = 0, 0, [], 0
end = time.monotonic() + seconds
while time.monotonic() < end:
    with open(path, "rb") as f:
        data = f.read()
    lines = data.decode().split("\n")
    if len(lines) < 4 or not lines[3].startswith("agent "):
        torn += 1  # a reader can see its own in-place write half done: try again
        continue
    seen = int(lines[3].split()[1])
    if seen != last:
        lost.append([last, seen])
    last += 1
    lines[3] = f"agent {last}"
    out = "\n".join(lines).encode()
    if mode == "atomic":
        tmp = f"{path}.agent.tmp"
        with open(tmp, "wb") as f:
            f.write(out)
        os.replace(tmp, path)
    else:
        with open(path, "r+b") as f:
            f.truncate(0)
            f.write(out)
    writes += 1
    time.sleep(0.001)
with open(path, "rb") as f:
    final = f.read().decode().split("\n")[3]
if final != f"agent {last}":
    lost.append([last, final])
print(json.dumps({"writes": writes, "lost": lost, "torn": torn}))
"""


def toggles(path: Path, stop: threading.Event, counts: dict[str, int]) -> None:
    """Tick and untick `alpha` as fast as the writes go, as the server does for a closed file."""
    while not stop.is_set():
        try:
            text = read_text(path).lines()
        except DiskError:
            continue
        if len(text) <= LINE or not text[LINE].startswith("- ["):
            continue  # an in-place write half done
        old = text[LINE][3]
        edit = MarkerEdit(LINE, 3, old, "x" if old == " " else " ")
        result = write_markers(path, [edit], {LINE: text[LINE]})
        counts["applied" if result.applied else "refused"] += 1


@pytest.mark.parametrize("mode", ["atomic", "in-place"])
def test_toggles_never_undo_an_agent_write(tmp_path: Path, mode: str) -> None:
    path = tmp_path / "PLAN.md"
    path.write_text("# Plan\n\n- [ ] alpha\nagent 0\n", encoding="utf-8")
    counts = {"applied": 0, "refused": 0}
    stop = threading.Event()
    agent = subprocess.Popen(
        [sys.executable, "-c", AGENT, str(path), mode.split("-")[0], str(RUN_S)],
        stdout=subprocess.PIPE,
    )
    toggler = threading.Thread(target=toggles, args=(path, stop, counts))
    toggler.start()
    try:
        out, _ = agent.communicate(timeout=RUN_S + 60)
    finally:
        stop.set()
        toggler.join()
    report = json.loads(out)
    print(json.dumps({"mode": mode, **report, **counts}))
    assert report["writes"] > 200, report  # the agent really raced
    assert counts["applied"] >= 10, counts  # and so did the toggles
    assert report["lost"] == [], f"{len(report['lost'])} agent writes undone: {report}"
