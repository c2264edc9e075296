"""The reliability tests reuse the test doubles of the other suites (the fake OpenCode 2.x
server, the scripted fake model, the real OpenCode 1.x launcher, the in-memory host, the LSP
editor harness) by importing them from their folders rather than copying them."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
# bench/: the JSON-RPC framer the benchmarks' client uses too (jsonrpc_frames.py).
for helper_dir in (TESTS / "hosts", TESTS / "unit", TESTS / "lsp", TESTS.parent / "bench"):
    if str(helper_dir) not in sys.path:
        sys.path.append(str(helper_dir))
