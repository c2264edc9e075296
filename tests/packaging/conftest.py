"""The packaging tests start the installed server with the stdio helpers of the reliability
suite (which need the host doubles of tests/hosts on the path), imported rather than copied."""

from __future__ import annotations
