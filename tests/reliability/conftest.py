"""The reliability tests reuse the test doubles of the other suites (the fake OpenCode 2.x
server, the scripted fake model, the real OpenCode 1.x launcher, the in-memory host, the LSP
editor harness) by importing them from their folders rather than copying them."""

from __future__ import annotations
