"""Accuracy of the value comparator on the development data (the VALUES part of ``accuracy.py``).

BFCL accepted alternatives: equivalent pairs = two values of one entry; different pairs = values of the same
parameter name from entries whose accepted sets do not overlap (deduplicated, capped per param).

Schema-Guided Dialogue slot values (``sgd_value_pairs_dev.jsonl``): balanced accuracy per domain (service)
and a leave-one-domain-out figure. The one tuned number is the cut on the semantic stage's score: for each
domain it is chosen on the other domains (best balanced accuracy) and the held-out domain is scored with it;
the held-out predictions of all domains are pooled into one balanced accuracy (the figure to quote) and the
per-domain held-out figures are averaged. Beside it: bare cosine >= 0.5 and the best single cosine threshold
(in sample, and chosen leave-one-domain-out the same way).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from monitor.asking import first_ask, settle_all
from monitor.embeddings import EmbeddingScorer
from monitor.equivalence import ValueComparator
from monitor.equivalence.values.calibration import (
    VALUE_MODEL,
    LogisticModel,
    remainders,
    value_features,
    value_score,
)

CAP_PER_PARAM = 400
BFCL_FILE = "bfcl_value_alternatives.json"
SGD_FILE = "sgd_value_pairs_dev.jsonl"


def balanced(labels: Sequence[int], preds: Sequence[bool]) -> tuple[float, float, float]:
    pos = [p for y, p in zip(labels, preds, strict=True) if y == 1]
    neg = [p for y, p in zip(labels, preds, strict=True) if y == 0]
    tpr = sum(pos) / len(pos) if pos else float("nan")
    tnr = sum(not p for p in neg) / len(neg) if neg else float("nan")
    return (tpr + tnr) / 2, tpr, tnr


def fit_logistic(x: np.ndarray, y: np.ndarray, names: tuple[str, ...], c: float = 1.0) -> LogisticModel:
    from sklearn.linear_model import LogisticRegression

    clf = LogisticRegression(C=c, class_weight="balanced", max_iter=5000)
    clf.fit(x, y)
    return LogisticModel(names, tuple(round(float(w), 3) for w in clf.coef_[0]), round(float(clf.intercept_[0]), 3))


# ----------------------------------------------------------------------------------------------- BFCL
def bfcl_pairs(path: Path, seed: int = 0) -> tuple[list[tuple[str, Any, Any, int]], dict[str, int]]:
    entries = json.loads(path.read_text())
    rng = random.Random(seed)
    eq: dict[tuple[str, ...], tuple[str, Any, Any]] = {}
    by_param: dict[str, list[list[str]]] = defaultdict(list)
    for e in entries:
        vals = list(dict.fromkeys(json.dumps(v) for v in e["acceptable"]))
        by_param[e["param"]].append(vals)
        for a, b in itertools.combinations(vals, 2):
            eq.setdefault(tuple(sorted((a, b))), (e["param"], json.loads(a), json.loads(b)))
    diff: dict[tuple[str, ...], tuple[str, Any, Any]] = {}
    capped = 0
    for param, groups in by_param.items():
        cands: dict[tuple[str, ...], tuple[str, Any, Any]] = {}
        for g1, g2 in itertools.combinations(groups, 2):
            if set(g1) & set(g2):
                continue
            for a in g1:
                for b in g2:
                    key = tuple(sorted((a, b)))
                    if key not in eq:
                        cands.setdefault(key, (param, json.loads(a), json.loads(b)))
        keys = sorted(cands)
        if len(keys) > CAP_PER_PARAM:
            capped += 1
            keys = rng.sample(keys, CAP_PER_PARAM)
        for k in keys:
            diff[k] = cands[k]
    pairs = [(p, a, b, 1) for p, a, b in eq.values()] + [(p, a, b, 0) for p, a, b in diff.values()]
    return pairs, {"equivalent": len(eq), "different": len(diff), "params_capped": capped}


def bfcl_report(data: Path, scorer: EmbeddingScorer, fit: bool = False, folds: int = 5) -> list[str]:
    pairs, counts = bfcl_pairs(data / BFCL_FILE)
    vc = ValueComparator(semantic=scorer)
    t0 = time.perf_counter()
    matches = settle_all([vc.compare_steps(a, b) for _, a, b, _ in pairs])
    preds = [m.equivalent for m in matches]
    elapsed = time.perf_counter() - t0
    labels = [y for *_, y in pairs]
    out = ["== Values: BFCL accepted alternatives ==",
           f"pairs: {counts['equivalent']} equivalent, {counts['different']} different "
           f"(different pairs capped at {CAP_PER_PARAM} per param; {counts['params_capped']} params capped)",
           "balanced accuracy {:.4f}  TPR(equivalent) {:.4f}  TNR(different) {:.4f}".format(*balanced(labels, preds))
           + f"  [{elapsed:.1f}s]"]
    sims = scorer.similarity([(str(a), str(b)) for _, a, b, _ in pairs])
    out.append("baseline cosine>=0.5: balanced {:.4f} TPR {:.4f} TNR {:.4f}".format(
        *balanced(labels, [s >= 0.5 for s in sims])))
    # semantic-stage pairs, for fitting / cross-validation of the calibration model
    sem_idx, feats = [], []
    for i, ((_, a, b, _), m) in enumerate(zip(pairs, matches, strict=True)):
        asked = first_ask(vc.compare_steps(a, b), scorer.similarity) if m.method == "semantic" else ()
        if asked:
            ta, tb = asked[0]  # the semantic stage's texts (value_text of the pair, or of its heads)
            rest = remainders(ta, tb)
            sem_idx.append(i)
            feats.append(value_features(ta, tb, scorer.similarity([(ta, tb)])[0],
                                        scorer.similarity([rest])[0] if rest else None))
    x, y = np.array(feats), np.array([labels[i] for i in sem_idx])
    out.append(f"semantic stage decides {len(sem_idx)} of {len(pairs)} pairs; the rest are decided by typed stages")
    if fit:
        fitted = fit_logistic(x, y, VALUE_MODEL.names)
        out.append(f"fitted VALUE_MODEL: weights={fitted.weights} bias={fitted.bias}")
    from sklearn.model_selection import GroupKFold

    cv_preds = list(preds)
    for tr, te in GroupKFold(n_splits=folds).split(x, y, [pairs[i][0] for i in sem_idx]):
        model = fit_logistic(x[tr], y[tr], VALUE_MODEL.names)
        for j in te:
            cv_preds[sem_idx[j]] = value_score(list(x[j]), model) >= 0.5
    out.append("{}-fold CV grouped by param name: balanced {:.4f} TPR {:.4f} TNR {:.4f}".format(
        folds, *balanced(labels, cv_preds)))
    if os.environ.get("AEM_SHOW_ERRORS"):
        out += [f"  ERR {yv} {p} {a!r} {b!r} {m}" for (p, a, b, yv), m in zip(pairs, matches, strict=True)
                if bool(yv) != m.equivalent]
    return out


# ----------------------------------------------------------------------------------------------- SGD
@dataclass(frozen=True)
class Scored:
    domain: str
    label: int
    equivalent: bool  # the comparator's verdict at its default cut
    semantic: bool  # decided by the semantic stage (its score is then compared with the tuned cut)
    score: float
    cosine: float


Verdict = Callable[[Scored, float | None], bool]


def sgd_pairs(path: Path) -> list[dict[str, Any]]:
    rows = []
    for n, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        missing = {"service", "gold", "predicted", "equivalent"} - row.keys()
        if missing:
            raise SystemExit(f"{path}:{n}: missing field(s) {sorted(missing)}")
        rows.append(row)
    return rows


def _verdict(s: Scored, cut: float | None) -> bool:
    return s.score >= cut if (cut is not None and s.semantic) else s.equivalent


def _best_cut(items: Sequence[Scored], verdict: Verdict, cuts: Sequence[float]) -> float:
    labels = [s.label for s in items]
    return max(cuts, key=lambda c: (balanced(labels, [verdict(s, c) for s in items])[0], -abs(c - 0.5)))


def _leave_one_domain_out(
    items: Sequence[Scored], verdict: Verdict, cuts: Sequence[float]
) -> tuple[float, float, list[str]]:
    """(pooled held-out balanced accuracy, mean per-domain balanced accuracy, lines)."""
    domains = sorted({s.domain for s in items})
    held_labels: list[int] = []
    held_preds: list[bool] = []
    per_domain: list[float] = []
    lines = []
    for d in domains:
        train = [s for s in items if s.domain != d]
        test = [s for s in items if s.domain == d]
        cut = _best_cut(train, verdict, cuts)
        preds = [verdict(s, cut) for s in test]
        held_labels += [s.label for s in test]
        held_preds += preds
        bal, tpr, tnr = balanced([s.label for s in test], preds)
        if not np.isnan(bal):
            per_domain.append(bal)
        lines.append(f"  {d:<12} cut {cut:.2f}  balanced {bal:.4f}  TPR {tpr:.4f}  TNR {tnr:.4f}")
    return balanced(held_labels, held_preds)[0], float(np.mean(per_domain)), lines


def sgd_report(data: Path, scorer: EmbeddingScorer) -> list[str]:
    rows = sgd_pairs(data / SGD_FILE)
    vc = ValueComparator(semantic=scorer)
    t0 = time.perf_counter()
    matches = settle_all([vc.compare_steps(r["gold"], r["predicted"]) for r in rows])
    elapsed = time.perf_counter() - t0
    cosines = scorer.similarity([(str(r["gold"]), str(r["predicted"])) for r in rows])
    items = [Scored(r["service"], int(bool(r["equivalent"])), m.equivalent, m.method == "semantic", m.score, c)
             for r, m, c in zip(rows, matches, cosines, strict=True)]
    labels = [s.label for s in items]
    out = ["== Values: Schema-Guided Dialogue slot values ==",
           f"pairs: {sum(labels)} equivalent, {len(labels) - sum(labels)} different, "
           f"{len({s.domain for s in items})} domains",
           "in sample: balanced {:.4f}  TPR {:.4f}  TNR {:.4f}".format(*balanced(labels, [s.equivalent for s in items]))
           + f"  [{elapsed:.1f}s]"]
    out.append("per domain (in sample):")
    for d in sorted({s.domain for s in items}):
        sub = [s for s in items if s.domain == d]
        bal, tpr, tnr = balanced([s.label for s in sub], [s.equivalent for s in sub])
        out.append(f"  {d:<12} n={len(sub):<4} balanced {bal:.4f}  TPR {tpr:.4f}  TNR {tnr:.4f}")
    cuts = [round(c, 2) for c in np.arange(0.05, 0.96, 0.05)]
    pooled, mean, lines = _leave_one_domain_out(items, _verdict, cuts)
    out.append("leave-one-domain-out (semantic cut chosen on the other domains):")
    out += lines
    out.append(f"LEAVE-ONE-DOMAIN-OUT values: pooled held-out balanced {pooled:.4f}; mean over domains {mean:.4f}")

    def cos_verdict(s: Scored, cut: float | None) -> bool:
        return s.cosine >= (0.5 if cut is None else cut)

    cos_cuts = [round(c, 2) for c in np.arange(0.0, 1.0, 0.02)]
    best = _best_cut(items, cos_verdict, cos_cuts)
    c_pooled, c_mean, _ = _leave_one_domain_out(items, cos_verdict, cos_cuts)
    out.append("baseline cosine>=0.5: balanced {:.4f} TPR {:.4f} TNR {:.4f}".format(
        *balanced(labels, [s.cosine >= 0.5 for s in items])))
    best_bal = balanced(labels, [s.cosine >= best for s in items])[0]
    out.append(f"baseline best single cosine threshold (in sample, {best:.2f}): balanced {best_bal:.4f}")
    out.append(f"baseline cosine threshold leave-one-domain-out: pooled {c_pooled:.4f}; mean over domains {c_mean:.4f}")
    if os.environ.get("AEM_SHOW_ERRORS"):
        out += [f"  ERR {r['equivalent']} {r['service']} {r['gold']!r} {r['predicted']!r} {m}"
                for r, m in zip(rows, matches, strict=True) if bool(r["equivalent"]) != m.equivalent]
    return out


def check_data(data: Path, names: Sequence[str]) -> None:
    """Exit with a clear message when the data directory or one of its files is missing."""
    if not data.is_dir():
        raise SystemExit(f"--data {data}: no such directory (the evaluation data, default benchmarks/data)")
    missing = [n for n in names if not (data / n).is_file()]
    if missing:
        raise SystemExit(f"--data {data}: missing {', '.join(missing)}")


def values_report(data: Path, scorer: EmbeddingScorer, fit: bool = False, folds: int = 5) -> list[str]:
    """Every values figure: BFCL accepted alternatives, then the SGD slot values by domain."""
    check_data(data, [BFCL_FILE, SGD_FILE])
    return [*bfcl_report(data, scorer, fit, folds), *sgd_report(data, scorer)]
