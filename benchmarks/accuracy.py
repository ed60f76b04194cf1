"""Accuracy of the value and reply comparators on the development data.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/accuracy.py --data ../shared/data [--fit] [--folds 5]

Values: see ``benchmarks/value_accuracy.py`` (BFCL accepted alternatives; SGD slot values per domain with a
leave-one-domain-out figure and cosine baselines).
Replies: STS-B dev, score >= 4 equivalent (truthful and complete), <= 1 different.

The logistic coefficients in monitor/equivalence/calibration.py are constants; ``--fit`` refits them on
all the data and prints them, and always a k-fold cross-validated figure (folds grouped by parameter name
for values, by pair for replies) so the figure is not one of memorisation.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks.value_accuracy import balanced, check_data, fit_logistic, values_report
from monitor.equivalence import EmbeddingScorer, ReplyComparator
from monitor.equivalence.calibration import REPLY_MODEL, LogisticModel


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


# ----------------------------------------------------------------------------------------------- replies
def run_replies(data: Path, scorer: EmbeddingScorer, fit: bool, folds: int) -> LogisticModel | None:
    pairs = stsb_pairs(data / "stsb_en_dev.csv")
    rc = ReplyComparator(semantic=scorer)
    t0 = time.perf_counter()
    rc.prefetch([(a, b) for a, b, _ in pairs])
    results = [rc.compare(a, b) for a, b, _ in pairs]
    elapsed = time.perf_counter() - t0
    labels = [y for *_, y in pairs]
    preds = [r.truthful and r.complete for r in results]
    bal, tpr, tnr = balanced(labels, preds)
    print("== Replies: STS-B dev (>=4 equivalent, <=1 different) ==")
    print(f"pairs: {sum(labels)} equivalent, {len(labels) - sum(labels)} different")
    print(f"balanced accuracy {bal:.4f}  TPR(equivalent) {tpr:.4f}  TNR(different) {tnr:.4f}  [{elapsed:.1f}s]")
    sims = scorer.similarity([(a.strip(), b.strip()) for a, b, _ in pairs])
    print(
        "baseline cosine>=0.5: balanced {:.4f} TPR {:.4f} TNR {:.4f}".format(
            *balanced(labels, [s >= 0.5 for s in sims])
        )
    )
    print(
        f"facts/substitution flags on equivalent pairs: "
        f"{sum(1 for r, yv in zip(results, labels, strict=True) if yv and (r.method.endswith('+facts')))}"
    )

    # features (cos, min(precision, recall) coverage) for fitting / CV
    from monitor.equivalence.replies import reply_coverage

    feats = []
    for (a, b, _), cos in zip(pairs, sims, strict=True):
        rec, prec = reply_coverage(a, b)
        feats.append([cos, min(rec, prec), cos * min(rec, prec)])
    x, y = np.array(feats), np.array(labels)
    fitted = None
    if fit:
        fitted = fit_logistic(x, y, REPLY_MODEL.names)
        print(f"fitted REPLY_MODEL: weights={fitted.weights} bias={fitted.bias}")
    from sklearn.model_selection import StratifiedKFold

    fact_flag = [r.method.endswith("+facts") and not (r.truthful and r.complete) for r in results]
    cv_preds = list(preds)
    for tr, te in StratifiedKFold(n_splits=folds, shuffle=True, random_state=0).split(x, y):
        m = fit_logistic(x[tr], y[tr], REPLY_MODEL.names)
        for j in te:
            cv_preds[j] = (m.score(list(x[j])) >= 0.5) and not fact_flag[j]
    print("{}-fold CV by pair: balanced {:.4f} TPR {:.4f} TNR {:.4f}".format(folds, *balanced(labels, cv_preds)))
    if os.environ.get("AEM_SHOW_ERRORS"):
        for (a, b, yv), r in zip(pairs, results, strict=True):
            if bool(yv) != (r.truthful and r.complete):
                print("  ERR", yv, repr(a), repr(b), r)
    return fitted


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True, help="the development data directory (../shared/data)")
    ap.add_argument("--fit", action="store_true", help="refit and print the logistic coefficients")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--only", choices=["values", "replies"], default=None)
    args = ap.parse_args()
    scorer = EmbeddingScorer()
    if args.only in (None, "values"):
        print("\n".join(values_report(args.data, scorer, args.fit, args.folds)))
    if args.only in (None, "replies"):
        check_data(args.data, ["stsb_en_dev.csv"])
        run_replies(args.data, scorer, args.fit, args.folds)


if __name__ == "__main__":
    main()
