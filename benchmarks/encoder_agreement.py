"""Verdicts of the project's comparators with the int8 (or, ``--encoder onnx``, the fp32-on-ONNX-Runtime)
encoder beside the fp32 one, on every dev file.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/encoder_agreement.py [--data DIR] [--show 5]

DIR holds the development files (stsb_en_dev.csv, sgd_reply_pairs_dev.jsonl, sgd_value_pairs_dev.jsonl,
bfcl_value_alternatives.json). Replies go through the reference checker with the embedding reply scorer (the one
the encoder decides; the trained verifier does not use it): pass / incomplete_response / inconsistent_response;
values through the value comparator (equivalent or not). For each file it prints how many verdicts flip between
pass and fail, how many failures change their reason (incomplete_response / inconsistent_response), the largest
score change, and those pairs.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from value_accuracy import bfcl_pairs

from monitor.asking import settle_all
from monitor.embeddings import EmbeddingScorer
from monitor.embeddings.encoders import EncoderKind, load_encoder
from monitor.equivalence import ValueComparator
from monitor.logs import configure_logging
from monitor.models.dialog import Reply
from monitor.scoring.checks import ReferenceChecker
from monitor.verifier.embedding import EmbeddingReplyComparator

DATA_DIR = Path(__file__).resolve().parent / "data"  # the evaluation data shipped with the repo


@dataclass(frozen=True)
class Verdict:
    label: str  # "pass" or the failure reason
    score: float


Pair = tuple[Any, Any]
Judge = Callable[[ReferenceChecker, Any, Any], Verdict]


def reply_verdict(checker: ReferenceChecker, gold: Any, pred: Any) -> Verdict:
    result = checker.check(Reply(response=gold), Reply(response=pred))
    return Verdict("pass" if result.success else str(result.failure_reason), result.score or 0.0)


def value_verdict(checker: ReferenceChecker, gold: Any, pred: Any) -> Verdict:
    match = checker.values.compare(gold, pred)
    return Verdict("equivalent" if match.equivalent else "different", match.score)


def passed(verdict: Verdict) -> bool:
    return verdict.label in ("pass", "equivalent")


def stsb(data: Path) -> list[Pair]:
    with (data / "stsb_en_dev.csv").open(newline="") as fh:
        return [(r[0], r[1]) for r in csv.reader(fh) if len(r) == 3 and r[2] != "score"]


def jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open() as fh:
        return [json.loads(line) for line in fh if line.strip()]


FILES: list[tuple[str, Callable[[Path], list[Pair]], Judge]] = [
    ("stsb_en_dev.csv", stsb, reply_verdict),
    ("sgd_reply_pairs_dev.jsonl",
     lambda d: [(r["gold"], r["predicted"]) for r in jsonl(d / "sgd_reply_pairs_dev.jsonl")], reply_verdict),
    ("sgd_value_pairs_dev.jsonl",
     lambda d: [(r["gold"], r["predicted"]) for r in jsonl(d / "sgd_value_pairs_dev.jsonl")], value_verdict),
    ("bfcl_value_alternatives.json",
     lambda d: [(a, b) for _, a, b, _ in bfcl_pairs(d / "bfcl_value_alternatives.json")[0]], value_verdict),
]


def checker_for(encoder: Any) -> ReferenceChecker:
    scorer = EmbeddingScorer(encoder=encoder)
    values = ValueComparator(semantic=scorer)
    return ReferenceChecker(values, EmbeddingReplyComparator(scorer, values, 0.5))


def compare_file(pairs: list[Pair], judge: Judge, fp32: Any, int8: Any) -> list[tuple[Pair, Verdict, Verdict]]:
    a, b = checker_for(fp32), checker_for(int8)
    for checker in (a, b):  # one batch per encoder, as the engine does
        if judge is reply_verdict:
            settle_all([checker.replies.compare_steps(g, p) for g, p in pairs])  # the answers land in its cache
        else:
            settle_all([checker.values.compare_steps(g, p) for g, p in pairs])
    return [(pair, judge(a, *pair), judge(b, *pair)) for pair in pairs]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA_DIR,
        help="folder with the development files (default: benchmarks/data)")
    ap.add_argument("--show", type=int, default=5, help="flipped pairs to print per file")
    ap.add_argument("--encoder", choices=["int8", "onnx"], default="int8", help="the encoder set beside fp32")
    args = ap.parse_args()
    missing = [name for name, _, _ in FILES if not (args.data / name).is_file()]
    if missing:
        sys.stderr.write(f"encoder_agreement: {args.data}: missing {', '.join(missing)}\n")
        return 2
    configure_logging("error")
    other = EncoderKind(args.encoder)
    fp32, int8 = load_encoder(EncoderKind.FP32), load_encoder(other)
    if int8.kind is not other:
        sys.stderr.write(f"encoder_agreement: the {other} encoder is not available here\n")
        return 2
    print(f"{'file':<30} {'pairs':>6} {'pass/fail flips':>16} {'other reason':>13} {'max |score change|':>19}")
    for name, load, judge in FILES:
        rows = compare_file(load(args.data), judge, fp32, int8)
        flips = [r for r in rows if passed(r[1]) != passed(r[2])]
        reasons = [r for r in rows if passed(r[1]) == passed(r[2]) and r[1].label != r[2].label]
        drift = max(abs(f.score - q.score) for _, f, q in rows)
        print(f"{name:<30} {len(rows):>6} {len(flips):>16} {len(reasons):>13} {drift:>19.3f}")
        for (gold, pred), f, q in (flips + reasons)[: args.show]:
            print(f"    fp32 {f.label} {f.score:.3f} -> {other} {q.label} {q.score:.3f}: {gold!r} / {pred!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
