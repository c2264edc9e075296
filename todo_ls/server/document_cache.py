"""Per-document answers kept for the next request (the outline's and the folds' encodings),
bounded in bytes and dropped when the editor closes the document.

A 1 MB plan's outline and what it keeps for reuse weigh tens of megabytes; kept per URI for
ever, a day of opening plans grew the server by hundreds (docs/performance.md, "Scale").
The entries are kept in use order: the least recently used go first once their estimated size
passes the bound.
"""

from __future__ import annotations

from typing import Generic, TypeVar

V = TypeVar("V")

# Per cache. An outline with its reuse parts weighs about three times its JSON (docs/performance.md,
# "Scale"): 64 MB keeps the outlines of a few large plans and of any number of small ones.
MAX_BYTES = 64 * 1024 * 1024


class DocumentCache(Generic[V]):
    """Values by document URI, least recently used dropped first beyond `max_bytes` (each
    value weighs what its caller estimates)."""

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self._max_bytes = max_bytes
        self._entries: dict[str, tuple[V, int]] = {}
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, uri: object) -> bool:
        return uri in self._entries

    @property
    def size(self) -> int:
        """The estimated bytes held."""
        return self._bytes

    def get(self, uri: str) -> V | None:
        found = self._entries.pop(uri, None)
        if found is None:
            return None
        self._entries[uri] = found  # the most recently used last (dicts keep order)
        return found[0]

    def put(self, uri: str, value: V, size: int) -> None:
        """Keep `value` for `uri` (weighing about `size` bytes), dropping the least recently
        used beyond the bound; one value larger than the bound is not kept at all."""
        self.drop(uri)
        if size > self._max_bytes:
            return
        self._entries[uri] = (value, size)
        self._bytes += size
        while self._bytes > self._max_bytes:
            self.drop(next(iter(self._entries)))

    def drop(self, uri: str) -> None:
        """Forget `uri` (closed, or no longer subscribed)."""
        found = self._entries.pop(uri, None)
        if found is not None:
            self._bytes -= found[1]
