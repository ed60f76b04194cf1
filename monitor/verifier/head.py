"""The refit reply decision: a logistic head over the verifier's three log-odds, fitted by `aem calibrate` on a
team's labels and regularised towards the shipped decision.

The shipped decision (a reply passes when P(same) is at least ``pass_threshold``) is the head with weights
``same`` 1, ``changed`` 0, ``dropped`` 0 and intercept ``-logit(pass_threshold)``: P(right) ≥ 0.5 exactly when
P(same) ≥ the cut. A refit moves the weights where the labels disagree with that decision — for example a team
that counts a left-out detail as a pass gives ``dropped`` a positive weight, which no cut on P(same) can do — and
its P(right) is the reply's score.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from monitor.verifier.model import Probabilities

EPS = 1e-4
WEIGHTS = ("same", "changed", "dropped")
MAX_MOVE = 4.0  # the furthest one refit moves a weight or the intercept (log-odds units)
REFIT_CUT = 0.5  # a head passes a reply at P(right) 0.5
STRENGTH = 1.0  # the L2 pull towards the current head: few labels move it a little, many as far as they say


def logit(p: float) -> float:
    p = min(max(p, EPS), 1 - EPS)
    return math.log(p / (1 - p))


@dataclass(frozen=True)
class Head:
    """P(right) = sigmoid(same·logit(P same) + changed·logit(P changed) + dropped·logit(P dropped) + intercept)."""

    same: float = 1.0
    changed: float = 0.0
    dropped: float = 0.0
    intercept: float = 0.0

    @classmethod
    def shipped(cls, pass_threshold: float) -> Head:
        """The head that decides as the cut on P(same) does."""
        return cls(intercept=-logit(pass_threshold))

    @classmethod
    def of(cls, values: Mapping[str, float]) -> Head:
        return cls(**{k: float(values[k]) for k in (*WEIGHTS, "intercept")})

    def vector(self) -> tuple[float, float, float, float]:
        return (self.same, self.changed, self.dropped, self.intercept)

    def as_dict(self) -> dict[str, float]:
        return {k: round(v, 4) for k, v in zip((*WEIGHTS, "intercept"), self.vector(), strict=True)}

    def p_right(self, p: Probabilities | Mapping[str, float]) -> float:
        z = sum(w * x for w, x in zip(self.vector(), features(p), strict=True))
        return 1 / (1 + math.exp(-max(min(z, 700.0), -700.0)))


def features(p: Probabilities | Mapping[str, float]) -> tuple[float, float, float, float]:
    """The log-odds a head weighs (and 1 for the intercept)."""
    same, changed, dropped = (
        (float(p["same"]), float(p["changed"]), float(p["dropped"])) if isinstance(p, Mapping)
        else (p.same, p.changed, p.dropped)
    )
    return (logit(same), logit(changed), logit(dropped), 1.0)


def refit(current: Head, readings: Sequence[Mapping[str, float]], right: Sequence[bool]) -> Head:
    """The head fitted to labels by logistic loss with an L2 pull of ``STRENGTH`` towards ``current``, each
    parameter moved at most ``MAX_MOVE``."""
    import numpy as np
    from scipy.optimize import minimize

    x = np.array([features(r) for r in readings], dtype=float)
    y = np.array([bool(r) for r in right], dtype=float)
    start = np.array(current.vector())

    def loss(theta: Any) -> tuple[float, Any]:
        margin = x @ theta
        p = 1 / (1 + np.exp(-np.clip(margin, -30, 30)))
        gap = theta - start
        nll = float(np.sum(np.logaddexp(0, margin) - y * margin))
        return nll + STRENGTH * float(gap @ gap), x.T @ (p - y) + 2 * STRENGTH * gap

    bounds = [(v - MAX_MOVE, v + MAX_MOVE) for v in start]
    theta = minimize(loss, start, jac=True, method="L-BFGS-B", bounds=bounds).x
    return Head(*(round(float(v), 4) for v in theta))
