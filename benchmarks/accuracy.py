"""Accuracy of the value and reply comparators on the development data.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/accuracy.py [--data /work/shared/data] [--fit] [--folds 5]

Values: BFCL accepted alternatives. Equivalent pairs = two values of one entry; different pairs = values of
the same parameter name from entries whose accepted sets do not overlap (deduplicated, capped per param).
Replies: STS-B dev, score >= 4 equivalent (truthful and complete), <= 1 different.

The logistic coefficients in monitor/equivalence/calibration.py are constants; ``--fit`` refits them on
all the data and prints them, and always a k-fold cross-validated figure (folds grouped by parameter name
for values, by pair for replies) so the figure is not one of memorisation.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import os
import random
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from monitor.equivalence import EmbeddingScorer, ValueComparator
from monitor.equivalence.calibration import (
    VALUE_MODEL,
    LogisticModel,
    remainders,
    value_features,
    value_score,
    value_text,
)

CAP_PER_PARAM = 400


def value_pairs(path: Path, seed: int = 0) -> tuple[list[tuple[str, Any, Any, int]], dict[str, int]]:
    entries = json.loads(path.read_text())
    rng = random.Random(seed)
    eq: dict[tuple[str, str], tuple[str, Any, Any]] = {}
    by_param: dict[str, list[list[Any]]] = defaultdict(list)
    for e in entries:
        vals = list(dict.fromkeys(json.dumps(v) for v in e["acceptable"]))
        by_param[e["param"]].append(vals)
        for a, b in itertools.combinations(vals, 2):
            key = tuple(sorted((a, b)))
            eq.setdefault(key, (e["param"], json.loads(a), json.loads(b)))  # type: ignore[arg-type]
    diff: dict[tuple[str, str], tuple[str, Any, Any]] = {}
    capped = 0
    for param, groups in by_param.items():
        cands: dict[tuple[str, str], tuple[str, Any, Any]] = {}
        for g1, g2 in itertools.combinations(groups, 2):
            if set(g1) & set(g2):
                continue
            for a in g1:
                for b in g2:
                    key = tuple(sorted((a, b)))
                    if key not in eq:
                        cands.setdefault(key, (param, json.loads(a), json.loads(b)))  # type: ignore[arg-type]
        keys = sorted(cands)
        if len(keys) > CAP_PER_PARAM:
            capped += 1
            keys = rng.sample(keys, CAP_PER_PARAM)
        for k in keys:
            diff[k] = cands[k]
    pairs = [(p, a, b, 1) for p, a, b in eq.values()] + [(p, a, b, 0) for p, a, b in diff.values()]
    return pairs, {"equivalent": len(eq), "different": len(diff), "params_capped": capped}


def stsb_pairs(path: Path) -> list[tuple[str, str, int]]:
    out = []
    with path.open(newline="") as fh:
        for row in csv.reader(fh):
            if len(row) != 3 or row[2] == "score":
                continue
            s = float(row[2])
            if s >= 4:
                out.append((row[0], row[1], 1))
            elif s <= 1:
                out.append((row[0], row[1], 0))
    return out


def balanced(labels: list[int], preds: list[bool]) -> tuple[float, float, float]:
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


# ----------------------------------------------------------------------------------------------- values
def run_values(data: Path, scorer: EmbeddingScorer, fit: bool, folds: int) -> LogisticModel | None:
    pairs, counts = value_pairs(data / "bfcl_value_alternatives.json")
    vc = ValueComparator(semantic=scorer)
    t0 = time.perf_counter()
    vc.prefetch([(a, b) for _, a, b, _ in pairs])
    preds = [vc.compare(a, b).equivalent for _, a, b, _ in pairs]
    elapsed = time.perf_counter() - t0
    labels = [y for *_, y in pairs]
    bal, tpr, tnr = balanced(labels, preds)
    print("== Values: BFCL accepted alternatives ==")
    print(
        f"pairs: {counts['equivalent']} equivalent, {counts['different']} different "
        f"(different pairs capped at {CAP_PER_PARAM} per param; {counts['params_capped']} params capped)"
    )
    print(f"balanced accuracy {bal:.4f}  TPR(equivalent) {tpr:.4f}  TNR(different) {tnr:.4f}  [{elapsed:.1f}s]")
    cos_preds = []
    sims = scorer.similarity([(str(a), str(b)) for _, a, b, _ in pairs])
    cos_preds = [s >= 0.5 for s in sims]
    print("baseline cosine>=0.5: balanced {:.4f} TPR {:.4f} TNR {:.4f}".format(*balanced(labels, cos_preds)))

    # semantic-stage pairs, for fitting / cross-validation
    sem_idx, feats = [], []
    for i, (_, a, b, _) in enumerate(pairs):
        sp = vc._pairs_for_semantic(a, b) if vc.compare(a, b).method == "semantic" else []
        if sp:
            ta, tb = value_text(sp[0][0]), value_text(sp[0][1])
            cos = scorer.similarity([(ta, tb)])[0]
            rest = remainders(ta, tb)
            rest_cos = scorer.similarity([rest])[0] if rest else None
            sem_idx.append(i)
            feats.append(value_features(ta, tb, cos, rest_cos))
    x = np.array(feats)
    y = np.array([labels[i] for i in sem_idx])
    groups = [pairs[i][0] for i in sem_idx]
    print(f"semantic stage decides {len(sem_idx)} of {len(pairs)} pairs; the rest are decided by typed rules")
    fitted = None
    if fit:
        fitted = fit_logistic(x, y, VALUE_MODEL.names)
        print(f"fitted VALUE_MODEL: weights={fitted.weights} bias={fitted.bias}")
    # grouped k-fold CV (by param name) of the full pipeline: typed decisions + fold-fitted semantic model
    from sklearn.model_selection import GroupKFold

    cv_preds = list(preds)
    for tr, te in GroupKFold(n_splits=folds).split(x, y, groups):
        m = fit_logistic(x[tr], y[tr], VALUE_MODEL.names)
        for j in te:
            cv_preds[sem_idx[j]] = value_score(list(x[j]), m) >= 0.5
    print(
        "{}-fold CV grouped by param name: balanced {:.4f} TPR {:.4f} TNR {:.4f}".format(
            folds, *balanced(labels, cv_preds)
        )
    )
    if os.environ.get("AEM_SHOW_ERRORS"):
        for (p, a, b, yv), pr in zip(pairs, preds, strict=True):
            if bool(yv) != pr:
                print("  ERR", yv, p, repr(a), repr(b), vc.compare(a, b))
    return fitted


# ----------------------------------------------------------------------------------------------- replies
def run_replies(data: Path, scorer: EmbeddingScorer, fit: bool, folds: int) -> None:
    """SGD reply pairs and STS-B, held out, beside the baselines: see benchmarks/accuracy_replies.py."""
    from benchmarks.accuracy_replies import replies_report

    for line in replies_report(data, folds, scorer):
        print(line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("/work/shared/data"))
    ap.add_argument("--fit", action="store_true", help="refit and print the logistic coefficients")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--only", choices=["values", "replies"], default=None)
    args = ap.parse_args()
    scorer = EmbeddingScorer()
    if args.only in (None, "values"):
        run_values(args.data, scorer, args.fit, args.folds)
    if args.only in (None, "replies"):
        run_replies(args.data, scorer, args.fit, args.folds)


if __name__ == "__main__":
    main()
