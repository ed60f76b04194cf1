"""One bounded cache for the whole monitor: a cachetools LRU behind a lock, counting hits and misses.

Every cache of the monitor can be an :class:`LruCache` with a name; :class:`CacheCollector` exposes any set
of them to Prometheus as ``aem_cache_hits_total{cache=...}``, ``aem_cache_misses_total`` and
``aem_cache_entries`` (the collector reads the counters at scrape time, nothing is updated per lookup).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from cachetools import LRUCache
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


@dataclass(frozen=True)
class CacheStats:
    """A snapshot of one cache's counters."""

    name: str
    hits: int
    misses: int
    size: int
    maxsize: int

    @property
    def hit_rate(self) -> float | None:
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else None


class LruCache(Generic[K, V]):
    """A thread-safe, bounded least-recently-used cache; ``get`` counts a hit or a miss."""

    def __init__(self, name: str, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError(f"cache {name!r}: maxsize must be at least 1, not {maxsize}")
        self.name = name
        self._data: LRUCache[K, V] = LRUCache(maxsize=maxsize)
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0

    def get(self, key: K) -> V | None:
        """The cached value (and mark it recently used), or None; counted as a hit or a miss."""
        with self._lock:
            value = self._data.get(key)
            if value is None:
                self._misses += 1
            else:
                self._hits += 1
            return value

    def peek(self, key: K) -> V | None:
        """The cached value without counting a lookup."""
        with self._lock:
            return self._data.get(key)

    def put(self, key: K, value: V) -> None:
        """Store ``value``; the least recently used entry goes when the cache is full."""
        with self._lock:
            self._data[key] = value

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._data

    def keys(self) -> list[K]:
        """The cached keys (a copy, in no promised order)."""
        with self._lock:
            return list(self._data.keys())

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    @property
    def maxsize(self) -> int:
        return int(self._data.maxsize)

    def clear(self) -> None:
        """Drop every entry (the counters stay: they are totals)."""
        with self._lock:
            self._data.clear()

    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(self.name, self._hits, self._misses, len(self._data), self.maxsize)


class HasStats(Protocol):
    """Anything that reports cache counters."""

    def stats(self) -> CacheStats: ...


class CacheCollector(Collector):
    """Prometheus view of caches, read at scrape time: ``registry.register(CacheCollector(lambda: caches))``."""

    def __init__(self, caches: Callable[[], Iterable[HasStats]]) -> None:
        self._caches = caches

    def collect(self) -> Iterator[CounterMetricFamily | GaugeMetricFamily]:
        hits = CounterMetricFamily("aem_cache_hits", "Cache lookups that found an entry.", labels=["cache"])
        misses = CounterMetricFamily("aem_cache_misses", "Cache lookups that found no entry.", labels=["cache"])
        entries = GaugeMetricFamily("aem_cache_entries", "Entries held by a cache.", labels=["cache"])
        for cache in self._caches():
            s = cache.stats()
            hits.add_metric([s.name], s.hits)
            misses.add_metric([s.name], s.misses)
            entries.add_metric([s.name], s.size)
        yield hits
        yield misses
        yield entries
