"""A second, shorter training stage: meaning-changing edits of one word class at a time (participants swapped,
a transactional verb replaced, a day or month changed, a pronoun changed, negation, a common noun replaced by
another of its kind), on SGD system turns and
STS-B sentences of the work parts, mixed with an equal share of the first stage's pairs so that what was
learnt there stays.

    .venv/bin/python -m train.build_focus [--out train/out/focus.jsonl] [--seed 17]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from pathlib import Path

from train import perturb, split
from train.build_pairs import CHANGED, DROPPED, OUT


def _swap_with_opening_names(text: str, rng: random.Random) -> str | None:
    return perturb.swap_participants(text, rng, opening_names=True)


FOCUS = (
    ("swap_participants", _swap_with_opening_names),
    ("change_action", perturb.change_action),
    ("change_calendar_word", perturb.change_calendar_word),
    ("change_pronoun", perturb.change_pronoun),
    ("toggle_negation", perturb.toggle_negation),
    ("change_noun", perturb.change_noun),
)
EDITS_PER_KIND = 900
REPLAY = 5000


def build(seed: int) -> list[dict]:
    rng = random.Random(seed)
    sentences = [t["utterance"] for t in split.sgd_turns("work")]
    sentences += [s for a, b, _ in split.stsb("work", "stsb_en_train.csv") for s in (a, b)]
    rng.shuffle(sentences)
    pairs: list[dict] = []
    for name, edit in FOCUS:
        made = 0
        for text in sentences:
            if made >= EDITS_PER_KIND:
                break
            edited = edit(text, rng)
            if edited and edited != text:
                pairs.append({"premise": text, "hypothesis": edited, "label": CHANGED, "source": f"focus_{name}"})
                made += 1
    made = 0
    for text in sentences:
        if made >= 600:
            break
        edited = perturb.drop_conjunct(text, rng)
        if edited and edited != text:
            pairs.append({"premise": text, "hypothesis": edited, "label": DROPPED, "source": "focus_drop_conjunct"})
            made += 1
    with OUT.open(encoding="utf-8") as handle:
        first = [json.loads(line) for line in handle]
    pairs += rng.sample(first, REPLAY)
    rng.shuffle(pairs)
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=OUT.with_name("focus.jsonl"))
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args()
    pairs = build(args.seed)
    with args.out.open("w", encoding="utf-8") as handle:
        for pair in pairs:
            handle.write(json.dumps(pair, ensure_ascii=False) + "\n")
    counts: dict[str, int] = {}
    for pair in pairs:
        counts[pair["source"]] = counts.get(pair["source"], 0) + 1
    digest = hashlib.sha256(args.out.read_bytes()).hexdigest()
    summary = {"pairs": len(pairs), "sha256": digest, "seed": args.seed, "by_source": dict(sorted(counts.items()))}
    args.out.with_suffix(".summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
