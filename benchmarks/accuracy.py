"""Accuracy of the value and reply comparators on the development data.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/accuracy.py [--data DIR] [--fit] [--folds 5]

Values: see ``benchmarks/value_accuracy.py`` (BFCL accepted alternatives; SGD slot values per domain with a
leave-one-domain-out figure and cosine baselines).
Replies: see ``benchmarks/accuracy_replies.py`` (SGD reply pairs held out by inferred domain, with the
failure-reason accuracy; STS-B dev, score >= 4 same meaning, <= 1 different, 5-fold).

Every figure quoted is held out: whatever is tuned is fitted on the other domains or folds.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks.value_accuracy import check_data, values_report
from monitor.embeddings import EmbeddingScorer

DATA_DIR = Path(__file__).resolve().parent / "data"  # the evaluation data shipped with the repo


# ----------------------------------------------------------------------------------------------- replies
def run_replies(data: Path, scorer: EmbeddingScorer, fit: bool, folds: int) -> None:
    """SGD reply pairs and STS-B, held out, beside the baselines: see benchmarks/accuracy_replies.py."""
    from benchmarks.accuracy_replies import replies_report

    for line in replies_report(data, folds, scorer):
        print(line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA_DIR,
        help="the development data directory (default: benchmarks/data)")
    ap.add_argument("--fit", action="store_true", help="refit and print the logistic coefficients")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--only", choices=["values", "replies"], default=None)
    args = ap.parse_args()
    scorer = EmbeddingScorer()
    if args.only in (None, "values"):
        print("\n".join(values_report(args.data, scorer, args.fit, args.folds)))
    if args.only in (None, "replies"):
        check_data(args.data, ["stsb_en_dev.csv", "sgd_reply_pairs_dev.jsonl"])
        run_replies(args.data, scorer, args.fit, args.folds)


if __name__ == "__main__":
    main()
