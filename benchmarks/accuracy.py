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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks.value_accuracy import check_data, values_report
from monitor.equivalence import EmbeddingScorer


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
def run_replies(data: Path, scorer: EmbeddingScorer, fit: bool, folds: int) -> None:
    """SGD reply pairs and STS-B, held out, beside the baselines: see benchmarks/accuracy_replies.py."""
    from benchmarks.accuracy_replies import replies_report

    for line in replies_report(data, folds, scorer):
        print(line)


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
