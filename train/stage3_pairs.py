"""Pairs for a third stage of the verifier (tried, not shipped: docs/design/verifier-third-stage-not-shipped.md):
agent replies with one thing changed that is not a value, next to the same replies said in other words, and a
replay of the earlier stages' pairs.

    .venv/bin/python -m train.stage3_pairs [--first train/out/pairs.jsonl] [--second train/out/stage2_pairs.jsonl]
        [--out train/out/stage3_pairs.jsonl] [--seed 23]

The second stage left the model unsure (P(same) 0.45-0.85) where an agent reply changes the kind of a thing
("one carry-on bag" for "one checked bag"), what an amount is ("a refund of 45 CAD" for "a fare difference of
45 CAD"), or who does what to whom: the first stage's noun and participant edits were made on STS-B sentences
(captions, news), not on agent replies. Sources (SGD system turns of the work part that are not questions):

* ``sgd_kind``: the noun of a noun phrase ("a|the|your|one|2 … [word] noun") replaced by another of its kind
  (WordNet co-hyponyms, ``perturb.noun_siblings``) that SGD's system turns themselves use, both ways: changed.
  (Any noun, tried first, gave nonsense: "I have" read as a noun, "a good architecture".)
* ``sgd_swap``: two values of the turn's own dialogue acts for slots of one kind (``origin_city`` /
  ``destination_city``, two dates, two names offered), trade places ("from Toronto to Vancouver" / "from
  Vancouver to Toronto"), both ways: changed.
* ``sgd_same`` and ``sgd_outcome_same``: same-acts turns of different dialogues (``stage2_pairs``), some of them
  reporting an outcome: same. They word the same things otherwise, nouns included, so that a noun replaced at
  all is not read as a change. (WordNet synonyms, tried as well, were mostly wrong: "booking" / "engagement".)
* ``replay``: seeded samples of the first stage's pairs (with ``--extra PREFIX=N`` as in ``stage2_pairs``) and of
  the second stage's own sources (outcomes reversed, kept, said otherwise).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from train import perturb, split
from train.build_pairs import CHANGED, OUT, SAME
from train.stage2_pairs import (
    STAGE2_OUT,
    _both_ways,
    _same_acts,
    add_extra_option,
    outcome_same_pairs,
    parse_extra,
    read_pairs,
    replay,
    write_pairs,
)

STAGE3_OUT = OUT.with_name("stage3_pairs.jsonl")
KIND = 3000  # changed: a noun replaced by another of its kind (both ways: 1,500 turns)
SWAP = 2000  # changed: two values of the turn's acts swapped
SAME_ACTS = 3000  # same: same-acts turns of different dialogues
OUTCOME_SAME = 2000  # same: same-acts turns reporting an outcome
_PHRASE = re.compile(
    r"\b(?:a|an|the|your|my|our|their|this|that|one|two|three|four|\d+)\s+(?:([a-z]+)\s+)?([a-z]{3,})\b"
)


def _vocabulary(turns: list[dict[str, Any]]) -> set[str]:
    """Lower-case words the system turns use at least three times."""
    counts = Counter(w for t in turns for w in re.findall(r"[a-z]+", t["utterance"].lower()))
    return {w for w, n in counts.items() if n >= 3}


def kind_changer(vocabulary: set[str]) -> Callable[[dict[str, Any], random.Random], str | None]:
    """The noun of a noun phrase replaced by a co-hyponym the turns use ('one checked bag' / 'one carry-on bag'
    is what it stands for: 'a table for two' / 'a booth for two')."""

    def change(turn: dict[str, Any], rng: random.Random) -> str | None:
        text = turn["utterance"]
        if not any(act.get("values") for act in turn["acts"]):  # a courtesy ("Have a nice day."): no kind to change
            return None
        phrases = list(_PHRASE.finditer(text))
        rng.shuffle(phrases)
        for m in phrases:
            noun = m.group(2)
            if not perturb.is_base_noun(noun):
                continue
            options = [w for w in perturb.noun_siblings(noun) if w in vocabulary]
            if options:
                return text[: m.start(2)] + rng.choice(options) + text[m.end(2) :]
        return None

    return change


def _kind(value: str) -> str:
    if re.fullmatch(r"[\d.,]+", value):
        return "number"
    if re.search(r"\d", value):
        return "mixed"
    return "words"


def swap_values(turn: dict[str, Any], rng: random.Random) -> str | None:
    """Two values of two of the turn's dialogue acts, for slots of one kind, both in the turn once, trade places."""
    text = turn["utterance"]
    slots = {
        v: (act["slot"].rsplit("_", 1)[-1], i) for i, act in enumerate(turn["acts"]) for v in act.get("values", [])
        if len(v) >= 2 and text.count(v) == 1
    }  # fmt: skip
    spans = sorted((text.index(v), text.index(v) + len(v), v) for v in slots)
    pairs = [
        (a, b) for a in spans for b in spans
        if a[1] <= b[0] and slots[a[2]][0] == slots[b[2]][0] and slots[a[2]][1] != slots[b[2]][1]
        and _kind(a[2]) == _kind(b[2]) and a[2].lower() != b[2].lower()
    ]  # two acts' values (one act's several values are a list: "Dumbo and Hellboy" / "Hellboy and Dumbo")
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    return text[: a[0]] + b[2] + text[a[1] : b[0]] + a[2] + text[b[1] :]
REPLAY = 10000  # first-stage pairs
REPLAY_SECOND = 4000  # second-stage pairs of its own sources (not its replay)


def edited_pairs(
    turns: list[dict[str, Any]], rng: random.Random, edit: Callable[[dict[str, Any], random.Random], str | None],
    label: int, source: str, count: int,
) -> list[dict[str, Any]]:
    """Turns that are not questions, each against its edit (``edit(turn, rng)``), both ways, up to ``count``
    pairs."""
    order = list(turns)
    rng.shuffle(order)
    out: list[dict[str, Any]] = []
    for turn in order:
        if len(out) >= count:
            break
        text = turn["utterance"]
        if "?" in text:
            continue
        edited = edit(turn, rng)
        if edited is None or edited == text:
            continue
        out += _both_ways(text, edited, label, source)
    return out


def build(first: Path, second: Path, seed: int, extra: dict[str, int] | None = None) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    turns = list(split.sgd_turns("work"))
    pairs = edited_pairs(turns, rng, kind_changer(_vocabulary(turns)), CHANGED, "sgd_kind", KIND)
    pairs += edited_pairs(turns, rng, swap_values, CHANGED, "sgd_swap", SWAP)
    same = _same_acts(turns, rng)
    pairs += outcome_same_pairs(same)[:OUTCOME_SAME]
    pairs += [{**p, "label": SAME} for p in same[-SAME_ACTS:]]
    pairs += replay(read_pairs(first), rng, REPLAY, extra)
    own = [p for p in read_pairs(second) if not p["source"].startswith("replay")]
    pairs += [{**p, "source": "replay_stage2"} for p in rng.sample(own, min(REPLAY_SECOND, len(own)))]
    rng.shuffle(pairs)
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--first", type=Path, default=OUT, help="the first stage's pairs (train/build_pairs.py)")
    parser.add_argument("--second", type=Path, default=STAGE2_OUT, help="the second stage's pairs")
    parser.add_argument("--out", type=Path, default=STAGE3_OUT)
    parser.add_argument("--seed", type=int, default=23)
    add_extra_option(parser)
    args = parser.parse_args()
    extra = parse_extra(args.extra)
    pairs = build(args.first, args.second, args.seed, extra)
    inputs = {
        "seed": args.seed, "extra": extra,
        "first_stage_sha256": hashlib.sha256(args.first.read_bytes()).hexdigest(),
        "second_stage_sha256": hashlib.sha256(args.second.read_bytes()).hexdigest(),
    }  # fmt: skip
    write_pairs(args.out, pairs, inputs)


if __name__ == "__main__":
    main()
