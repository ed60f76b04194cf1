"""Pairs for the verifier's fourth stage, trained from the shipped model's weights (``train/dequantize_verifier.py``):
general sentence pairs on the same topic that say other things, beside a replay of the first stage's pairs.

    .venv/bin/python -m train.stage4_pairs [--out train/out/stage4_pairs.jsonl] [--seed 43] [--replay 9000]

The second-stage model passed general sentences on one topic that say different things ("A man is skating down
a set of stairs." / "The man is skiing down a snowy hill.", P(same) 0.98): the first stage read STS-B's pairs
scored 4 or more (same) and 1 or less (changed) only, so "the same scene, other facts" (scores above 1 and up to
2) was never shown as a change. Sources:

* ``stsb_band``: the STS-B train file's work part and the dev file's fit half (the pairs the first stage read),
  scored >= 4 (same) or <= 2 (changed), both ways;
* ``replay``: a seeded sample of the first stage's pairs (``train.build_pairs.build``, its seed 13: agent replies,
  entailment, grounding), so that what it learnt stays.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from train import split
from train.build_pairs import CHANGED, OUT, SAME, _pair, build, stsb_rows
from train.stage2_pairs import write_pairs

STAGE4_OUT = OUT.with_name("stage4_pairs.jsonl")
SAME_FROM, CHANGED_UP_TO = 4.0, 2.0  # STS-B scores read as the same meaning / as saying other things
FIRST_STAGE_SEED = 13


def band_pairs(rows: list[tuple[str, str, float]]) -> list[dict[str, Any]]:
    """STS-B pairs scored >= 4 (same) or <= 2 (changed), both ways; the scores between are left out."""
    out: list[dict[str, Any]] = []
    for a, b, score in rows:
        if score >= SAME_FROM or score <= CHANGED_UP_TO:
            label = SAME if score >= SAME_FROM else CHANGED
            out += [_pair(a, b, label, "stsb_band"), _pair(b, a, label, "stsb_band")]
    return out


def first_stage_sample(rng: random.Random, count: int, data: Path) -> list[dict[str, Any]]:
    """``count`` of the first stage's pairs (``build`` with its seed), a seeded sample."""
    first = build(FIRST_STAGE_SEED, data)
    rng.shuffle(first)
    return first[:count]


def stage4_pairs(seed: int, replay: int, data: Path = split.DATA_DIR) -> list[dict[str, Any]]:
    """The band pairs and ``replay`` first-stage pairs, shuffled with ``seed``."""
    rng = random.Random(seed)
    band = band_pairs(stsb_rows(data))
    pairs = band + first_stage_sample(rng, replay, data)
    rng.shuffle(pairs)
    return pairs


Builder = Callable[[int, int, Path], list[dict[str, Any]]]


def run(doc: str | None, builder: Builder, out: Path, seed: int) -> None:
    """The command line of a stage that replays first-stage pairs: ``--out``, ``--seed``, ``--replay``, ``--data``."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=out)
    parser.add_argument("--seed", type=int, default=seed)
    parser.add_argument("--replay", type=int, default=9000, help="first-stage pairs replayed")
    parser.add_argument("--data", type=Path, default=split.DATA_DIR, help="the data files (benchmarks/data)")
    args = parser.parse_args()
    pairs = builder(args.seed, args.replay, args.data)
    write_pairs(args.out, pairs, {"seed": args.seed, "replay": args.replay, "first_stage_seed": FIRST_STAGE_SEED})


def main() -> None:
    run(__doc__, stage4_pairs, STAGE4_OUT, 43)


if __name__ == "__main__":
    main()
