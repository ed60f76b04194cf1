"""Calibrated semantic scores: tiny logistic models over a handful of pair features.

The coefficients are constants fitted offline by ``benchmarks/accuracy.py --fit`` (k-fold cross-validated,
grouped by parameter name / by pair) so that 0.5 is the decision cut. Nothing here stores data.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from monitor.equivalence.abbreviations import COMPANY_SUFFIXES
from monitor.equivalence.normalize import STOPWORDS, expand_aliases, fold, lemma, strip_wrapping, tokens


def sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


@dataclass(frozen=True)
class LogisticModel:
    names: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float

    def score(self, features: Sequence[float]) -> float:
        return sigmoid(self.bias + sum(w * x for w, x in zip(self.weights, features, strict=True)))


# --- value pairs -----------------------------------------------------------------------------------
VALUE_FEATURES = ("cos", "containment", "jaccard", "head", "char", "cos_x_containment")
VALUE_MODEL = LogisticModel(
    names=VALUE_FEATURES,
    weights=(3.085, 0.169, -0.784, 1.69, 3.851, 0.954),
    bias=-3.104,
)

# --- reply pairs -----------------------------------------------------------------------------------
REPLY_FEATURES = ("cos", "coverage", "cos_x_coverage")
REPLY_MODEL = LogisticModel(
    names=REPLY_FEATURES,
    weights=(12.0, 2.0, 0.0),
    bias=-7.5,
)


@lru_cache(maxsize=65536)
def value_text(value: str) -> str:
    """The text a value is compared (and embedded) as: folded, unwrapped, aliases expanded."""
    return fold(expand_aliases(strip_wrapping(value.replace("_", " "))))


@lru_cache(maxsize=65536)
def value_tokens(text: str) -> tuple[str, ...]:
    toks = [lemma(t) for t in tokens(text)]
    content = [t for t in toks if t not in STOPWORDS and t not in COMPANY_SUFFIXES]
    return tuple(content or toks)


def _tok_match(a: str, b: str) -> bool:
    if a == b:
        return True
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return len(short) >= 3 and long_.startswith(short) and short.isalpha()


def _soft_overlap(ta: Sequence[str], tb: Sequence[str]) -> int:
    used: set[int] = set()
    hits = 0
    for x in ta:
        for j, y in enumerate(tb):
            if j not in used and _tok_match(x, y):
                used.add(j)
                hits += 1
                break
    return hits


def value_features(a_text: str, b_text: str, cos: float) -> list[float]:
    ta, tb = value_tokens(a_text), value_tokens(b_text)
    inter = _soft_overlap(ta, tb) if ta and tb else 0
    containment = inter / min(len(ta), len(tb)) if ta and tb else 0.0
    union = len(set(ta) | set(tb)) or 1
    jaccard = inter / union
    head_a = value_tokens(re.split(r"[,(]", a_text)[0]) or ta
    head_b = value_tokens(re.split(r"[,(]", b_text)[0]) or tb
    head = 1.0 if head_a and head_b and _soft_overlap(head_a, head_b) == min(len(head_a), len(head_b)) else 0.0
    char = SequenceMatcher(None, a_text, b_text).ratio()
    return [cos, containment, jaccard, head, char, cos * containment]


def reply_features(cos: float, coverage: float) -> list[float]:
    return [cos, coverage, cos * coverage]
