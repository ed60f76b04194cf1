"""The shared LRU cache: bounded, least recently used out first, hits and misses counted and exported."""

from __future__ import annotations

import pytest
from prometheus_client import CollectorRegistry

from monitor.cache import CacheCollector, LruCache


def test_lru_evicts_least_recently_used_and_counts():
    cache: LruCache[str, int] = LruCache("t", maxsize=2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" is now the most recently used
    cache.put("c", 3)
    assert "b" not in cache and "a" in cache and "c" in cache
    assert cache.get("b") is None
    assert cache.peek("c") == 3  # not counted
    s = cache.stats()
    assert (s.name, s.hits, s.misses, s.size, s.maxsize) == ("t", 1, 1, 2, 2)
    assert s.hit_rate == 0.5
    cache.clear()
    assert len(cache) == 0 and cache.stats().hits == 1


def test_empty_stats_have_no_rate():
    assert LruCache("t", 1).stats().hit_rate is None


def test_size_must_be_positive():
    with pytest.raises(ValueError, match="cache 't': maxsize must be at least 1, not 0"):
        LruCache("t", 0)


def test_collector_exports_counts_at_scrape_time():
    cache: LruCache[str, int] = LruCache("embeddings", maxsize=4)
    registry = CollectorRegistry()
    registry.register(CacheCollector(lambda: [cache]))
    cache.put("x", 1)
    cache.get("x")
    cache.get("x")
    cache.get("y")
    labels = {"cache": "embeddings"}
    assert registry.get_sample_value("aem_cache_hits_total", labels) == 2
    assert registry.get_sample_value("aem_cache_misses_total", labels) == 1
    assert registry.get_sample_value("aem_cache_entries", labels) == 1


def test_keys_are_the_entries_held():
    cache: LruCache[str, int] = LruCache("t", maxsize=2)
    for k in "abc":
        cache.put(k, 1)
    assert sorted(cache.keys()) == ["b", "c"]
