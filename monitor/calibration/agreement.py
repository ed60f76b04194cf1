"""Agreement of the monitor with people's labels, per turn type and per failure reason."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from monitor.calibration.labels import ReviewRow
from monitor.calibration.stats import Cells, Estimate, agreement, cells

ALL = "all"


@dataclass(frozen=True)
class Group:
    """One slice of the labelled turns: a turn type (``action``, ``response``, ``all``) or one failure reason
    against the rest (``reason``)."""

    turn_type: str
    reason: str | None
    cells: Cells
    estimates: Mapping[str, Estimate]

    @property
    def labels(self) -> int:
        return sum(self.cells)


def _monitor_fails(row: ReviewRow, overrides: Mapping[tuple[str, int | None], bool]) -> bool:
    return overrides.get(row.key, row.monitor_fail)


def groups(
    rows: Sequence[ReviewRow], overrides: Mapping[tuple[str, int | None], bool] | None = None, seed: int = 0
) -> list[Group]:
    """Agreement per turn type (does the turn fail?) and per failure reason (is it this reason?), over the
    labelled turns the monitor decided (unscored ones have no decision). ``overrides``: the monitor's decision
    on some turns under other cuts (held-out predictions of a fit)."""
    decided = [r for r in rows if r.verdict != "unscored" and r.label is not None]
    over = overrides or {}
    found: list[Group] = []
    for turn_type in (ALL, "action", "response"):
        part = [r for r in decided if turn_type in (ALL, r.turn_type)]
        if part:
            c = cells([r.people_fail for r in part], [_monitor_fails(r, over) for r in part])
            found.append(Group(turn_type, None, c, agreement(c, seed)))
    named = [r.label for r in decided if r.people_fail] + [r.failure_reason for r in decided if r.monitor_fail]
    reasons = sorted({reason for reason in named if reason is not None})
    for reason in reasons:
        truth = [r.label == reason for r in decided]
        predicted = [r.failure_reason == reason and _monitor_fails(r, over) for r in decided]
        c = cells(truth, predicted)
        found.append(Group(ALL, reason, c, agreement(c, seed)))
    return found


def _num(x: float) -> str:
    return "   -" if x != x else f"{x:.3f}"


def render(found: Sequence[Group]) -> str:
    """The agreement table: one line per group, with the confusion matrix (people × monitor)."""
    lines = [
        f"{'turns':<34} {'n':>4}  {'bal.acc [95% CI]':<22} {'kappa [95% CI]':<23} {'+labels':>7}  "
        "matrix (people pass/fail × monitor pass/fail)"
    ]
    for g in found:
        name = g.turn_type if g.reason is None else f"reason {g.reason}"
        ba, kappa = g.estimates["balanced_accuracy"], g.estimates["kappa"]
        more = max(ba.more_labels, kappa.more_labels)
        tn, fp, fn, tp = g.cells
        lines.append(
            f"{name:<34} {g.labels:>4}  {_num(ba.value)} [{_num(ba.low)}, {_num(ba.high)}]  "
            f"{_num(kappa.value)} [{_num(kappa.low)}, {_num(kappa.high)}]  {more:>7}  [[{tn}, {fp}], [{fn}, {tp}]]"
        )
    return "\n".join(lines)
