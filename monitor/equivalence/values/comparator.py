"""Value equivalence: exact fast path -> typed comparison -> calibrated semantic score."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import structlog

from monitor.asking import Asking, ask, gather, settle
from monitor.cache import LruCache
from monitor.embeddings.semantic import SemanticScorer
from monitor.equivalence.normalize import categorize
from monitor.equivalence.typed_values import TypedValue, compare_values
from monitor.equivalence.types import Match
from monitor.equivalence.values import stages
from monitor.equivalence.values.base import canon
from monitor.equivalence.values.calibration import remainders, value_features, value_score, value_text
from monitor.equivalence.values.grounding import Grounding
from monitor.equivalence.values.stages import EXACT as _EXACT
from monitor.equivalence.values.stages import Stage

__all__ = ["ValueComparator"]

log = structlog.get_logger(__name__)

TYPED_MEMO_SIZE = 50_000  # typed decisions kept per distinct (gold, pred) scalar pair
_UNDECIDED = Match(False, -1.0, "undecided")  # a memoised "no typed stage decides"


def _is_scalar(v: Any) -> bool:
    return v is None or isinstance(v, str | int | float | bool)


class ValueComparator:
    """Decides whether a predicted value is equivalent to a gold value (tool arguments, reply facts)."""

    def __init__(
        self,
        semantic: SemanticScorer | None = None,
        threshold: float = 0.5,
        typed_stages: tuple[Stage, ...] = stages.STAGES,
    ) -> None:
        self.semantic = semantic
        self.threshold = threshold
        self.stages = typed_stages
        self.grounding = Grounding(self)
        # The same argument values recur across conversations.
        self.typed_memo: LruCache[tuple[Any, ...], Match] = LruCache("typed_decisions", TYPED_MEMO_SIZE)

    # ------------------------------------------------------------------ public API
    def compare(self, gold: Any, pred: Any, field: str | None = None) -> Match:
        return settle(self.compare_steps(gold, pred, field))

    def compare_steps(self, gold: Any, pred: Any, field: str | None = None) -> Asking[Match]:
        """``compare`` as a decision that asks for its encoder similarities (``monitor.asking``), so that the
        values of many turns are encoded in one batch."""
        return self._compare(gold, pred)

    def supported(self, value: Any, sources: Sequence[Any], typed_only: bool = False) -> Match:
        """Is ``value`` supported by any source (user text, earlier tool outputs as JSON values)? ``typed_only``:
        a typed fact (a time, an amount...) compared by the typed stages only, never by embedding similarity.

        See ``grounding.Grounding``."""
        return self.grounding.supported(value, sources, typed_only)

    def typed(self, gold: Any, pred: Any) -> Match | None:
        """The typed stages' decision on two scalars, or None when no stage decides."""
        return self._typed(gold, pred)

    def same_value(self, a: TypedValue, b: TypedValue) -> Match | None:
        """Two values read from texts (``typed_values``): the same value? None when they cannot be one (a date
        and a phone number). Decided by ``typed``, as tool arguments are."""
        return compare_values(a, b, self.typed)

    # ------------------------------------------------------------------ comparison
    def _compare(self, gold: Any, pred: Any) -> Asking[Match]:
        if gold == pred and type(gold) is type(pred):
            return _EXACT
        if isinstance(gold, Mapping) or isinstance(pred, Mapping):
            return (yield from self._compare_objects(gold, pred))
        if isinstance(gold, list | tuple) or isinstance(pred, list | tuple):
            return (yield from self._compare_lists(gold, pred))
        if gold is None or pred is None:
            empty = {"", "none", "null"}
            other = pred if gold is None else gold
            ok = other is None or (isinstance(other, str) and canon(other) in empty)
            return Match(ok, 1.0 if ok else 0.0, "exact")
        return (yield from self._compare_scalars(gold, pred))

    def _compare_objects(self, gold: Any, pred: Any) -> Asking[Match]:
        if not (isinstance(gold, Mapping) and isinstance(pred, Mapping)):
            parsed = self._maybe_json(gold), self._maybe_json(pred)
            if isinstance(parsed[0], Mapping) and isinstance(parsed[1], Mapping):
                return (yield from self._compare_objects(*parsed))
            return Match(False, 0.0, "object")
        gk = {canon(str(k)): k for k in gold}
        pk = {canon(str(k)): k for k in pred}
        if set(gk) != set(pk):
            return Match(False, 0.0, "object")
        if not gk:
            return Match(True, 1.0, "object")
        matches = yield from gather([self._compare(gold[g_key], pred[pk[k]]) for k, g_key in gk.items()])
        ok = all(m.equivalent for m in matches)
        score = min(m.score for m in matches)
        return Match(ok, score if ok else min(score, 0.49), "object")

    def _compare_lists(self, gold: Any, pred: Any) -> Asking[Match]:
        g = list(gold) if isinstance(gold, list | tuple) else self._as_list(gold)
        p = list(pred) if isinstance(pred, list | tuple) else self._as_list(pred)
        if g is None or p is None:
            return Match(False, 0.0, "list")
        if len(g) != len(p):
            return Match(False, 0.0, "list")
        if not g:
            return Match(True, 1.0, "list")
        # Positional first (cheap, and right for ordered lists), then order-insensitive matching.
        positional = yield from gather([self._compare(a, b) for a, b in zip(g, p, strict=True)])
        if all(m.equivalent for m in positional):
            return Match(True, min(m.score for m in positional), "list")
        # Every other pairing, asked at once; the positional ones are known already.
        others = [(i, j) for i in range(len(g)) for j in range(len(p)) if i != j]
        found = yield from gather([self._compare(g[i], p[j]) for i, j in others])
        grid = dict(zip(others, found, strict=True)) | {(i, i): m for i, m in enumerate(positional)}
        remaining = list(range(len(p)))
        scores: list[float] = []
        ok = True
        for i in range(len(g)):
            best_j, best = -1, Match(False, -1.0, "list")
            for j in remaining:
                m = grid[(i, j)]
                if m.equivalent > best.equivalent or (m.equivalent == best.equivalent and m.score > best.score):
                    best_j, best = j, m
            remaining.remove(best_j)
            ok = ok and best.equivalent
            scores.append(max(best.score, 0.0))
        score = min(scores)
        return Match(ok, score if ok else min(score, 0.49), "list")

    @staticmethod
    def _as_list(v: Any) -> list[Any] | None:
        if isinstance(v, str):
            parsed = ValueComparator._maybe_json(v)
            if isinstance(parsed, list):
                return parsed
            return [v]
        return [v]

    @staticmethod
    def _maybe_json(v: Any) -> Any:
        if isinstance(v, str) and v.strip()[:1] in "[{":
            try:
                return json.loads(v)
            except ValueError:
                return v
        return v

    def _compare_scalars(self, gold: Any, pred: Any) -> Asking[Match]:
        typed_match = self._typed(gold, pred)
        if typed_match is not None:
            return typed_match
        structured = yield from self._structured(gold, pred)
        if structured is not None:
            return structured
        return (yield from self._semantic(str(gold), str(pred)))

    def _structured(self, gold: Any, pred: Any) -> Asking[Match | None]:
        """Comma-structured values ("Boston, MA", "Naples, FL"): compare the heads, tails must agree."""
        if not (isinstance(gold, str) and isinstance(pred, str)):
            return None
        gp = [x.strip() for x in gold.split(",") if x.strip()]
        pp = [x.strip() for x in pred.split(",") if x.strip()]
        if len(gp) < 2 and len(pp) < 2:
            return None
        if len(gp) >= 2 and len(pp) >= 2:
            for a, b in zip(gp[1:], pp[1:], strict=False):
                ca, cb = categorize(a), categorize(b)
                shared = ca.keys() & cb.keys()
                if shared and not any(ca[c] & cb[c] for c in shared):
                    return Match(False, 0.1, "structured")
        m = yield from self._compare_scalars(gp[0], pp[0])
        return Match(m.equivalent, m.score, m.method if m.method != "exact" else "structured")

    def _typed(self, gold: Any, pred: Any) -> Match | None:
        """Typed comparison through the stage chain (``stages.STAGES``); None when no stage decides.

        Memoised per (type, value) pair: the stages are pure functions of the two scalars."""
        key = (type(gold), gold, type(pred), pred)
        if not (_is_scalar(gold) and _is_scalar(pred)):  # unhashable: not memoised
            return stages.run(gold, pred, self.stages)
        known = self.typed_memo.get(key)
        if known is None:
            known = stages.run(gold, pred, self.stages) or _UNDECIDED
            self.typed_memo.put(key, known)
        return None if known is _UNDECIDED else known

    def _semantic(self, gold: str, pred: str) -> Asking[Match]:
        a, b = value_text(gold), value_text(pred)
        if self.semantic is None:
            feats = value_features(a, b, 0.0)
            # Typed-only mode: token containment decides ("Louvre Museum" / "Louvre").
            ok = feats[1] >= 1.0 and feats[3] >= 1.0
            return Match(ok, 0.75 if ok else 0.25, "lexical")
        rest = remainders(a, b)
        sims = yield from ask(self.semantic.similarity, [(a, b), rest] if rest else [(a, b)])
        score = value_score(value_features(a, b, sims[0], sims[1] if rest else None))
        return Match(score >= self.threshold, score, "semantic")
