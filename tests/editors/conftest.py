"""The editor tests with an agent running reuse the host suites' doubles (the scripted fake model,
the real OpenCode 1.x launcher) by importing them from tests/hosts rather than copying them."""

from __future__ import annotations

import sys
from pathlib import Path

HOSTS = Path(__file__).resolve().parents[1] / "hosts"
if str(HOSTS) not in sys.path:
    sys.path.append(str(HOSTS))
