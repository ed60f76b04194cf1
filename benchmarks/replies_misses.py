"""The pairs the reply comparator misjudges under the JOINT held-out protocol, with the finding behind each.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/replies_misses.py [--data DIR] [--cache FILE] [--file stsb|sgd]

Runs the joint protocol of ``accuracy_replies.py`` (fold f of both files held out together, thresholds tuned on
the other folds of both) and lists, for the chosen file, every held-out pair whose verdict is wrong: the pair,
its human label, the whole-reply cosine and the comparator's detail under the thresholds its fold chose. The
list is for reading miss classes, not for tuning on single pairs. ``--cache`` keeps the sentence embeddings
on disk between runs (a development convenience; the figures do not depend on it).
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from accuracy_replies import (
    PASS,
    Dataset,
    balanced,
    held_out_verdicts,
    reason_accuracy,
    sgd_dataset,
    single_threshold_held_out,
    stsb_dataset,
)

from monitor.equivalence import EmbeddingScorer, ReplyComparator
from monitor.equivalence.encoders import EncoderKind, TextEncoder, load_encoder

DATA_DIR = Path(__file__).resolve().parent / "data"  # the evaluation data shipped with the repo


class DiskCachedEncoder:
    """The fp32 encoder behind a pickle of text -> vector, loaded lazily."""

    kind = EncoderKind.FP32

    def __init__(self, path: Path) -> None:
        self.path = path
        self.vectors: dict[str, np.ndarray] = pickle.loads(path.read_bytes()) if path.is_file() else {}
        self._inner: TextEncoder | None = None
        self.added = 0

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            if self._inner is None:
                self._inner = load_encoder(EncoderKind.FP32, None, "cpu")
            for t, v in zip(missing, self._inner.encode(missing, batch_size=batch_size), strict=True):
                self.vectors[t] = v
            self.added += len(missing)
        return np.vstack([self.vectors[t] for t in texts])

    def save(self) -> None:
        if self.added:
            self.path.write_bytes(pickle.dumps(self.vectors))


def miss_lines(ds: Dataset, comparator: ReplyComparator, verdicts: list[str], chosen: list) -> list[str]:
    fold_of = {int(i): f for f, idx in enumerate(ds.folds) for i in idx}
    out = []
    for i, (p, got) in enumerate(zip(ds.pairs, verdicts, strict=True)):
        if (got == PASS) == (p.expected == PASS) and (got == p.expected or p.expected in (PASS, "fail")):
            continue
        m = comparator.decide(comparator.analyse(p.gold, p.pred), chosen[fold_of[i]])
        out.append(f"[{p.expected} -> {got}] cos {ds.cos[i]:.2f} :: {p.gold!r} || {p.pred!r} :: {m.detail}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA_DIR, help="the evaluation data (default: benchmarks/data)")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--cache", type=Path, default=None, help="pickle of sentence embeddings kept between runs")
    ap.add_argument("--file", choices=("stsb", "sgd", "none"), default="stsb")
    args = ap.parse_args()
    cached = DiskCachedEncoder(args.cache) if args.cache else None
    scorer = EmbeddingScorer(encoder=cached) if cached else EmbeddingScorer()
    comparator = ReplyComparator(semantic=scorer)
    sgd = sgd_dataset(comparator, scorer, args.data, args.folds)
    stsb = stsb_dataset(comparator, scorer, args.data, args.folds)
    if cached:
        cached.save()
    (sgd_joint, stsb_joint), chosen = held_out_verdicts([sgd, stsb])
    for ds, got in ((sgd, sgd_joint), (stsb, stsb_joint)):
        exp = ds.expected
        bal, tpr, tnr = balanced(exp, [g == PASS for g in got])
        extra = f", reason {reason_accuracy(exp, got):.4f}" if ds.with_reason else ""
        print(f"{ds.name}: joint held out balanced {bal:.4f} (pass {tpr:.4f}, fail {tnr:.4f}){extra}")
        print("  best single cosine threshold, held out: balanced {:.4f} (pass {:.4f}, fail {:.4f})".format(
            *balanced(exp, single_threshold_held_out(ds))))
    for t in chosen:
        print("  chosen:", t)
    if args.file != "none":
        ds, got = (stsb, stsb_joint) if args.file == "stsb" else (sgd, sgd_joint)
        print("\n".join(miss_lines(ds, comparator, got, chosen)))


if __name__ == "__main__":
    main()
