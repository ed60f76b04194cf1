"""Pairs for a fifth stage of the verifier (tried, not shipped: docs/design/verifier-fifth-stage-not-shipped.md),
trained from the fourth-stage model's weights (``train/dequantize_verifier.py``): agent replies that change the
kind of a thing, beside the general sentence pairs the fourth stage read and the replies said otherwise that keep
a reply's nouns from all reading as changes.

    .venv/bin/python -m train.stage5_pairs [--out train/out/stage5_pairs.jsonl] [--seed 47] [--replay 9000]

The third stage taught kinds ("one carry-on bag" for "one checked bag", "a refund of 45 CAD" for "a fare
difference of 45 CAD") and lost a pair or two of general sentences each time: a changed noun in a caption read as
a change (docs/design/verifier-third-stage-not-shipped.md). The fourth stage's STS-B pairs on one topic (scores
>= 4 same, <= 2 changed) are the general sentences it lacked. Sources (SGD system turns of the work part):

* ``sgd_kind``: the noun of a noun phrase replaced by another of its kind that the turns use
  (``stage3_pairs.kind_changer``), both ways: changed;
* ``sgd_reversed``: a turn with its outcome reversed (``stage2_pairs.reversed_pairs``), both ways: changed, so
  that the outcome stays learnt beside the replies below;
* ``sgd_outcome_same`` and ``sgd_same``: same-acts turns of different dialogues, some reporting an outcome: same;
* ``stsb_band``: the fourth stage's STS-B pairs (``stage4_pairs.band_pairs``);
* ``replay``: a seeded sample of the first stage's pairs (``train.build_pairs.build``, its seed 13).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from train import split
from train.build_pairs import CHANGED, OUT, SAME, stsb_rows
from train.stage2_pairs import _same_acts, outcome_same_pairs, reversed_pairs
from train.stage3_pairs import _vocabulary, edited_pairs, kind_changer
from train.stage4_pairs import band_pairs, first_stage_sample, run

STAGE5_OUT = OUT.with_name("stage5_pairs.jsonl")
KIND = 3000  # changed: a noun replaced by another of its kind (both ways)
REVERSED = 2000  # changed: an outcome reversed (both ways)
OUTCOME_SAME = 2000  # same: same-acts turns, one reporting an outcome (both ways)
SAME_ACTS = 3000  # same: same-acts turns of different dialogues


def stage5_pairs(seed: int, replay: int, data: Path = split.DATA_DIR) -> list[dict[str, Any]]:
    """The sources above, shuffled with ``seed``."""
    rng = random.Random(seed)
    turns = list(split.sgd_turns("work", data))
    pairs = edited_pairs(turns, rng, kind_changer(_vocabulary(turns)), CHANGED, "sgd_kind", KIND)
    pairs += reversed_pairs(turns, rng)[:REVERSED]
    same = _same_acts(turns, rng)
    pairs += outcome_same_pairs(same)[:OUTCOME_SAME]
    pairs += [{**p, "label": SAME} for p in same[-SAME_ACTS:]]
    pairs += band_pairs(stsb_rows(data))
    pairs += [{**p, "source": "replay"} for p in first_stage_sample(rng, replay, data)]
    rng.shuffle(pairs)
    return pairs


def main() -> None:
    run(__doc__, stage5_pairs, STAGE5_OUT, 47)


if __name__ == "__main__":
    main()
