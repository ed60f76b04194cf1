"""Proportions with their uncertainty: Wilson intervals, the difference of two proportions (Newcombe's
interval and the pooled two-proportion z-test), Benjamini–Hochberg across many such tests, and the
Rogan–Gladen correction of a proportion measured by an imperfect classifier.

The formulas are the textbook closed forms (the Prometheus recording rules compute the same z);
tests/report/test_proportions.py checks them against scipy on the same counts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054  # the two-sided 95 % normal quantile


@dataclass(frozen=True)
class Interval:
    """A point estimate with its 95 % interval (all nan when undefined, e.g. no observations)."""

    value: float
    low: float
    high: float

    @property
    def defined(self) -> bool:
        return not math.isnan(self.value)


NAN = Interval(math.nan, math.nan, math.nan)


def wilson(successes: int, n: int, z: float = Z95) -> Interval:
    """The proportion successes/n with its Wilson score interval."""
    if n <= 0:
        return NAN
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half))


def difference(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> Interval:
    """p2 − p1 with Newcombe's hybrid score interval (his method 10), built from the two Wilson intervals."""
    a, b = wilson(k1, n1, z), wilson(k2, n2, z)
    if not (a.defined and b.defined):
        return NAN
    d = b.value - a.value
    low = d - math.sqrt((b.value - b.low) ** 2 + (a.high - a.value) ** 2)
    high = d + math.sqrt((b.high - b.value) ** 2 + (a.value - a.low) ** 2)
    return Interval(d, max(-1.0, low), min(1.0, high))


@dataclass(frozen=True)
class ZTest:
    """The pooled two-proportion z statistic of p2 − p1 and its two-sided p-value."""

    z: float
    p_value: float


def two_proportion_z(k1: int, n1: int, k2: int, n2: int) -> ZTest:
    """z = (p2 − p1) / sqrt(p̂(1 − p̂)(1/n1 + 1/n2)) with the pooled p̂; z 0 and p 1 when both sides are all
    successes or all failures (no variance, no evidence of a change); nan when a side has no observations."""
    if n1 <= 0 or n2 <= 0:
        return ZTest(math.nan, math.nan)
    pooled = (k1 + k2) / (n1 + n2)
    variance = pooled * (1 - pooled) * (1 / n1 + 1 / n2)
    if variance <= 0:
        return ZTest(0.0, 1.0)
    z = (k2 / n2 - k1 / n1) / math.sqrt(variance)
    return ZTest(z, math.erfc(abs(z) / math.sqrt(2)))


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg adjusted p-values (q-values), in the input order; a nan stays nan and is not counted."""
    ranked = sorted((p, i) for i, p in enumerate(p_values) if not math.isnan(p))
    m = len(ranked)
    adjusted = [math.nan] * len(p_values)
    running = 1.0
    for rank in range(m, 0, -1):
        p, index = ranked[rank - 1]
        running = min(running, p * m / rank)
        adjusted[index] = running
    return adjusted


def rogan_gladen(observed: Interval, sensitivity: float, specificity: float) -> Interval:
    """The true proportion behind ``observed`` when the classifier that counted it detects a positive with
    ``sensitivity`` and a negative with ``specificity``: (p + specificity − 1) / (sensitivity + specificity − 1),
    clipped to 0..1, the interval's ends mapped the same way. Undefined (nan) when sensitivity + specificity − 1
    (Youden's J) is at most 0.05: the classifier is then near chance and the correction divides by almost 0."""
    youden = sensitivity + specificity - 1
    if youden <= 0.05 or not observed.defined:
        return NAN

    def corrected(p: float) -> float:
        return min(1.0, max(0.0, (p + specificity - 1) / youden))

    return Interval(corrected(observed.value), corrected(observed.low), corrected(observed.high))
