"""The fused reply decision: one small fitted classifier over the evidence the product computes for a pair of
texts — the bi-encoder cosine of the whole texts and of the pair the verifier read, and the verifier's three
probabilities in both directions — giving the probability that the reply is right.

The parameters (``fusion.json`` beside the verifier's model file, its sha256 in the model card) are made by
``train/fit_fusion.py`` from named data with a fixed seed; ``aem calibrate`` refits them on a team's labels
(regularised towards the shipped ones) and writes them to its overlay.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from monitor.verifier.model import Probabilities

FUSION_FILE = "fusion.json"
FEATURES = (
    "cosine",  # bi-encoder cosine of the whole texts
    "unit_cosine",  # of the two texts the verifier read (a gold sentence and its window, for long replies)
    "same", "changed", "dropped",  # the verifier, gold as premise (log-odds)
    "reverse_same", "reverse_changed", "reverse_dropped",  # the verifier, the reply as premise (log-odds)
)
_EPS = 1e-4


def _logit(p: float) -> float:
    p = min(max(p, _EPS), 1 - _EPS)
    return math.log(p / (1 - p))


@dataclass(frozen=True)
class Evidence:
    """What the product knows of one (gold, reply) unit before deciding."""

    cosine: float
    unit_cosine: float
    forward: Probabilities
    backward: Probabilities

    def vector(self) -> tuple[float, ...]:
        f, b = self.forward, self.backward
        return (
            self.cosine, self.unit_cosine,
            _logit(f.same), _logit(f.changed), _logit(f.dropped),
            _logit(b.same), _logit(b.changed), _logit(b.dropped),
        )

    def as_dict(self) -> dict[str, float]:
        return {name: round(value, 4) for name, value in zip(FEATURES, self.vector(), strict=True)}


class FusionUnavailable(ValueError):
    """A fusion parameter file that cannot be used (missing, malformed, fitted on other features)."""


@dataclass(frozen=True)
class Fusion:
    """Logistic regression over standardised evidence: P(right) = sigmoid(intercept + Σ wᵢ·(xᵢ − meanᵢ)/scaleᵢ)."""

    weights: tuple[float, ...]
    intercept: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    verifier: str  # the verifier model id the evidence was read with (a fit is only valid for its verifier)
    source: str = "shipped"  # "shipped", or where a refit came from ("calibration")

    def __post_init__(self) -> None:
        n = len(FEATURES)
        if not (len(self.weights) == len(self.mean) == len(self.scale) == n):
            raise FusionUnavailable(f"fusion parameters need {n} weights, means and scales, one per feature")
        values = (*self.weights, self.intercept, *self.mean, *self.scale)
        if not all(math.isfinite(v) for v in values) or any(s <= 0 for s in self.scale):
            raise FusionUnavailable("fusion parameters must be finite numbers, with positive scales")

    def logit(self, evidence: Evidence) -> float:
        x = evidence.vector()
        return self.intercept + sum(
            w * (v - m) / s for w, v, m, s in zip(self.weights, x, self.mean, self.scale, strict=True)
        )

    def p_right(self, evidence: Evidence) -> float:
        z = self.logit(evidence)
        return 1 / (1 + math.exp(-z)) if z > -700 else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "features": list(FEATURES), "weights": [round(w, 6) for w in self.weights],
            "intercept": round(self.intercept, 6), "mean": [round(m, 6) for m in self.mean],
            "scale": [round(s, 6) for s in self.scale], "verifier": self.verifier, "source": self.source,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Fusion:
        try:
            if list(data["features"]) != list(FEATURES):
                raise FusionUnavailable(f"fusion fitted on features {data['features']}, this build reads {FEATURES}")
            return cls(
                tuple(float(w) for w in data["weights"]), float(data["intercept"]),
                tuple(float(m) for m in data["mean"]), tuple(float(s) for s in data["scale"]),
                str(data["verifier"]), str(data.get("source", "shipped")),
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


def fit(
    rows: Sequence[Evidence], right: Sequence[bool], verifier: str, c: float = 1.0, prior: Fusion | None = None,
) -> Fusion:
    """A logistic regression of ``right`` on the evidence, with an L2 penalty of strength ``1/c``.

    Without ``prior`` the penalty pulls the weights towards zero (scikit-learn's ``LogisticRegression``); with
    one, the fit keeps the prior's standardisation and the penalty pulls the weights and intercept towards the
    prior's (the regularised refit ``aem calibrate`` makes: few labels move the decision a little)."""
    import numpy as np

    x = np.array([e.vector() for e in rows], dtype=float)
    y = np.array([bool(r) for r in right], dtype=float)
    if prior is None:
        from sklearn.linear_model import LogisticRegression

        mean, scale = x.mean(axis=0), x.std(axis=0)
        scale[scale < 1e-6] = 1.0
        model = LogisticRegression(C=c, max_iter=2000).fit((x - mean) / scale, y.astype(int))
        weights, intercept = model.coef_[0], float(model.intercept_[0])
    else:
        mean, scale = np.array(prior.mean), np.array(prior.scale)
        start = np.array([*prior.weights, prior.intercept])
        weights, intercept = _towards(np.column_stack([(x - mean) / scale, np.ones(len(x))]), y, start, 1.0 / c)
    return Fusion(
        tuple(float(w) for w in weights), float(intercept), tuple(float(m) for m in mean),
        tuple(float(s) for s in scale), verifier, "shipped" if prior is None else "calibration",
    )


def _towards(z: Any, y: Any, start: Any, strength: float) -> tuple[Any, float]:
    """Minimise the logistic loss + ``strength``·‖θ − start‖² over θ (weights, then intercept), from ``start``."""
    import numpy as np
    from scipy.optimize import minimize

    def loss(theta: Any) -> tuple[float, Any]:
        margin = z @ theta
        p = 1 / (1 + np.exp(-np.clip(margin, -30, 30)))
        nll = float(np.sum(np.logaddexp(0, margin) - y * margin))
        gap = theta - start
        return nll + strength * float(gap @ gap), z.T @ (p - y) + 2 * strength * gap

    theta = minimize(loss, start, jac=True, method="L-BFGS-B").x
    return theta[:-1], float(theta[-1])


def load_fusion(folder: str | None = None) -> Fusion | None:
    """The fused decision shipped beside the verifier of ``folder`` (default: ``AEM_VERIFIER_MODEL``, else the
    shipped model): checked against the model card's ``fusion_sha256`` and verifier id, a clear error when it
    differs. None, with a warning, for a model folder that has no ``fusion.json`` (the verifier decides alone)."""
    import os

    import structlog

    from monitor.verifier.model import MODEL_DIR, MODEL_ENV, VerifierUnavailable, checked_card

    path = Path(folder or os.environ.get(MODEL_ENV) or MODEL_DIR)
    file = path / FUSION_FILE
    if not file.is_file():
        structlog.get_logger(__name__).warning("fusion_missing", model=str(path), decides="verifier alone")
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
