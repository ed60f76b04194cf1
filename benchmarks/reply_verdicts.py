"""Dump the verdict of every development reply pair, to check that a change leaves verdicts as they were.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/reply_verdicts.py [--data DIR] --out FILE [--cache FILE]

Every (gold, predicted) pair of sgd_reply_pairs_dev.jsonl and stsb_en_dev.csv (all rows) is scored twice:
through the engine's reference checker the way `aem run` scores a poll (``prefetch`` of 500 pairs, then
``check`` one by one) and by a fresh ``ReplyComparator.compare`` per pair (no prefetch). One line per pair
and path: the failure reason, score, mismatched values and detail. Run it before and after a change and
``cmp`` the files: they must be byte-identical. ``--cache`` keeps the sentence embeddings on disk (the
verdicts do not depend on it).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from replies_misses import DiskCachedEncoder

from monitor.equivalence import EmbeddingScorer, ReplyComparator
from monitor.equivalence.replies import reply_reason
from monitor.logs import configure_logging
from monitor.models.dialog import Reply
from monitor.scoring import ScoringConfig
from monitor.wiring import build_engine

DATA_DIR = Path(__file__).resolve().parent / "data"  # the evaluation data shipped with the repo

_POLL = 500


def dev_pairs(data: Path) -> list[tuple[str, str]]:
    """Every reply pair of the two development files, in file order."""
    pairs: list[tuple[str, str]] = []
    with (data / "sgd_reply_pairs_dev.jsonl").open() as fh:
        pairs += [(row["gold"], row["predicted"]) for row in map(json.loads, fh)]
    with (data / "stsb_en_dev.csv").open(newline="") as fh:
        pairs += [(row[0], row[1]) for row in csv.reader(fh) if len(row) == 3 and row[2] != "score"]
    return pairs


def engine_lines(pairs: list[tuple[str, str]], scorer: EmbeddingScorer) -> list[str]:
    engine = build_engine(ScoringConfig(), semantic=scorer)
    out = []
    for start in range(0, len(pairs), _POLL):
        chunk = [(Reply(response=g), Reply(response=p)) for g, p in pairs[start : start + _POLL]]
        engine.prefetch(chunk)
        for gold, pred in chunk:
            r = engine.checker.check(gold, pred)
            out.append(
                json.dumps(
                    ["engine", r.success, r.failure_reason, r.sub_metric, r.score, list(r.mismatched), r.detail],
                    default=str,
                )
            )
    return out


def compare_lines(pairs: list[tuple[str, str]], scorer: EmbeddingScorer) -> list[str]:
    comparator = ReplyComparator(semantic=scorer)
    out = []
    for gold, pred in pairs:
        m = comparator.compare(gold, pred)
        row = ["compare", reply_reason(m), m.score, m.truthful, m.complete, m.mismatched, m.missing, m.method, m.detail]
        out.append(json.dumps(row, default=str))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA_DIR, help="the evaluation data (default: benchmarks/data)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--cache", type=Path, default=None, help="pickle of sentence embeddings kept between runs")
    args = ap.parse_args()
    configure_logging("error")
    cached = DiskCachedEncoder(args.cache) if args.cache else None
    pairs = dev_pairs(args.data)
    lines = engine_lines(pairs, EmbeddingScorer(encoder=cached) if cached else EmbeddingScorer())
    lines += compare_lines(pairs, EmbeddingScorer(encoder=cached) if cached else EmbeddingScorer())
    args.out.write_text("\n".join(lines) + "\n")
    if cached:
        cached.save()
    print(f"{len(pairs)} pairs, {len(lines)} verdict lines -> {args.out}")


if __name__ == "__main__":
    main()
