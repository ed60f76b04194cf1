"""Pairs for the verifier's second stage: agent replies whose reported outcome is reversed, with a replay of the
first stage's pairs so the rest is not forgotten (``train/make_model.sh`` runs it after the first stage).

    .venv/bin/python -m train.stage2_pairs [--first train/out/pairs.jsonl] [--out train/out/stage2_pairs.jsonl]
        [--seed 17]

The first stage's generic verb edits were made on STS-B sentences (news, captions), which rarely report an
outcome; the model passed "Your refund has been rejected." for "... approved." Sources:

* ``sgd_reversed``: an SGD system turn that is not a question (the work part) against itself with one outcome
  word replaced by its opposite (``perturb.reverse_outcome``: booked / cancelled, approved / rejected, available /
  unavailable...), both ways: changed. (Negation, tried too, mostly made nonsense of courtesies: "Have not a
  nice day.")
* ``sgd_outcome_same``: two SGD system turns of different dialogues with the same dialogue acts, at least one of
  them reporting an outcome (the work part): same. Without them the reversed pairs taught that an outcome word
  worded otherwise is a change ("Your order has been cancelled." / "I cancelled your order." failed).
* ``sgd_reversed_same``: such a same-acts pair, each turn with one outcome word, both reversed: same. SGD's own
  turns almost never say "cancelled" or "rejected", so without them those words appeared only on the changed side
  of a pair and the model learned that the word itself is a change ("Your order has been cancelled." / "I
  cancelled your order." still failed beside ``sgd_outcome_same``).
* ``replay``: a seeded sample of the first stage's pairs (``train/build_pairs.py``), as they are, and with
  ``--extra PREFIX=N`` N more of those whose source starts with PREFIX (``stsb=5000``: general sentences, which
  the outcome pairs, all agent replies, pull the model away from; ``sgd=5000``: agent replies).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

from train import perturb, split
from train.build_pairs import CHANGED, OUT, SAME, TARGETS, sgd_pairs

STAGE2_OUT = OUT.with_name("stage2_pairs.jsonl")
REVERSED = 3000  # reversed pairs (each turn both ways: 1,500 turns)
OUTCOME_SAME = 3000  # same-meaning pairs whose turns report an outcome, as many as the reversed ones
REVERSED_SAME = 3000  # same-meaning pairs with both outcomes reversed, as many again
REPLAY = 12000  # first-stage pairs replayed beside them


def reversed_pairs(turns: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    """Each turn with its outcome reversed or negated, both ways (changed)."""
    order = list(turns)
    rng.shuffle(order)
    out: list[dict[str, Any]] = []
    for turn in order:
        if len(out) >= REVERSED:
            break
        text = turn["utterance"]
        if "?" in text:  # a question reports no outcome
            continue
        edited = perturb.reverse_outcome(text, rng)
        if edited is None or edited == text:
            continue
        out.append({"premise": text, "hypothesis": edited, "label": CHANGED, "source": "sgd_reversed"})
        out.append({"premise": edited, "hypothesis": text, "label": CHANGED, "source": "sgd_reversed"})
    return out


def _same_acts(turns: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    """SGD same-acts pairs of different dialogues (``build_pairs.sgd_pairs``), one way each."""
    saved = dict(TARGETS)
    try:
        for key in TARGETS:
            TARGETS[key] = 0
        TARGETS["sgd_same"] = 20 * OUTCOME_SAME
        return [p for p in sgd_pairs(turns, rng) if p["source"] == "sgd_same"]
    finally:
        TARGETS.update(saved)


def _both_ways(premise: str, hypothesis: str, label: int, source: str) -> list[dict[str, Any]]:
    return [{"premise": premise, "hypothesis": hypothesis, "label": label, "source": source},
            {"premise": hypothesis, "hypothesis": premise, "label": label, "source": source}]  # fmt: skip


def outcome_same_pairs(same: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Same-acts turns of different dialogues, one of them reporting an outcome, both ways (same)."""
    out: list[dict[str, Any]] = []
    for p in same:
        if len(out) >= OUTCOME_SAME:
            break
        if perturb.reports_outcome(p["premise"]) or perturb.reports_outcome(p["hypothesis"]):
            out += _both_ways(p["premise"], p["hypothesis"], SAME, "sgd_outcome_same")
    return out


def reversed_same_pairs(same: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    """Same-acts turns with one outcome word each, both reversed, both ways (same)."""
    out: list[dict[str, Any]] = []
    for p in same:
        if len(out) >= REVERSED_SAME:
            break
        if perturb.outcome_words(p["premise"]) != 1 or perturb.outcome_words(p["hypothesis"]) != 1:
            continue
        premise, hypothesis = perturb.reverse_outcome(p["premise"], rng), perturb.reverse_outcome(p["hypothesis"], rng)
        if premise is not None and hypothesis is not None:
            out += _both_ways(premise, hypothesis, SAME, "sgd_reversed_same")
    return out


def build(first: Path, seed: int, extra: dict[str, int] | None = None) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    turns = list(split.sgd_turns("work"))
    pairs = reversed_pairs(turns, rng)
    same = _same_acts(turns, rng)
    pairs += outcome_same_pairs(same)
    pairs += reversed_same_pairs(same, rng)
    pairs += replay(read_pairs(first), rng, REPLAY, extra)
    rng.shuffle(pairs)
    return pairs


def read_pairs(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def replay(
    earlier: list[dict[str, Any]], rng: random.Random, count: int, extra: dict[str, int] | None
) -> list[dict[str, Any]]:
    """A seeded sample of ``count`` earlier pairs (source ``replay``), then for each ``PREFIX: N`` of ``extra`` N
    more of those whose source starts with PREFIX (source ``replay_PREFIX``)."""
    replayed = rng.sample(range(len(earlier)), min(count, len(earlier)))
    out = [{**earlier[i], "source": "replay"} for i in replayed]
    taken = set(replayed)
    for prefix, n in (extra or {}).items():
        kind = [i for i, p in enumerate(earlier) if p["source"].startswith(prefix) and i not in taken]
        chosen = rng.sample(kind, min(n, len(kind)))
        taken.update(chosen)
        out += [{**earlier[i], "source": f"replay_{prefix}"} for i in chosen]
    return out


def add_extra_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--extra", action="append", default=[], metavar="PREFIX=N",
                        help="N more first-stage pairs whose source starts with PREFIX (repeatable)")


def parse_extra(items: list[str]) -> dict[str, int]:
    return {prefix: int(n) for prefix, n in (item.split("=", 1) for item in items)}


def write_pairs(out: Path, pairs: list[dict[str, Any]], inputs: dict[str, Any]) -> None:
    """The pairs as JSON lines, and beside them a summary (count, sha256, ``inputs``, pairs per source)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as handle:
        for pair in pairs:
            handle.write(json.dumps(pair, ensure_ascii=False) + "\n")
    summary = {
        "pairs": len(pairs), "sha256": hashlib.sha256(out.read_bytes()).hexdigest(), **inputs,
        "by_source": dict(sorted(Counter(p["source"] for p in pairs).items())),
    }  # fmt: skip
    out.with_suffix(".summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(summary, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--first", type=Path, default=OUT, help="the first stage's pairs (train/build_pairs.py)")
    parser.add_argument("--out", type=Path, default=STAGE2_OUT)
    parser.add_argument("--seed", type=int, default=17)
    add_extra_option(parser)
    args = parser.parse_args()
    extra = parse_extra(args.extra)
    pairs = build(args.first, args.seed, extra)
    first_sha = hashlib.sha256(args.first.read_bytes()).hexdigest()
    write_pairs(args.out, pairs, {"seed": args.seed, "extra": extra, "first_stage_sha256": first_sha})


if __name__ == "__main__":
    main()
