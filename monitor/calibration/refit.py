"""Refitting the reply decision on people's labels: the verifier's three log-odds weighed by a logistic head
(``monitor.verifier.head``), regularised towards the current decision, judged by stratified k-fold
cross-validation before and after, and adopted past the same guard rails as a cut (``fit.kept_because``).

A cut on P(same) can only pass more or fewer replies along one line; a team whose labels pass replies that
leave a detail out, or fail replies the verifier reads as the same, needs the weights to move. The refit reads
the replies the verifier decided (``ReviewRow.reading``); typed-value changes decide by themselves and are not
refit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from monitor.calibration.fit import FOLDS, MIN_PER_CLASS, contradicted, kept_because
from monitor.calibration.labels import ReviewRow
from monitor.calibration.stats import Cells, cells
from monitor.verifier.head import REFIT_CUT, Head, refit

SETTING = ("scoring", "verifier", "head")


@dataclass
class HeadFit:
    """The outcome of refitting the reply decision: refused (``refusal`` says why), kept or adopted."""

    current: Head
    labels: int = 0
    fitted: Head | None = None
    before: Cells | None = None  # pooled held-out confusion cells with the current decision
    after: Cells | None = None  # ... with the head refit on the other folds
    changed: int = 0  # held-out verdicts the refit turns (pass → fail or fail → pass)
    refusal: str | None = None
    held_out: dict[tuple[str, int | None], bool] = field(default_factory=dict)  # row key -> monitor fails

    @property
    def contradicted(self) -> bool:
        return contradicted(self.before)

    @property
    def kept_because(self) -> str | None:
        return kept_because(self.fitted is not None, self.before, self.after, self.refusal)

    @property
    def adopted(self) -> bool:
        return self.kept_because is None


def _fails(head: Head, readings: Sequence[dict[str, float]]) -> list[bool]:
    return [head.p_right(r) < REFIT_CUT for r in readings]


def fit_head(
    rows: Sequence[ReviewRow], current: Head, folds: int = FOLDS, seed: int = 0, min_per_class: int = MIN_PER_CLASS
) -> HeadFit:
    """Refit ``current`` on the labelled replies the verifier decided."""
    decided = [r for r in rows if r.reading]
    result = HeadFit(current, labels=len(decided))
    fails = np.asarray([r.people_fail for r in decided], dtype=bool)
    n_fail, n_pass = int(fails.sum()), int((~fails).sum())
    if min(n_fail, n_pass) < min_per_class:
        result.refusal = (
            f"{n_pass} pass and {n_fail} fail labels among the {len(decided)} replies the verifier decided; "
            f"needs {min_per_class} of each"
        )
        return result
    from sklearn.model_selection import StratifiedKFold  # only here: it costs every command's start-up otherwise

    readings: list[dict[str, float]] = [{str(k): v for k, v in r.reading.items()} for r in decided]
    splitter = StratifiedKFold(n_splits=min(folds, n_fail, n_pass), shuffle=True, random_state=seed)
    before = np.asarray(_fails(current, readings), dtype=bool)
    after = np.zeros(len(decided), dtype=bool)
    for train, test in splitter.split(np.zeros(len(decided)), fails):
        head = refit(current, [readings[i] for i in train], (~fails[train]).tolist())
        after[test] = _fails(head, [readings[i] for i in test])
    result.before = cells(fails.tolist(), before.tolist())
    result.after = cells(fails.tolist(), after.tolist())
    result.changed = int((before != after).sum())
    result.fitted = refit(current, readings, (~fails).tolist())
    result.held_out = {r.key: bool(p) for r, p in zip(decided, after, strict=True)}
    return result
