"""The fused reply decision: one small fitted classifier over the evidence the product computes for a pair of
texts — the bi-encoder cosine of the whole texts and of the pair the verifier read, the verifier's three
probabilities in both directions, and how many of gold's typed values and facts the value comparators find in
the reply — giving the probability that the reply is right.

The parameters (``fusion.json`` beside the verifier's model file, its sha256 in the model card) are made by
``train/fit_fusion.py`` from named data with a fixed seed; ``refit`` fits the slope and intercept of its score to
a team's labels, regularised towards the shipped ones (not yet called by ``aem calibrate``, which fits the cut).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import structlog

from monitor.verifier.model import MODEL_DIR, MODEL_ENV, Probabilities, VerifierUnavailable, checked_card

log = structlog.get_logger(__name__)

FUSION_FILE = "fusion.json"
FEATURES = (
    "cosine",  # bi-encoder cosine of the whole texts
    "unit_cosine",  # of the two texts the verifier read (a gold sentence and its window, for long replies)
    "same", "changed", "dropped",  # the verifier, gold as premise (log-odds)
    "reverse_same", "reverse_changed", "reverse_dropped",  # the verifier, the reply as premise (log-odds)
    "values_kept",  # log(1 + gold's typed values the reply states with the same value)
    "values_dropped",  # log(1 + gold's typed values the reply leaves out)
    "facts_kept",  # log(1 + gold's facts, names included, the reply states)
)
_EPS = 1e-4


def _logit(p: float) -> float:
    p = min(max(p, _EPS), 1 - _EPS)
    return math.log(p / (1 - p))


@dataclass(frozen=True)
class Agreement:
    """What the typed value comparators found of gold's facts in the reply (``TypedValueEvidence.agreement``)."""

    values_kept: int = 0
    values_dropped: int = 0
    facts_kept: int = 0


@dataclass(frozen=True)
class Evidence:
    """What the product knows of one (gold, reply) unit before deciding."""

    cosine: float
    unit_cosine: float
    forward: Probabilities
    backward: Probabilities
    agreement: Agreement = Agreement()

    def vector(self) -> tuple[float, ...]:
        f, b, a = self.forward, self.backward, self.agreement
        return (
            self.cosine, self.unit_cosine,
            _logit(f.same), _logit(f.changed), _logit(f.dropped),
            _logit(b.same), _logit(b.changed), _logit(b.dropped),
            math.log1p(a.values_kept), math.log1p(a.values_dropped), math.log1p(a.facts_kept),
        )

    def as_dict(self) -> dict[str, float]:
        return {name: round(value, 4) for name, value in zip(FEATURES, self.vector(), strict=True)}


class FusionUnavailable(ValueError):
    """A fusion parameter file that cannot be used (missing, malformed, fitted on other features)."""


@dataclass(frozen=True)
class Tree:
    """One regression tree, as flat node arrays: an inner node sends ``x`` left when ``x[feature] <=
    threshold``; a leaf (``left == -1``) adds its value."""

    feature: tuple[int, ...]
    threshold: tuple[float, ...]
    left: tuple[int, ...]
    right: tuple[int, ...]
    value: tuple[float, ...]

    def __call__(self, x: Sequence[float]) -> float:
        node = 0
        while self.left[node] >= 0:
            node = self.left[node] if x[self.feature[node]] <= self.threshold[node] else self.right[node]
        return self.value[node]

    def check(self, features: int) -> None:
        n = len(self.value)
        arrays = (self.feature, self.threshold, self.left, self.right)
        if not n or any(len(a) != n for a in arrays):
            raise FusionUnavailable("a fusion tree's node arrays must be non-empty and of one length")
        for i in range(n):
            if self.left[i] >= 0 and not (
                i < self.left[i] < n and i < self.right[i] < n and 0 <= self.feature[i] < features
            ):
                raise FusionUnavailable(f"a fusion tree's node {i} points outside the tree")
        if not all(math.isfinite(v) for v in (*self.threshold, *self.value)):
            raise FusionUnavailable("a fusion tree holds a number that is not finite")


@dataclass(frozen=True)
class Fusion:
    """Gradient-boosted trees over the evidence, then a logistic calibration:
    P(right) = sigmoid(slope · (baseline + Σ tree(x)) + intercept). The shipped fit has slope 1 and intercept
    0; ``refit`` fits the two to a team's labels (regularised towards them)."""

    trees: tuple[Tree, ...]
    baseline: float
    verifier: str  # the verifier model id the evidence was read with (a fit is only valid for its verifier)
    slope: float = 1.0
    intercept: float = 0.0
    source: str = "shipped"  # "shipped", or where a refit came from ("calibration")

    def __post_init__(self) -> None:
        if not all(math.isfinite(v) for v in (self.baseline, self.slope, self.intercept)):
            raise FusionUnavailable("fusion parameters must be finite numbers")
        for tree in self.trees:
            tree.check(len(FEATURES))

    def raw(self, evidence: Evidence) -> float:
        x = evidence.vector()
        return self.baseline + sum(tree(x) for tree in self.trees)

    def logit(self, evidence: Evidence) -> float:
        return self.slope * self.raw(evidence) + self.intercept

    def p_right(self, evidence: Evidence) -> float:
        z = max(min(self.logit(evidence), 700.0), -700.0)
        return 1 / (1 + math.exp(-z))

    def as_dict(self) -> dict[str, Any]:
        return {
            "features": list(FEATURES), "baseline": self.baseline, "slope": self.slope,
            "intercept": self.intercept, "verifier": self.verifier, "source": self.source,
            "trees": [
                {"feature": list(t.feature), "threshold": list(t.threshold), "left": list(t.left),
                 "right": list(t.right), "value": list(t.value)}
                for t in self.trees
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Fusion:
        try:
            if list(data["features"]) != list(FEATURES):
                raise FusionUnavailable(f"fusion fitted on features {data['features']}, this build reads {FEATURES}")
            trees = tuple(
                Tree(
                    tuple(int(v) for v in t["feature"]), tuple(float(v) for v in t["threshold"]),
                    tuple(int(v) for v in t["left"]), tuple(int(v) for v in t["right"]),
                    tuple(float(v) for v in t["value"]),
                )
                for t in data["trees"]
            )
            return cls(
                trees, float(data["baseline"]), str(data["verifier"]), float(data.get("slope", 1.0)),
                float(data.get("intercept", 0.0)), str(data.get("source", "shipped")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, FusionUnavailable):
                raise
            raise FusionUnavailable(f"fusion parameters: {exc!r}") from None

    @classmethod
    def load(cls, path: Path) -> Fusion:
        try:
            return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))
        except OSError as exc:
            raise FusionUnavailable(f"{path}: {exc.strerror}") from None
        except json.JSONDecodeError as exc:
            raise FusionUnavailable(f"{path}: not JSON ({exc.msg})") from None


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# The shipped fit's settings (train/fit_fusion.py): small trees, a slow rate, fixed seed.
BOOSTING = {"max_depth": 3, "max_iter": 200, "learning_rate": 0.05, "random_state": 0}


def fit(rows: Sequence[Evidence], right: Sequence[bool], verifier: str) -> Fusion:
    """Gradient-boosted trees (scikit-learn's ``HistGradientBoostingClassifier``) of ``right`` on the evidence,
    exported as plain node arrays (no pickle ships)."""
    import numpy as np
    from sklearn.ensemble import HistGradientBoostingClassifier

    x = np.array([e.vector() for e in rows], dtype=float)
    model = HistGradientBoostingClassifier(**BOOSTING).fit(x, np.array([bool(r) for r in right], dtype=int))
    trees = []
    for (predictor,) in model._predictors:  # one tree per iteration for a binary task
        nodes = predictor.nodes
        leaf = nodes["is_leaf"].astype(bool)
        trees.append(Tree(
            tuple(int(v) for v in nodes["feature_idx"]), tuple(float(v) for v in nodes["num_threshold"]),
            tuple(-1 if leaf[i] else int(v) for i, v in enumerate(nodes["left"])),
            tuple(-1 if leaf[i] else int(v) for i, v in enumerate(nodes["right"])),
            tuple(float(v) for v in nodes["value"]),
        ))
    baseline = float(np.ravel(model._baseline_prediction)[0])
    return Fusion(tuple(trees), baseline, verifier)


def refit(fusion: Fusion, rows: Sequence[Evidence], right: Sequence[bool], strength: float = 1.0) -> Fusion:
    """The calibration refit: slope and intercept of the shipped score on a team's labels, by logistic loss
    with an L2 pull of ``strength`` towards the shipped (1, 0) — few labels move the decision a little, many
    consistent ones as far as they say."""
    import numpy as np
    from scipy.optimize import minimize

    z = np.column_stack([[fusion.raw(e) for e in rows], np.ones(len(rows))])
    y = np.array([bool(r) for r in right], dtype=float)
    start = np.array([fusion.slope, fusion.intercept])

    def loss(theta: Any) -> tuple[float, Any]:
        margin = z @ theta
        p = 1 / (1 + np.exp(-np.clip(margin, -30, 30)))
        gap = theta - start
        nll = float(np.sum(np.logaddexp(0, margin) - y * margin))
        return nll + strength * float(gap @ gap), z.T @ (p - y) + 2 * strength * gap

    slope, intercept = minimize(loss, start, jac=True, method="L-BFGS-B").x
    return replace(fusion, slope=float(slope), intercept=float(intercept), source="calibration")


def load_fusion(folder: str | None = None) -> Fusion | None:
    """The fused decision shipped beside the verifier of ``folder`` (default: ``AEM_VERIFIER_MODEL``, else the
    shipped model): checked against the model card's ``fusion_sha256`` and verifier id, a clear error when it
    differs. None, with a warning, for a model folder that has no ``fusion.json`` (the verifier decides alone)."""
    path = Path(folder or os.environ.get(MODEL_ENV) or MODEL_DIR)
    file = path / FUSION_FILE
    if not file.is_file():
        log.warning("fusion_missing", model=str(path), decides="verifier alone")
        return None
    card, sha = checked_card(path)
    digest = file_digest(file)
    if card.get("fusion_sha256") != digest:
        raise VerifierUnavailable(f"{file}: sha256 {digest[:12]}… differs from the model card's fusion_sha256")
    fusion = Fusion.load(file)
    model_id = str(card.get("model_id", sha[:12]))
    if fusion.verifier != model_id:
        raise VerifierUnavailable(f"{file} was fitted for verifier {fusion.verifier}, not {model_id}")
    return fusion
