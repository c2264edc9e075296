"""Per-document caches (the outline's and the folds'): bounded in bytes, least recently used
dropped first, and emptied of a document the editor closes."""

from __future__ import annotations

from todo_ls.server.app import create_server
from todo_ls.server.document_cache import DocumentCache


def test_the_least_recently_used_go_first_beyond_the_bound() -> None:
    cache: DocumentCache[str] = DocumentCache(max_bytes=100)
    cache.put("a", "A", 40)
    cache.put("b", "B", 40)
    assert cache.get("a") == "A"  # now the most recently used
    cache.put("c", "C", 40)
    assert ("a" in cache, "b" in cache, "c" in cache) == (True, False, True)
    assert cache.size == 80
    cache.put("huge", "H", 101)  # larger than the bound: not kept, nothing else dropped
    assert "huge" not in cache and len(cache) == 2
    cache.put("a", "A2", 10)  # replaced, weighed anew
    assert (cache.get("a"), cache.size) == ("A2", 50)


def test_closing_a_document_drops_every_feature_cache_entry_of_it() -> None:
    server = create_server()
    caches = server.document_caches
    assert len(caches) == 2  # the outline's and the folds'
    for cache in caches:
        cache.put("file:///w/a.md", object(), 10)
        cache.put("file:///w/b.md", object(), 10)
    server.document_closed("file:///w/a.md")
    assert [("file:///w/a.md" in c, "file:///w/b.md" in c) for c in caches] == [(False, True)] * 2
    assert [c.size for c in caches] == [10, 10]
