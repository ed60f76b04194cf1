"""Comparing two releases: counts per release and per slice (turn type, sub-metric, root cause, tool action,
chain length), each slice's change with its interval and two-proportion test, Benjamini–Hochberg across the
slices, the root causes new in the second release, and example conversations of every slice that got worse.

The input is dialog results in their JSON form (`aem score --format json`, or the `dialog` messages of the
verdict topic), one `Tally` per release; `compare` turns two tallies into a `Comparison`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict

from monitor.report.proportions import (
    Interval,
    benjamini_hochberg,
    difference,
    rogan_gladen,
    two_proportion_z,
    wilson,
)

EXAMPLES = 3  # conversation ids kept per slice and release
DEFAULT_ALPHA = 0.05
DEFAULT_MIN_DROP = 0.02


class Dimension(StrEnum):
    """What a row of the comparison slices by."""

    CORRECTNESS = "correctness"  # all scored turns
    TURN_TYPE = "turn_type"  # action / response
    SUB_METRIC = "sub_metric"  # share of scored turns failing on it
    ROOT_CAUSE = "root_cause"  # share of scored turns that are root causes `reason:field` (on an action)
    ACTION = "action"  # correctness of the turns calling this tool action
    CHAIN_LENGTH = "chain_length"  # correctness of action turns by chain length


# a failure share gets worse when it goes up; a correctness when it goes down
HIGHER_IS_BETTER = {
    Dimension.CORRECTNESS: True,
    Dimension.TURN_TYPE: True,
    Dimension.SUB_METRIC: False,
    Dimension.ROOT_CAUSE: False,
    Dimension.ACTION: True,
    Dimension.CHAIN_LENGTH: True,
}

RowKey = tuple[Dimension, str]
OVERALL: RowKey = (Dimension.CORRECTNESS, "all turns")


@dataclass
class Count:
    """Out of `n` turns, `k` counted (passed, or failed in the named way) and a few conversations with a
    failing turn in the slice."""

    n: int = 0
    k: int = 0
    examples: list[str] = field(default_factory=list)

    def example(self, conversation_id: str) -> None:
        if len(self.examples) < EXAMPLES and conversation_id not in self.examples:
            self.examples.append(conversation_id)


@dataclass
class Tally:
    """One release's counts per slice, added up dialog by dialog (each conversation once)."""

    release: str
    dialogs: int = 0
    unscored: int = 0
    rows: dict[RowKey, Count] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)

    def _row(self, key: RowKey) -> Count:
        row = self.rows.get(key)
        if row is None:
            row = self.rows[key] = Count()
        return row

    def _success_row(self, key: RowKey, success: bool, conversation_id: str) -> None:
        row = self._row(key)
        row.n += 1
        if success:
            row.k += 1
        else:
            row.example(conversation_id)

    def add(self, conversation_id: str, turns: Iterable[Mapping[str, Any]]) -> bool:
        """Count one finished conversation's turn verdicts; False (nothing counted) when it was counted before
        (delivery is at least once)."""
        if conversation_id in self.seen:
            return False
        self.seen.add(conversation_id)
        self.dialogs += 1
        scored: list[Mapping[str, Any]] = []
        for turn in turns:
            success = turn.get("success")
            if success is None:
                self.unscored += 1
                continue
            scored.append(turn)
            ok = bool(success)
            self._success_row(OVERALL, ok, conversation_id)
            is_action = turn.get("turn") == "Tool"
            self._success_row((Dimension.TURN_TYPE, "action" if is_action else "response"), ok, conversation_id)
            action = turn.get("action")
            if is_action and isinstance(action, str):
                self._success_row((Dimension.ACTION, action), ok, conversation_id)
            chain = turn.get("chain_length")
            if is_action and isinstance(chain, str):
                self._success_row((Dimension.CHAIN_LENGTH, chain), ok, conversation_id)
        # the share rows count failures out of every scored turn: each row's n is the release's scored turns
        for turn in scored:
            if turn.get("success"):
                continue
            sub_metric = turn.get("sub_metric")
            if isinstance(sub_metric, str):
                row = self._row((Dimension.SUB_METRIC, sub_metric))
                row.k += 1
                row.example(conversation_id)
            if turn.get("attribution", "root_cause") == "root_cause":
                row = self._row((Dimension.ROOT_CAUSE, root_cause_key(turn)))
                row.k += 1
                row.example(conversation_id)
        return True

    def n_of(self, key: RowKey) -> int:
        """Turns behind a row: the slice's own for a correctness row, every scored turn for a share row."""
        if HIGHER_IS_BETTER[key[0]]:
            row = self.rows.get(key)
            return row.n if row is not None else 0
        return self.rows[OVERALL].n if OVERALL in self.rows else 0


def root_cause_key(turn: Mapping[str, Any]) -> str:
    """`reason:field`, plus ` on Action` for an action turn that names its action."""
    key = f"{turn.get('failure_reason') or 'none'}:{turn.get('field') or 'none'}"
    action = turn.get("action")
    return f"{key} on {action}" if isinstance(action, str) else key


# -- the comparison (the JSON output's shape) ------------------------------------------------------------


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Estimate(_Out):
    """A proportion (or a difference) with its 95 % interval; null when undefined."""

    value: float | None
    low: float | None
    high: float | None

    @classmethod
    def of(cls, interval: Interval) -> Estimate:
        def clean(x: float) -> float | None:
            return None if math.isnan(x) else round(x, 6)

        return cls(value=clean(interval.value), low=clean(interval.low), high=clean(interval.high))


class Side(_Out):
    """One release's side of a row: k of n, the proportion with its Wilson interval, example conversations."""

    n: int
    k: int
    rate: Estimate
    examples: list[str]


class Row(_Out):
    dimension: Dimension
    key: str
    higher_is_better: bool
    base: Side
    new: Side
    difference: Estimate  # new − base, Newcombe interval
    z: float | None
    p_value: float | None
    q_value: float | None  # Benjamini–Hochberg across every row of the comparison
    significant: bool  # q_value below alpha
    worse: bool  # significant and in the bad direction


class ReleaseSummary(_Out):
    release: str
    dialogs: int
    scored_turns: int
    unscored_turns: int
    correctness: Estimate
    # Rogan–Gladen corrected for the monitor's error, with a calibration; all null when it is undefined
    corrected: Estimate | None = None


@dataclass(frozen=True)
class Correction:
    """The monitor's measured error rates from a calibration: sensitivity (of turns people pass, the share the
    monitor passes) and specificity (of turns people fail, the share the monitor fails)."""

    calibration_id: str
    sensitivity: float
    specificity: float


class Gate(_Out):
    """The --fail-if-worse decision on overall correctness: failed when the drop is significant (p below
    alpha) and material (at least min_drop)."""

    alpha: float
    min_drop: float
    failed: bool
    reason: str


class Comparison(_Out):
    calibration_id: str | None = None  # the calibration behind the corrected correctness, if any
    base: ReleaseSummary
    new: ReleaseSummary
    difference: Estimate
    z: float | None
    p_value: float | None
    rows: list[Row]
    worse_root_causes: list[str]  # root-cause rows that got significantly worse, most significant first
    new_root_causes: list[str]
    gate: Gate


def _side(tally: Tally, key: RowKey) -> tuple[int, int, list[str]]:
    row = tally.rows.get(key)
    n = tally.n_of(key)
    return n, (row.k if row is not None else 0), (list(row.examples) if row is not None else [])


def _clean(x: float) -> float | None:
    """A statistic for the JSON output: null when undefined, else to 4 significant digits (a p-value can be 1e-50)."""
    return None if math.isnan(x) else float(f"{x:.4g}")


def compare(
    base: Tally,
    new: Tally,
    alpha: float = DEFAULT_ALPHA,
    min_drop: float = DEFAULT_MIN_DROP,
    correction: Correction | None = None,
) -> Comparison:
    """Every row either release has, tested and ranked: significant worse rows first, then by q-value."""
    keys = sorted(set(base.rows) | set(new.rows), key=lambda k: (k[0] != Dimension.CORRECTNESS, k[0], k[1]))
    raw = []
    for key in keys:
        n1, k1, ex1 = _side(base, key)
        n2, k2, ex2 = _side(new, key)
        raw.append((key, n1, k1, ex1, n2, k2, ex2, two_proportion_z(k1, n1, k2, n2)))
    q_values = benjamini_hochberg([test.p_value for *_, test in raw])
    rows = []
    for (key, n1, k1, ex1, n2, k2, ex2, test), q in zip(raw, q_values, strict=True):
        better_up = HIGHER_IS_BETTER[key[0]]
        diff = difference(k1, n1, k2, n2)
        significant = not math.isnan(q) and q < alpha
        bad_direction = diff.defined and (diff.value < 0 if better_up else diff.value > 0)
        rows.append(
            Row(
                dimension=key[0],
                key=key[1],
                higher_is_better=better_up,
                base=Side(n=n1, k=k1, rate=Estimate.of(wilson(k1, n1)), examples=ex1),
                new=Side(n=n2, k=k2, rate=Estimate.of(wilson(k2, n2)), examples=ex2),
                difference=Estimate.of(diff),
                z=_clean(test.z),
                p_value=_clean(test.p_value),
                q_value=_clean(q),
                significant=significant,
                worse=significant and bad_direction,
            )
        )
    rows.sort(key=lambda r: (not r.worse, math.inf if r.q_value is None else r.q_value, -abs(r.difference.value or 0)))
    n1, k1, _ = _side(base, OVERALL)
    n2, k2, _ = _side(new, OVERALL)
    overall = two_proportion_z(k1, n1, k2, n2)
    drop = difference(k1, n1, k2, n2)
    new_causes = sorted(
        k[1] for k, count in new.rows.items() if k[0] == Dimension.ROOT_CAUSE and count.k and k not in base.rows
    )
    return Comparison(
        calibration_id=correction.calibration_id if correction is not None else None,
        base=_summary(base, correction),
        new=_summary(new, correction),
        difference=Estimate.of(drop),
        z=_clean(overall.z),
        p_value=_clean(overall.p_value),
        rows=rows,
        worse_root_causes=[r.key for r in rows if r.worse and r.dimension == Dimension.ROOT_CAUSE],
        new_root_causes=new_causes,
        gate=gate(drop, overall.p_value, alpha, min_drop),
    )


def _summary(tally: Tally, correction: Correction | None = None) -> ReleaseSummary:
    n, k, _ = _side(tally, OVERALL)
    raw = wilson(k, n)
    corrected = None
    if correction is not None:
        corrected = Estimate.of(rogan_gladen(raw, correction.sensitivity, correction.specificity))
    return ReleaseSummary(
        release=tally.release,
        dialogs=tally.dialogs,
        scored_turns=n,
        unscored_turns=tally.unscored,
        correctness=Estimate.of(raw),
        corrected=corrected,
    )


def gate(drop: Interval, p_value: float, alpha: float, min_drop: float) -> Gate:
    """Fails only on a drop of overall correctness that is both significant and material."""
    if not drop.defined or math.isnan(p_value):
        return Gate(alpha=alpha, min_drop=min_drop, failed=False, reason="a release has no scored turns")
    change = f"correctness changed by {drop.value * 100:+.1f} points (p = {p_value:.2g})"
    if drop.value > -min_drop:
        return Gate(alpha=alpha, min_drop=min_drop, failed=False, reason=f"{change}: not a drop of {min_drop:g}")
    if p_value >= alpha:
        return Gate(alpha=alpha, min_drop=min_drop, failed=False, reason=f"{change}: not significant at {alpha:g}")
    return Gate(alpha=alpha, min_drop=min_drop, failed=True, reason=f"{change}: significant and material")
