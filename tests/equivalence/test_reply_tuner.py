"""The reply-threshold tuner (benchmarks/accuracy_replies.py): each threshold is set to the middle of the grid
values that reach the best score, not the first of them."""

from __future__ import annotations

from dataclasses import dataclass

from benchmarks.accuracy_replies import GRID, START, tune
from monitor.equivalence.calibration import ReplyThresholds


@dataclass
class PlateauPart:
    """An objective that only ``semantic`` moves: best, and equally so, for every cut in [low, high]."""

    low: float
    high: float

    def score(self, th: ReplyThresholds) -> float:
        return 1.0 if self.low <= th.semantic <= self.high else 0.5


def test_the_middle_of_the_best_plateau_is_chosen():
    chosen = tune([PlateauPart(0.45, 0.6)])  # type: ignore[list-item]
    plateau = [v for v in GRID["semantic"] if 0.45 <= v <= 0.6]
    assert len(plateau) == 7
    assert chosen.semantic == plateau[3] == 0.525


def test_a_threshold_the_objective_does_not_move_goes_to_the_middle_of_its_grid():
    chosen = tune([PlateauPart(0.45, 0.6)])  # type: ignore[list-item]
    for name, values in GRID.items():
        if name != "semantic":
            assert getattr(chosen, name) == values[(len(values) - 1) // 2], name
    assert chosen.overrule != START.overrule
