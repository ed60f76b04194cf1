"""Throughput of the bare encoder vs ReplyComparator over STS-B pairs (response turns).

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/encoder.py --data DIR [--pairs 1500] [--repeat 3]

A response turn is one (gold, pred) pair. "bare encoder" encodes the two texts of every turn
(sentence-transformers, batch 64, normalised); "ReplyComparator" runs prefetch (one batch for all turns,
cold cache) and then compare for every turn. Reports texts/s and turns/s and the ratio.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from monitor.equivalence import EmbeddingScorer, ReplyComparator


def load_pairs(path: Path, limit: int) -> list[tuple[str, str]]:
    with path.open(newline="") as fh:
        rows = [(r[0], r[1]) for r in csv.reader(fh) if len(r) == 3 and r[2] != "score"]
    return rows[:limit]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True, help="directory holding stsb_en_dev.csv (not in the repo)")
    ap.add_argument("--pairs", type=int, default=1500)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if not (args.data / "stsb_en_dev.csv").is_file():
        ap.error(f"--data {args.data}: no stsb_en_dev.csv there (the STS-B dev set, not part of the repo)")
    pairs = load_pairs(args.data / "stsb_en_dev.csv", args.pairs)
    texts = [t.strip() for p in pairs for t in p]

    base = EmbeddingScorer()
    model = base.model
    model.encode(texts[:64], batch_size=64, normalize_embeddings=True, show_progress_bar=False)  # warm-up

    bare, comp = [], []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        model.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
        bare.append(time.perf_counter() - t0)

        scorer = EmbeddingScorer()
        scorer._model = model  # same weights, cold cache
        rc = ReplyComparator(semantic=scorer)
        t0 = time.perf_counter()
        rc.prefetch(pairs)
        for g, p in pairs:
            rc.compare(g, p)
        comp.append(time.perf_counter() - t0)

    tb, tc = min(bare), min(comp)
    n = len(pairs)
    print(f"turns: {n} STS-B pairs ({len(texts)} texts), best of {args.repeat}")
    print(f"bare encoder     : {len(texts) / tb:8.1f} texts/s  {n / tb:8.1f} turns/s  ({tb:.2f}s)")
    print(f"ReplyComparator  : {len(texts) / tc:8.1f} texts/s  {n / tc:8.1f} turns/s  ({tc:.2f}s)")
    print(f"ratio comparator/bare: {tb / tc:.3f}")


if __name__ == "__main__":
    main()
