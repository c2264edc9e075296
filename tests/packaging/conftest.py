"""The packaging tests start the installed server with the stdio helpers of the reliability
suite (which need the host doubles of tests/hosts on the path), imported rather than copied."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
# reliability_support frames JSON-RPC with bench/jsonrpc_frames.py.
for helper_dir in (TESTS / "hosts", TESTS / "reliability", TESTS.parent / "bench"):
    if str(helper_dir) not in sys.path:
        sys.path.append(str(helper_dir))
