"""Fitting a cut on people's labels by stratified k-fold cross-validation: the cut that maximises balanced
accuracy on the training folds, judged on the held-out fold, before (the current cut) and after.

Labels can be wrong or hostile, so a fit is adopted only past guard rails: a cut moves at most ``MAX_MOVE``
per calibration and stays inside the setting's range; held-out balanced accuracy after the move must reach
``ADOPT_FLOOR`` and beat the current cut's by ``MIN_GAIN``; and labels that mostly contradict the monitor at
its current cut (held-out balanced accuracy below chance) move nothing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np

from monitor.calibration.cuts import Cut
from monitor.calibration.labels import ReviewRow
from monitor.calibration.stats import Cells, cells, point

FOLDS = 5
MIN_PER_CLASS = 10  # labels of each class (pass / fail) a cut needs before it is fitted
MAX_MOVE = 0.2  # the furthest one calibration moves a cut
ADOPT_FLOOR = 0.7  # held-out balanced accuracy a fitted cut must reach to be adopted
MIN_GAIN = 0.02  # ... and by how much it must beat the current cut's
CHANCE = 0.5  # balanced accuracy of a coin toss: below it at the current cut, the labels contradict the monitor
CUT_RANGE = (0.0, 1.0)  # every cut is a probability or a similarity


@dataclass
class CutFit:
    """The outcome of fitting one cut: refused (``refusal`` says why), kept or moved."""

    cut: Cut
    current: float
    labels: int = 0
    fitted: float | None = None
    before: Cells | None = None  # pooled held-out confusion cells at the current cut
    after: Cells | None = None  # ... at the cut fitted on the other folds
    refusal: str | None = None
    held_out: dict[tuple[str, int | None], bool] = field(default_factory=dict)  # row key -> monitor fails

    @property
    def contradicted(self) -> bool:
        return contradicted(self.before)

    @property
    def kept_because(self) -> str | None:
        """Why a fitted cut is not adopted (None: it is)."""
        return kept_because(self.fitted is not None, self.before, self.after, self.refusal)

    @property
    def adopted(self) -> bool:
        """Whether the fitted cut is written: it agrees with people on the held-out folds well, and better."""
        return self.kept_because is None


def contradicted(before: Cells | None) -> bool:
    """Whether most labels contradict the monitor at its current decision (held-out, worse than a coin toss):
    labels inverted, for other turns or hostile; they move nothing."""
    return before is not None and point("balanced_accuracy", before) < CHANCE


def kept_because(fitted: bool, before: Cells | None, after: Cells | None, refusal: str | None) -> str | None:
    """Why a fit (a cut, a refit decision) is not adopted, None when it is: the guard rails above."""
    if not fitted or before is None or after is None:
        return refusal or "not fitted"
    b, a = point("balanced_accuracy", before), point("balanced_accuracy", after)
    if contradicted(before):
        return f"most labels contradict the monitor (held-out balanced accuracy {b:.3f} at the current decision)"
    if a < ADOPT_FLOOR:
        return f"held-out balanced accuracy {a:.3f} after is below the floor {ADOPT_FLOOR}"
    if a < b + MIN_GAIN:
        return f"no better on held-out folds by {MIN_GAIN} ({b:.3f} → {a:.3f})"
    return None


def within_bounds(value: float, current: float) -> float:
    """``value`` moved no further than ``MAX_MOVE`` from ``current`` and kept inside ``CUT_RANGE``."""
    low, high = max(CUT_RANGE[0], current - MAX_MOVE), min(CUT_RANGE[1], current + MAX_MOVE)
    return min(max(value, low), high)


def best_cut(scores: Sequence[float], fails: Sequence[bool], cut: Cut, current: float) -> float:
    """The cut with the highest balanced accuracy on these turns (midpoints between distinct scores, each
    brought within bounds of ``current``; ties go to the value closest to ``current``)."""
    distinct = sorted(set(scores))
    candidates = [current] + [(a + b) / 2 for a, b in pairwise(distinct)]
    candidates += [distinct[0] - 1e-4, distinct[-1] + 1e-4]
    candidates = [within_bounds(c, current) for c in candidates]

    def quality(value: float) -> tuple[float, float]:
        predicted = [not cut.passes(s, value) for s in scores]
        ba = point("balanced_accuracy", cells(fails, predicted))
        return (ba, -abs(value - current))

    best: float = max(candidates, key=quality)
    return within_bounds(round(best, 4), current)


def fit_cut(
    cut: Cut,
    rows: Sequence[ReviewRow],
    current: float,
    folds: int = FOLDS,
    seed: int = 0,
    min_per_class: int = MIN_PER_CLASS,
) -> CutFit:
    decided = [r for r in rows if cut.name in r.scores]
    result = CutFit(cut, current, labels=len(decided))
    fails = np.asarray([r.people_fail for r in decided], dtype=bool)
    n_fail, n_pass = int(fails.sum()), int((~fails).sum())
    if cut.setting is None:
        result.refusal = "fixed inside the scorer (no setting to fit)"
        return result
    if min(n_fail, n_pass) < min_per_class:
        result.refusal = (
            f"{n_pass} pass and {n_fail} fail labels among the {len(decided)} turns it decides; "
            f"needs {min_per_class} of each"
        )
        return result
    from sklearn.model_selection import StratifiedKFold  # only here: it costs every command's start-up otherwise

    scores = np.asarray([r.scores[cut.name] for r in decided])
    splitter = StratifiedKFold(n_splits=min(folds, n_fail, n_pass), shuffle=True, random_state=seed)
    before_pred = np.zeros(len(decided), dtype=bool)
    after_pred = np.zeros(len(decided), dtype=bool)
    for train, test in splitter.split(scores, fails):
        value = best_cut(scores[train].tolist(), fails[train].tolist(), cut, current)
        before_pred[test] = [not cut.passes(s, current) for s in scores[test]]
        after_pred[test] = [not cut.passes(s, value) for s in scores[test]]
    result.before = cells(fails.tolist(), before_pred.tolist())
    result.after = cells(fails.tolist(), after_pred.tolist())
    result.fitted = best_cut(scores.tolist(), fails.tolist(), cut, current)
    result.held_out = {r.key: bool(p) for r, p in zip(decided, after_pred, strict=True)}
    return result
