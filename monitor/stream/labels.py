"""Bounded Prometheus labels for what producers send (docs/reliability.md): ``agent`` and ``release`` come from
the events, so a producer would decide how many label sets the monitor keeps. Values are cleaned
(`clean_label`) and at most ``max_pairs`` (agent, release) pairs get labels of their own (`LabelGuard`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

import structlog

log = structlog.get_logger(__name__)

OTHER = "other"
UNKNOWN = "unknown"
LABEL_CHARSET = "A-Za-z0-9._:/@+-"
_OUTSIDE = re.compile(f"[^{LABEL_CHARSET}]")


def clean_label(value: str | None, max_chars: int) -> str:
    """``value`` in the label charset, at most ``max_chars`` long; ``unknown`` when empty."""
    if not value:
        return UNKNOWN
    cleaned = _OUTSIDE.sub("_", value[: max_chars * 4])[:max_chars]
    return cleaned or UNKNOWN


class LabelGuard:
    """Admits (agent, release) label pairs up to a cap; later pairs share ``release="other"`` (and ``agent="other"``
    when their agent is new too), each overflow counted (``on_overflow``) and the first one logged."""

    def __init__(
        self,
        max_chars: int = 64,
        max_pairs: int = 100,
        on_overflow: Callable[[], None] | None = None,
    ) -> None:
        self.max_chars = max_chars
        self.max_pairs = max_pairs
        self.on_overflow = on_overflow
        self.overflowed = 0
        self._pairs: set[tuple[str, str]] = set()
        self._agents: dict[str, int] = {}  # agent -> admitted pairs holding it
        self._known: dict[tuple[str | None, str | None], tuple[str, str]] = {}  # raw pair -> its admitted labels
        self._lock = threading.Lock()

    def admit(self, agent: str | None, release: str | None, count: bool = True) -> tuple[str, str]:
        """The labels to record (agent, release) under, cleaned and within the cap (a raw pair admitted before
        is looked up); an overflow is counted when ``count`` (once per event: the sinks' other uses pass False)."""
        known = self._known.get((agent, release))
        if known is not None:
            return known
        pair = (clean_label(agent, self.max_chars), clean_label(release, self.max_chars))
        with self._lock:
            if pair in self._pairs or len(self._pairs) < self.max_pairs:
                if pair not in self._pairs:
                    self._pairs.add(pair)
                    self._agents[pair[0]] = self._agents.get(pair[0], 0) + 1
                if len(self._known) >= 8 * self.max_pairs:  # many raw spellings of the same labels
                    self._known.clear()
                self._known[(agent, release)] = pair
                return pair
            admitted = (pair[0] if pair[0] in self._agents else OTHER, OTHER)
            if not count:
                return admitted
            self.overflowed += 1
            first = self.overflowed == 1
        if first:
            log.warning("label_pairs_capped", max_pairs=self.max_pairs, agent=pair[0], release=pair[1])
        if self.on_overflow is not None:
            self.on_overflow()
        return admitted

    def is_overflow(self, pair: tuple[str, str]) -> bool:
        """Whether ``pair`` is the shared bucket of pairs beyond the cap (not a release of its own)."""
        with self._lock:
            return pair[1] == OTHER and pair not in self._pairs

    def forget(self, agent: str, release: str) -> None:
        """Free the slot of a pair whose label sets were removed (an expired release)."""
        with self._lock:
            if (agent, release) in self._pairs:
                self._known.clear()
                self._pairs.discard((agent, release))
                left = self._agents.get(agent, 1) - 1
                if left:
                    self._agents[agent] = left
                else:
                    self._agents.pop(agent, None)

    def __len__(self) -> int:
        return len(self._pairs)
