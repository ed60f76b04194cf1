"""Agreement between the monitor and people on binary decisions (does the turn fail?): balanced accuracy,
Cohen's kappa and the confusion matrix, with percentile-bootstrap 95 % intervals and how many more labels
would narrow them to a target half-width.

Everything is computed from the four cells of the confusion matrix, so one bootstrap resample costs four
counts (numpy, vectorised over the resamples).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

BOOTSTRAP_RESAMPLES = 2000
TARGET_HALF_WIDTH = 0.02
Cells = tuple[int, int, int, int]  # (both pass, people pass / monitor fails, people fail / monitor passes, both fail)


def cells(truth: Sequence[bool], predicted: Sequence[bool]) -> Cells:
    """The confusion matrix of ``truth`` (people say the turn fails) against ``predicted`` (the monitor does)."""
    t = np.asarray(truth, dtype=bool)
    p = np.asarray(predicted, dtype=bool)
    return (int(np.sum(~t & ~p)), int(np.sum(~t & p)), int(np.sum(t & ~p)), int(np.sum(t & p)))


def _balanced_accuracy(
    tn: NDArray[np.float64], fp: NDArray[np.float64], fn: NDArray[np.float64], tp: NDArray[np.float64]
) -> NDArray[np.float64]:
    with np.errstate(invalid="ignore", divide="ignore"):
        return (tp / (tp + fn) + tn / (tn + fp)) / 2


def _kappa(
    tn: NDArray[np.float64], fp: NDArray[np.float64], fn: NDArray[np.float64], tp: NDArray[np.float64]
) -> NDArray[np.float64]:
    n = tn + fp + fn + tp
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (tp + tn) / n
        expected = ((tp + fn) * (tp + fp) + (tn + fp) * (tn + fn)) / (n * n)
        both = (tp + fn > 0) & (tn + fp > 0)  # people labelled both classes; else kappa is undefined, not 0
        return np.where(both & (expected < 1), (observed - expected) / (1 - expected), np.nan)


METRICS = {"balanced_accuracy": _balanced_accuracy, "kappa": _kappa}


def point(kind: str, c: Cells) -> float:
    """The metric ``kind`` of one confusion matrix (nan when a class has no labels)."""
    arr = [np.asarray([float(x)]) for x in c]
    return float(METRICS[kind](*arr)[0])


@dataclass(frozen=True)
class Estimate:
    """A metric with its 95 % interval and how many more labels would bring the half-width to the target."""

    kind: str
    value: float
    low: float
    high: float
    more_labels: int

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


def more_labels_for(n: int, half_width: float, target: float = TARGET_HALF_WIDTH) -> int:
    """Labels still needed for the interval to shrink to ±target (intervals narrow as 1/√n)."""
    if n == 0 or not math.isfinite(half_width):
        return 0
    return max(0, math.ceil(n * (half_width / target) ** 2) - n)


def resampled_cells(
    c: Cells, rng: np.random.Generator, resamples: int = BOOTSTRAP_RESAMPLES
) -> list[NDArray[np.float64]]:
    """Bootstrap resamples of the labelled turns, as confusion-matrix cells (a multinomial draw per resample)."""
    n = sum(c)
    draws = rng.multinomial(n, np.asarray(c, dtype=float) / n, size=resamples).astype(float)
    return [draws[:, i] for i in range(4)]


def estimate(kind: str, c: Cells, rng: np.random.Generator, resamples: int = BOOTSTRAP_RESAMPLES) -> Estimate:
    value = point(kind, c)
    if sum(c) == 0 or math.isnan(value):
        return Estimate(kind, value, math.nan, math.nan, 0)
    stats = METRICS[kind](*resampled_cells(c, rng, resamples))
    stats = stats[np.isfinite(stats)]
    low, high = (float(x) for x in np.percentile(stats, [2.5, 97.5])) if stats.size else (math.nan, math.nan)
    return Estimate(kind, value, low, high, more_labels_for(sum(c), (high - low) / 2))


def agreement(c: Cells, seed: int = 0, resamples: int = BOOTSTRAP_RESAMPLES) -> dict[str, Estimate]:
    """Balanced accuracy and kappa of one confusion matrix, each with its bootstrap interval."""
    rng = np.random.default_rng(seed)
    return {kind: estimate(kind, c, rng, resamples) for kind in METRICS}
