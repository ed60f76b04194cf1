"""Trajectory match modes for unaligned dialogs: which predicted step answers which reference step.

`strict` is the online aligner (align.py). The other modes see the whole trajectory (the conversation's
verdicts wait until it ends) and pair only steps of the same kind (same tool and action, or two replies):

* `in_order`: the reference steps in their order, extra predicted steps allowed between them;
* `any_order`: the same steps in any order; extras are `unexpected_turn`, unmatched steps `missing_turn`;
* `subset`: every predicted step is a reference step (extras fail), reference steps may be left out;
* `superset`: every reference step is taken, in any order (missing ones fail), extra steps allowed.

Unordered pairing is the best assignment (most passing pairs, then the highest total score), by the
Hungarian method (scipy's `linear_sum_assignment`), never a greedy first match.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from monitor.models.dialog import Payload
from monitor.scoring.align import Check, _rank, _same_step

_NO_PAIR = 1e9  # cost of pairing steps of different kinds: such a pair is dropped after the assignment


class TrajectoryMode(StrEnum):
    STRICT = "strict"
    IN_ORDER = "in_order"
    ANY_ORDER = "any_order"
    SUBSET = "subset"
    SUPERSET = "superset"


EXTRAS_ALLOWED = frozenset({TrajectoryMode.IN_ORDER, TrajectoryMode.SUPERSET})
ALL_REQUIRED = frozenset({TrajectoryMode.IN_ORDER, TrajectoryMode.ANY_ORDER, TrajectoryMode.SUPERSET})


@dataclass(frozen=True)
class TrajectoryMatch:
    assignment: list[int | None]  # per predicted step: the index of its reference step, or None (an extra)
    missing: list[int]  # reference steps that count as missing (never taken, and the mode requires them)


def match_trajectory(
    mode: TrajectoryMode, golds: Sequence[Payload], preds: Sequence[Payload], check: Check
) -> TrajectoryMatch:
    """Pair predicted with reference steps under `mode` (not `strict`: that one aligns online)."""
    weight = [[_weight(g, p, check) for g in golds] for p in preds]
    if mode == TrajectoryMode.IN_ORDER:
        assignment = _in_order(weight, len(golds))
    else:
        assignment = _best_assignment(weight, len(golds))
    taken = {g for g in assignment if g is not None}
    missing = [g for g in range(len(golds)) if g not in taken] if mode in ALL_REQUIRED else []
    return TrajectoryMatch(assignment, missing)


def _weight(gold: Payload, pred: Payload, check: Check) -> float | None:
    """How good a pair is (a pass outweighs any score), or None when the steps are of different kinds."""
    if not _same_step(gold, pred):
        return None
    passed, score = _rank(check(gold, pred))
    return 2.0 * passed + score


def _best_assignment(weight: list[list[float | None]], golds: int) -> list[int | None]:
    if not weight or not golds:
        return [None] * len(weight)
    from scipy.optimize import linear_sum_assignment  # here: importing scipy.optimize costs ~0.5 s of CPU

    cost = np.array([[_NO_PAIR if w is None else -w for w in row] for row in weight])
    rows, cols = linear_sum_assignment(cost)
    out: list[int | None] = [None] * len(weight)
    for r, c in zip(rows, cols, strict=True):
        if weight[r][c] is not None:
            out[r] = int(c)
    return out


def _in_order(weight: list[list[float | None]], golds: int) -> list[int | None]:
    """The best order-preserving pairing (a weighted longest common subsequence)."""
    n = len(weight)
    best = [[0.0] * (golds + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(golds - 1, -1, -1):
            w = weight[i][j]
            paired = w + 1.0 + best[i + 1][j + 1] if w is not None else -1.0
            best[i][j] = max(best[i + 1][j], best[i][j + 1], paired)
    out: list[int | None] = [None] * n
    i = j = 0
    while i < n and j < golds:
        w = weight[i][j]
        if w is not None and best[i][j] == w + 1.0 + best[i + 1][j + 1]:
            out[i] = j
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return out
