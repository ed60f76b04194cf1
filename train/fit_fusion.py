"""Fit the fused reply decision (``monitor/verifier/fusion.py``) for a verifier, on data the verifier was not
trained on, and write ``fusion.json`` beside it.

    HF_HUB_OFFLINE=1 .venv/bin/python -m train.fit_fusion [--verifier DIR] [--out DIR] [--seed 5]

Fit data (none of it sealed, none of it trained on by the verifier):

* the *tune* halves of the SGD reply pairs file and of STS-B dev (``train/split.py``);
* ``edits``: three STS-B dev tune-half sentences with one meaning-changing edit in one of them (fail), or with
  one sentence said in other words (pass) — the unfaithful edit a long reply can hide.

Prints, per set, 5-fold cross-validated balanced accuracy of the fused decision beside bare cosine >= 0.5, the
best single cosine cut and the verifier alone, then fits on everything and writes the parameters (gradient-boosted
trees as plain node arrays, ``monitor/verifier/fusion.py``) and their sha256 into the model card.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks.accuracy_replies import PASS, Pair, balanced, best_cut, sgd_replies, stsb
from monitor.asking import settle_all
from monitor.embeddings import EmbeddingScorer
from monitor.equivalence import ValueComparator
from monitor.verifier import VerifierConfig, VerifierReplyComparator, load_verifier
from monitor.verifier.evidence import TypedValueEvidence
from monitor.verifier.fusion import FUSION_FILE, Evidence, file_digest, fit
from monitor.verifier.model import CARD_FILE, MODEL_DIR
from train import perturb, split

EDIT_TEXTS = 300


def edit_pairs(seed: int) -> list[Pair]:
    """Three-sentence texts of STS-B dev tune-half sentences: one sentence edited (fail) or paraphrased (pass)."""
    rows = list(split.stsb("tune", "stsb_en_dev.csv"))
    paraphrases = [(a, b) for a, b, s in rows if s >= 4]
    rng = random.Random(seed)
    out: list[Pair] = []
    kinds = [getattr(perturb, k) for k in (
        "swap_participants", "change_number", "change_calendar_word", "change_pronoun", "change_action",
        "toggle_negation", "antonym", "change_noun",
    )]
    while len(out) < 2 * EDIT_TEXTS:
        parts = rng.sample(paraphrases, 3)
        k = rng.randrange(3)
        gold = " ".join(a for a, _ in parts)
        if len(out) % 2 == 0:
            edited = rng.choice(kinds)(parts[k][0], rng)
            if not edited or edited == parts[k][0]:
                continue
            pred = " ".join(edited if i == k else a for i, (a, _) in enumerate(parts))
            out.append(Pair(gold, pred, "inconsistent_response"))
        else:
            pred = " ".join(b if i == k else a for i, (a, b) in enumerate(parts))
            out.append(Pair(gold, pred, PASS))
    return out


def deciding(evidence: Sequence[Evidence]) -> Evidence:
    """The unit a fit reads for a pair: the one the verifier finds least alike (P(same) lowest)."""
    return min(evidence, key=lambda e: e.forward.same)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--verifier", default=None, help="model folder (default: the shipped model)")
    parser.add_argument("--out", type=Path, default=None, help="where fusion.json goes (default: the model folder)")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()

    scorer = load_verifier(args.verifier)
    embed = EmbeddingScorer()
    facts = TypedValueEvidence(ValueComparator(semantic=embed))
    comparator = VerifierReplyComparator(scorer, VerifierConfig(), facts)  # reads as the product does
    sets = {
        "sgd_replies": sgd_replies("tune", split.DATA_DIR),
        "stsb_dev": stsb("tune", split.DATA_DIR, "stsb_en_dev.csv"),
        "edits": edit_pairs(args.seed),
    }
    rows: list[tuple[str, Evidence, bool, float, str]] = []  # set, evidence, right, cosine, verifier-alone
    for name, pairs in sets.items():
        evidence = settle_all([comparator.evidence_steps(p.gold, p.pred, embed) for p in pairs])
        alone = [comparator.compare(p.gold, p.pred) for p in pairs]
        for p, ev, a in zip(pairs, evidence, alone, strict=True):
            if ev:
                rows.append((name, deciding(ev), p.expected == PASS, ev[0].cosine, "pass" if a.equivalent else "fail"))
    x = [r[1] for r in rows]
    y = np.array([r[2] for r in rows])
    folds = np.array([random.Random(args.seed * 1000 + i).randrange(5) for i in range(len(rows))])
    predicted = np.zeros(len(rows), dtype=bool)
    for k in range(5):
        train = [i for i in range(len(rows)) if folds[i] != k]
        fusion = fit([x[i] for i in train], y[train].tolist(), scorer.model_id)
        for i in np.flatnonzero(folds == k):
            predicted[i] = fusion.p_right(x[i]) >= 0.5
    print("| set | pairs | cosine >= 0.5 | best cosine cut (in-set) | verifier alone | fused (5-fold CV) |")
    print("|---|---|---|---|---|---|")
    for name in sets:
        idx = [i for i, r in enumerate(rows) if r[0] == name]
        pairs = [Pair("", "", PASS if rows[i][2] else "fail") for i in idx]
        cos = [rows[i][3] for i in idx]
        cut = best_cut(cos, pairs)
        figures = (
            balanced(pairs, [c >= 0.5 for c in cos])[0], balanced(pairs, [c >= cut for c in cos])[0],
            balanced(pairs, [rows[i][4] == "pass" for i in idx])[0], balanced(pairs, predicted[idx].tolist())[0],
        )
        print(f"| {name} | {len(idx)} | " + " | ".join(f"{f:.3f}" for f in figures) + " |")
    fusion = fit(x, y.tolist(), scorer.model_id)
    folder = args.out or Path(args.verifier or MODEL_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / FUSION_FILE).write_text(json.dumps(fusion.as_dict(), indent=2) + "\n", encoding="utf-8")
    card_path = folder / CARD_FILE
    if card_path.is_file():  # the model card names the fusion file it ships with (checked at load)
        card = json.loads(card_path.read_text(encoding="utf-8"))
        card["fusion_sha256"] = file_digest(folder / FUSION_FILE)
        card["fusion_fit"] = {"pairs": len(rows), "seed": args.seed,
                             "command": "python -m train.fit_fusion"}
        card_path.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(fusion.as_dict()))


if __name__ == "__main__":
    main()
