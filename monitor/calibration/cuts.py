"""The decision cuts a verdict can sit close to, each described by where its value lives in the config,
how to read the deciding score off a verdict record and which side passes.

A new scorer adds its cut as one more entry of ``CUTS``; review sampling, the agreement report, fitting,
the overlay and the monitor's low-confidence count all go through this list.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

VerdictRecord = Mapping[str, Any]  # a turn verdict as JSON (aem score output, verdict topic, review row)

LOW_CONFIDENCE_MARGIN = 0.05  # a verdict whose deciding score is this close to its cut is low-confidence


@dataclass(frozen=True)
class Cut:
    """One decision threshold of the shipped scorer.

    ``setting``: its path in the config file (``("scoring", "threshold")``), None when it is fixed inside
    the scorer (measured and used for ordering, never fitted). ``score``: the deciding score of a verdict
    record this cut decides, else None. ``pass_above``: the verdict passes when the score is at least the cut
    (else when it is below). ``default``: the shipped value.
    """

    name: str
    setting: tuple[str, ...] | None
    score: Callable[[VerdictRecord], float | None]
    default: float
    pass_above: bool = True

    def value_in(self, config: Mapping[str, Any] | None) -> float:
        """The cut's value in a config mapping (the file's top level), the default when it is not set."""
        node: Any = config or {}
        for key in self.setting or ():
            if not isinstance(node, Mapping) or key not in node:
                return self.default
            node = node[key]
        return float(node) if isinstance(node, int | float) else self.default

    def passes(self, score: float, cut: float) -> bool:
        return score >= cut if self.pass_above else score < cut


def _root_decision(record: VerdictRecord) -> bool:
    return record.get("success") is not None and record.get("attribution") != "cascading"


def value_score(record: VerdictRecord) -> float | None:
    """An action turn's worst argument score when a semantic value comparison decided it (0 < score < 1):
    passed, or failed with inconsistent_parameter_values."""
    if record.get("turn") != "Tool" or not _root_decision(record):
        return None
    if record.get("failure_reason") not in (None, "inconsistent_parameter_values"):
        return None
    score = record.get("score")
    return float(score) if isinstance(score, int | float) and 0.0 < score < 1.0 else None


def verifier_same(record: VerdictRecord) -> float | None:
    """A reply's P(same) when the verifier decided it (its ``decision``): passed, or failed by the verifier."""
    if record.get("turn") != "Agent" or not _root_decision(record):
        return None
    decision = record.get("decision")
    if not isinstance(decision, Mapping) or decision.get("check") != "verifier":
        return None
    same = (decision.get("probabilities") or {}).get("same")
    return float(same) if isinstance(same, int | float) else None


def refit_right(record: VerdictRecord) -> float | None:
    """A reply's P(right) when a calibrated head decided it (``scoring.verifier.head``): its cut is fixed at 0.5."""
    if record.get("turn") != "Agent" or not _root_decision(record):
        return None
    decision = record.get("decision")
    if not isinstance(decision, Mapping) or decision.get("check") != "verifier_refit":
        return None
    score = record.get("score")
    return float(score) if isinstance(score, int | float) else None


def verifier_reading(record: VerdictRecord) -> dict[str, float]:
    """The verifier's three probabilities where it decided a reply (alone or through a calibrated head); what
    a refit of the decision reads. Empty otherwise."""
    if record.get("turn") != "Agent" or not _root_decision(record):
        return {}
    decision = record.get("decision")
    if not isinstance(decision, Mapping) or decision.get("check") not in ("verifier", "verifier_refit"):
        return {}
    found = decision.get("probabilities") or {}
    wanted = ("same", "changed", "dropped")
    if not all(isinstance(found.get(k), int | float) for k in wanted):
        return {}
    return {k: float(found[k]) for k in wanted}


def fused_right(record: VerdictRecord) -> float | None:
    """A reply's P(right) when the fused decision decided it: passed, or failed by the fused decision (a changed
    typed value decides by itself, whatever the cut)."""
    if record.get("turn") != "Agent" or not _root_decision(record):
        return None
    decision = record.get("decision")
    if not isinstance(decision, Mapping) or decision.get("check") != "fused":
        return None
    score = record.get("score")
    return float(score) if isinstance(score, int | float) else None


CUTS: tuple[Cut, ...] = (
    Cut("value_threshold", ("scoring", "threshold"), value_score, default=0.5),
    Cut("fused_pass", ("scoring", "verifier", "fused_threshold"), fused_right, default=0.5),
    Cut("verifier_pass", ("scoring", "verifier", "pass_threshold"), verifier_same, default=0.1),
    Cut("verifier_refit", None, refit_right, default=0.5),  # a calibrated head's P(right); refit, not cut
)


def deciding_scores(record: VerdictRecord, cuts: Sequence[Cut] = CUTS) -> dict[str, float]:
    """The score each cut that decides this verdict read (usually one, none for exact or structural ones)."""
    found: dict[str, float] = {}
    for cut in cuts:
        score = cut.score(record)
        if score is not None:
            found[cut.name] = round(score, 4)
    return found


def margin(
    scores: Mapping[str, float], config: Mapping[str, Any] | None = None, cuts: Sequence[Cut] = CUTS
) -> float | None:
    """How far the verdict is from the nearest cut that decided it (None: no cut did)."""
    by_name = {c.name: c for c in cuts}
    gaps = [abs(s - by_name[n].value_in(config)) for n, s in scores.items() if n in by_name]
    return round(min(gaps), 4) if gaps else None


def low_confidence(
    record: VerdictRecord,
    config: Mapping[str, Any] | None = None,
    margin_limit: float = LOW_CONFIDENCE_MARGIN,
    cuts: Sequence[Cut] = CUTS,
) -> bool:
    gap = margin(deciding_scores(record, cuts), config, cuts)
    return gap is not None and gap < margin_limit


def cut_config(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A config file's mapping in the shape cut settings are read from: its ``scoring`` section (or top
    level, as `aem score --config` reads it) under ``scoring``."""
    scoring = raw.get("scoring", raw if "monitor" not in raw else {})
    return {"scoring": dict(scoring) if isinstance(scoring, Mapping) else {}}
