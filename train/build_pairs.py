"""Training pairs for the reply verifier, from the *work* parts of the data only (``train/split.py``).

    .venv/bin/python -m train.build_pairs [--out train/out/pairs.jsonl] [--seed 13] [--data benchmarks/data]

Each pair is ``{"premise", "hypothesis", "label", "source"}``; the label says what the hypothesis does to the
premise: ``0`` same (says what it says), ``1`` changed (says something the premise does not support: a changed
value, a contradiction, an added or unsupported claim), ``2`` dropped (supported, but leaves out a fact of the
premise). Sources:

* ``sgd_same`` / ``sgd_changed`` / ``sgd_dropped``: two SGD system turns of different dialogues whose dialogue
  acts are identical / differ in one value / differ by one value-bearing act (the construction of the SGD reply
  pairs file, at scale); ``sgd_added``: a dropped pair read the other way.
* ``sgd_edit``: a turn's value replaced in its own words or in a paraphrase's (the minimal pair).
* ``sgd_grounded`` / ``sgd_ungrounded``: the premise is what the user said and the tool returned (the acts'
  slots and values), the hypothesis the system turn, as is or with a value the tool did not return.
* ``stsb``: STS-B pairs scored >= 4 (same) or <= 1 (changed), both ways: the train file's work part and the
  dev file's fit half.
* ``reply_pairs``: the fit half of the SGD reply pairs file (same / changed / dropped).
* ``edit_*``: an STS-B sentence (or its paraphrase) with one meaning-changing or fact-dropping edit
  (``train/perturb.py``); ``passage_*``: two or three sentences, one of them edited or dropped.
* ``begin``: BEGIN dev's work part, knowledge / response, fully attributable (dropped: supported) or not (changed).
* ``identical``: one to three sentences of the above against themselves (same).
* ``nli``, ``breaking``, ``summedits``, ``citod``: the entailment and grounding files (``train/entailment_pairs.py``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from train import entailment_pairs, perturb, split

SAME, CHANGED, DROPPED = 0, 1, 2
Signature = tuple[tuple[str, str, tuple[str, ...]], ...]
OUT = Path(__file__).resolve().parent / "out" / "pairs.jsonl"

TARGETS = {
    "sgd_same": 8000, "sgd_changed": 5000, "sgd_dropped": 6000, "sgd_added": 1500, "sgd_edit": 3500,
    "sgd_grounded": 2000, "sgd_ungrounded": 2000, "edit_changed": 4500, "edit_dropped": 1200,
    "passage": 2500, "identical": 1500,
}
# STS-B pairs scored >= 4 or <= 1 are written this many times (both ways each time): people's judgement of
# "the same meaning" is the scarcest signal, and the edits above must not teach that any detail left out fails.
STSB_COPIES = 2
BEGIN_COPIES = 3
# The fit half of the SGD reply pairs file (agent replies with one value changed or one fact dropped, written
# by people, as the monitor meets them) is written this many times.
REPLY_PAIR_COPIES = 3
REPLY_PAIR_LABEL = {"same": SAME, "changed": CHANGED, "dropped": DROPPED}


def _act_key(act: dict[str, Any]) -> tuple[str, str, tuple[str, ...]]:
    return act["act"], act["slot"], tuple(sorted(v.lower() for v in act["canonical_values"]))


def signature(turn: dict[str, Any]) -> Signature:
    return tuple(sorted(_act_key(a) for a in turn["acts"]))


def _pair(premise: str, hypothesis: str, label: int, source: str) -> dict[str, Any]:
    return {"premise": premise, "hypothesis": hypothesis, "label": label, "source": source}


def _cross_dialogue(group: list[dict[str, Any]], rng: random.Random, tries: int = 4) -> tuple[dict, dict] | None:
    for _ in range(tries):
        a, b = rng.sample(group, 2)
        if a["dialogue_id"] != b["dialogue_id"] and a["utterance"] != b["utterance"]:
            return a, b
    return None


def sgd_pairs(turns: list[dict[str, Any]], rng: random.Random) -> Iterator[dict[str, Any]]:
    by_sig: dict[Signature, list[dict[str, Any]]] = defaultdict(list)
    for t in turns:
        if t["acts"]:
            by_sig[signature(t)].append(t)
    # same: identical acts and values
    groups = [g for g in by_sig.values() if len(g) > 1]
    for _ in range(TARGETS["sgd_same"]):
        found = _cross_dialogue(rng.choice(groups), rng)
        if found:
            yield _pair(found[0]["utterance"], found[1]["utterance"], SAME, "sgd_same")
    # changed: one value differs (same acts otherwise)
    by_hole: dict[tuple, list[tuple[dict[str, Any], tuple[str, ...]]]] = defaultdict(list)
    for sig, group in by_sig.items():
        for i, (act, slot, values) in enumerate(sig):
            if values:
                hole = (*sig[:i], (act, slot, ("*",)), *sig[i + 1 :])
                by_hole[hole].extend((t, values) for t in group[:20])
    holes = [h for h in by_hole.values() if len({v for _, v in h}) > 1]
    made = 0
    while made < TARGETS["sgd_changed"]:
        (a, va), (b, vb) = rng.sample(rng.choice(holes), 2)
        if va != vb and a["dialogue_id"] != b["dialogue_id"]:
            made += 1
            yield _pair(a["utterance"], b["utterance"], CHANGED, "sgd_changed")
    # dropped: the hypothesis lacks one value-bearing act
    drops: list[tuple[dict[str, Any], Signature]] = []
    for sig, group in by_sig.items():
        for i, (_, _, values) in enumerate(sig):
            sub = sig[:i] + sig[i + 1 :]
            if values and sub and sub in by_sig:
                drops.extend((t, sub) for t in group[:10])
    for n in range(TARGETS["sgd_dropped"] + TARGETS["sgd_added"]):
        gold, sub = rng.choice(drops)
        short = rng.choice(by_sig[sub])
        if short["dialogue_id"] == gold["dialogue_id"]:
            continue
        if n < TARGETS["sgd_dropped"]:
            yield _pair(gold["utterance"], short["utterance"], DROPPED, "sgd_dropped")
        else:
            yield _pair(short["utterance"], gold["utterance"], CHANGED, "sgd_added")
    yield from _sgd_edits(by_sig, groups, rng)
    yield from _sgd_grounding(turns, rng)


def _values_by_slot(turns: list[dict[str, Any]]) -> dict[str, list[str]]:
    pool: dict[str, set[str]] = defaultdict(set)
    for t in turns:
        for a in t["acts"]:
            pool[a["slot"]].update(a["values"])
    return {slot: sorted(values) for slot, values in pool.items()}


def _swap_value(turn: dict[str, Any], pool: dict[str, list[str]], rng: random.Random) -> str | None:
    """The turn's utterance with one of its values (as written) replaced by another value of that slot."""
    spots = [(a["slot"], v) for a in turn["acts"] for v in a["values"] if v and v in turn["utterance"]]
    if not spots:
        return None
    slot, value = rng.choice(spots)
    others = [o for o in pool.get(slot, []) if o.lower() != value.lower()]
    if not others:
        return None
    return turn["utterance"].replace(value, rng.choice(others), 1)


def _sgd_edits(by_sig: dict, groups: list, rng: random.Random) -> Iterator[dict[str, Any]]:
    turns = [t for g in by_sig.values() for t in g]
    pool = _values_by_slot(turns)
    made = 0
    while made < TARGETS["sgd_edit"]:
        group = rng.choice(groups)
        a = rng.choice(group)
        edited = _swap_value(a, pool, rng)
        if edited is None:
            continue
        gold = a if rng.random() < 0.5 else rng.choice(group)
        made += 1
        yield _pair(gold["utterance"], edited, CHANGED, "sgd_edit")


def tool_premise(turn: dict[str, Any]) -> str:
    """What the user said and the tool returned before this turn, as the monitor renders a premise."""
    facts = [f"{a['slot'].replace('_', ' ')}: {', '.join(a['values'])}" for a in turn["acts"] if a["values"]]
    return f"User: {turn['user']}\nTool result: {'; '.join(facts)}"


def _sgd_grounding(turns: list[dict[str, Any]], rng: random.Random) -> Iterator[dict[str, Any]]:
    pool = _values_by_slot(turns)
    valued = [t for t in turns if any(a["values"] for a in t["acts"])]
    for _ in range(TARGETS["sgd_grounded"]):
        t = rng.choice(valued)
        yield _pair(tool_premise(t), t["utterance"], DROPPED, "sgd_grounded")
    made = 0
    while made < TARGETS["sgd_ungrounded"]:
        t = rng.choice(valued)
        edited = _swap_value(t, pool, rng) if rng.random() < 0.7 else rng.choice(valued)["utterance"]
        if edited and edited != t["utterance"]:
            made += 1
            yield _pair(tool_premise(t), edited, CHANGED, "sgd_ungrounded")


def stsb_pairs(rows: list[tuple[str, str, float]], rng: random.Random) -> Iterator[dict[str, Any]]:
    names = sorted({w for a, b, _ in rows for w in (a + " " + b).split()[1:] if w.isalpha() and w[:1].isupper()})
    for a, b, score in rows:
        if score >= 4 or score <= 1:
            label = SAME if score >= 4 else CHANGED
            for _ in range(STSB_COPIES):
                yield _pair(a, b, label, "stsb")
                yield _pair(b, a, label, "stsb")
    sentences = [s for a, b, _ in rows for s in (a, b)]
    paraphrases = [(a, b) for a, b, score in rows if score >= 4]
    changes = (*perturb.CHANGES, lambda t, r: perturb.replace_name(t, r, names))
    made = 0
    while made < TARGETS["edit_changed"]:
        gold, other = rng.choice(paraphrases) if rng.random() < 0.4 else (rng.choice(sentences),) * 2
        edit = perturb.first_applicable(tuple(changes), other, rng)
        if edit:
            made += 1
            yield _pair(gold, edit[1], CHANGED, "edit_changed")
    made = 0
    while made < TARGETS["edit_dropped"]:
        gold = rng.choice(sentences)
        edit = perturb.first_applicable(perturb.DROPS, gold, rng)
        if edit:
            made += 1
            yield _pair(gold, edit[1], DROPPED, "edit_dropped")
            if rng.random() < 0.3:
                yield _pair(edit[1], gold, CHANGED, "edit_added")
    yield from _passages(paraphrases, sentences, rng)


def _passages(paraphrases: list[tuple[str, str]], sentences: list[str], rng: random.Random) -> Iterator[dict]:
    for _ in range(TARGETS["passage"]):
        parts = rng.sample(paraphrases, rng.choice([2, 3]))
        gold = [a for a, _ in parts]
        pred = [b if rng.random() < 0.5 else a for a, b in parts]
        roll, k = rng.random(), rng.randrange(len(pred))
        if roll < 0.35:
            yield _pair(_join(gold), _join(pred), SAME, "passage_same")
            continue
        if roll < 0.7:
            edit = perturb.first_applicable(perturb.CHANGES, pred[k], rng)
            if edit:
                pred[k] = edit[1]
                yield _pair(_join(gold), _join(pred), CHANGED, "passage_changed")
            continue
        del pred[k]
        yield _pair(_join(gold), _join(pred), DROPPED, "passage_dropped")


def _join(sentences: list[str]) -> str:
    """Sentences as one text, each ended with a full stop where it had no final punctuation."""
    return " ".join(s if s.rstrip()[-1:] in ".!?\"'" else s.rstrip() + "." for s in sentences)


def reply_pairs(rows: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for row in rows:
        for _ in range(REPLY_PAIR_COPIES):
            yield _pair(row["gold"], row["predicted"], REPLY_PAIR_LABEL[row["kind"]], "reply_pairs")


def begin_pairs(rows: list[dict[str, str]]) -> Iterator[dict[str, Any]]:
    for row in rows:
        if row["label"] == "Generic":
            continue
        label = DROPPED if row["label"] == "Fully attributable" else CHANGED
        for _ in range(BEGIN_COPIES):
            yield _pair(row["knowledge"], row["response"], label, "begin")


def identical_pairs(texts: list[str], rng: random.Random) -> Iterator[dict[str, Any]]:
    """A text against itself is the same: the model must not read a sentence repeated word for word as changed."""
    for _ in range(TARGETS["identical"]):
        text = _join(rng.sample(texts, rng.choice([1, 1, 2, 3])))
        yield _pair(text, text, SAME, "identical")


def stsb_rows(data: Path = split.DATA_DIR) -> list[tuple[str, str, float]]:
    """The STS-B pairs training reads: the train file's work part and the dev file's fit half."""
    return list(split.stsb("work", "stsb_en_train.csv", data)) + list(split.stsb("fit", "stsb_en_dev.csv", data))


def build(seed: int, data: Path = split.DATA_DIR) -> list[dict[str, Any]]:
    """Every training pair of the work parts of the files in ``data``, shuffled with ``seed``."""
    rng = random.Random(seed)
    turns = list(split.sgd_turns("work", data))
    pairs = list(sgd_pairs(turns, rng))
    rows = stsb_rows(data)
    pairs += stsb_pairs(rows, rng)
    pairs += reply_pairs(list(split.sgd_reply_pairs("fit", data)))
    pairs += begin_pairs(list(split.begin("work", data)))
    texts = [turn["utterance"] for turn in turns] + [s for a, b, _ in rows for s in (a, b)]
    pairs += identical_pairs(texts, rng)
    pairs += entailment_pairs.build(rng, data)
    rng.shuffle(pairs)
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--data", type=Path, default=split.DATA_DIR, help="the data files (benchmarks/data)")
    args = parser.parse_args()
    pairs = build(args.seed, args.data)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as handle:
        for pair in pairs:
            handle.write(json.dumps(pair, ensure_ascii=False) + "\n")
    digest = hashlib.sha256(args.out.read_bytes()).hexdigest()
    counts: dict[str, int] = defaultdict(int)
    for pair in pairs:
        counts[pair["source"]] += 1
    summary = {"pairs": len(pairs), "sha256": digest, "seed": args.seed, "by_source": dict(sorted(counts.items()))}
    (args.out.with_suffix(".summary.json")).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
