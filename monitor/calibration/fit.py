"""Fitting a cut on people's labels by stratified k-fold cross-validation: the cut that maximises balanced
accuracy on the training folds, judged on the held-out fold, before (the current cut) and after."""

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
    def adopted(self) -> bool:
        """Whether the fitted cut is written: it agrees better with people on the held-out folds."""
        if self.fitted is None or self.before is None or self.after is None:
            return False
        return point("balanced_accuracy", self.after) > point("balanced_accuracy", self.before)


def best_cut(scores: Sequence[float], fails: Sequence[bool], cut: Cut, current: float) -> float:
    """The cut with the highest balanced accuracy on these turns (midpoints between distinct scores; ties go
    to the value closest to ``current``)."""
    distinct = sorted(set(scores))
    candidates = [current] + [(a + b) / 2 for a, b in pairwise(distinct)]
    candidates += [distinct[0] - 1e-4, distinct[-1] + 1e-4]

    def quality(value: float) -> tuple[float, float]:
        predicted = [not cut.passes(s, value) for s in scores]
        ba = point("balanced_accuracy", cells(fails, predicted))
        return (ba, -abs(value - current))

    best: float = max(candidates, key=quality)
    return round(best, 4)


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
