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

from monitor.equivalence.normalize import STOPWORDS, expand_aliases, fold, lemma, strip_wrapping, tokens
from monitor.equivalence.reference_data.abbreviations import COMPANY_SUFFIXES


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
VALUE_FEATURES = ("cos", "rest_cos", "containment", "head", "char", "overlap")
VALUE_MODEL = LogisticModel(
    names=VALUE_FEATURES,
    weights=(2.508, 3.517, 0.135, 1.347, 0.68, -0.099),
    bias=-3.485,
)
# What two values do not share must be near-synonyms: with no word in common the whole values, otherwise
# the words each says that the other does not ("Sheraton" / "Hilton" in "Sheraton Hotel" / "Hilton Hotel").
# Raw MiniLM cosine puts related-but-different terms ("profit" / "revenue" 0.73) well above 0.5.
NO_OVERLAP_MIN_COS = 0.78


def value_score(features: Sequence[float], model: LogisticModel = VALUE_MODEL) -> float:
    """Calibrated equivalence score of a value pair from ``value_features`` (0.5 is the cut)."""
    score = model.score(features)
    rest_cos = features[1]  # the whole values' cosine when they share no word
    if rest_cos < NO_OVERLAP_MIN_COS:
        score = min(score, 0.49 * max(rest_cos, 0.0) / NO_OVERLAP_MIN_COS)
    return score


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


def _match_sets(ta: Sequence[str], tb: Sequence[str]) -> tuple[set[int], set[int]]:
    used_a: set[int] = set()
    used_b: set[int] = set()
    for i, x in enumerate(ta):
        for j, y in enumerate(tb):
            if j not in used_b and _tok_match(x, y):
                used_a.add(i)
                used_b.add(j)
                break
    return used_a, used_b


def _soft_overlap(ta: Sequence[str], tb: Sequence[str]) -> int:
    return len(_match_sets(ta, tb)[0])


@lru_cache(maxsize=65536)
def remainders(a_text: str, b_text: str) -> tuple[str, str] | None:
    """What each side says that the other does not ("sheraton" / "hilton" for "Sheraton Hotel" /
    "Hilton Hotel"), when both sides have such a remainder and they share at least one word."""
    ta, tb = value_tokens(a_text), value_tokens(b_text)
    ua, ub = _match_sets(ta, tb)
    if not ua:
        return None
    ra = " ".join(t for i, t in enumerate(ta) if i not in ua)
    rb = " ".join(t for j, t in enumerate(tb) if j not in ub)
    return (ra, rb) if ra and rb else None


def value_features(a_text: str, b_text: str, cos: float, rest_cos: float | None = None) -> list[float]:
    """rest_cos: similarity of the two remainders (see ``remainders``); None when there are none."""
    ta, tb = value_tokens(a_text), value_tokens(b_text)
    inter = _soft_overlap(ta, tb) if ta and tb else 0
    containment = inter / min(len(ta), len(tb)) if ta and tb else 0.0
    overlap = 1.0 if inter else 0.0
    if rest_cos is None:
        rest_cos = 1.0 if inter else cos
    head_a = value_tokens(re.split(r"[,(]", a_text)[0]) or ta
    head_b = value_tokens(re.split(r"[,(]", b_text)[0]) or tb
    head = 1.0 if head_a and head_b and _soft_overlap(head_a, head_b) == min(len(head_a), len(head_b)) else 0.0
    char = SequenceMatcher(None, a_text, b_text).ratio()
    return [cos, rest_cos, containment, head, char, overlap]
