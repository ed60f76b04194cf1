"""Reply accuracy of every reply scorer, on the work and the sealed parts of the data (``train/split.py``).

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/accuracy_replies.py [--data benchmarks/data] [--part sealed]
        [--verifier DIR] [--scorers embedding,verifier,shipped] [--tune]

Data sets (each cut by hash into a work and a sealed part before anyone read it):

* ``sgd_replies``: the SGD reply pairs file (same -> pass, changed -> inconsistent_response, dropped ->
  incomplete_response);
* ``sgd_built``: pairs built the same way from SGD train dialogues (``train.build_pairs.sgd_pairs``, seed 7)
  - on the sealed part these are dialogues the verifier never saw;
* ``stsb_dev`` and ``stsb_train``: STS-B pairs scored >= 4 (pass) or <= 1 (fail); the verifier trained on the
  work part of ``stsb_train`` only;
* ``begin``: reference-free grounding, BEGIN dev knowledge / response, fully attributable (pass) or not (fail);
  generic responses are reported apart (their pass rate).

Scorers: ``embedding`` (bare cosine >= 0.5, and the best single threshold chosen on the work part), ``verifier``
(the cross-encoder alone), ``shipped`` (the default configuration: verifier with typed-value evidence, as
``aem score`` builds it); for grounding, max sentence cosine beside the verifier. Figures: balanced accuracy
(mean of the pass rate on passing pairs and the fail rate on failing ones) and, for SGD, the share of failing
pairs given the right reason. ``--tune`` prints the joint best ``pass_threshold`` / ``grounding_threshold`` on
the work parts (never the sealed ones).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from monitor.asking import settle_all
from monitor.embeddings import EmbeddingScorer
from monitor.equivalence import ValueComparator
from monitor.equivalence.types import ReplyMatch, reply_reason
from monitor.verifier import VerifierConfig, VerifierReplyComparator, load_verifier
from monitor.verifier.evidence import TypedValueEvidence
from monitor.verifier.grounding import unsupported_sentences
from monitor.verifier.sentences import sentences
from train import split
from train.build_pairs import TARGETS, sgd_pairs

PASS = "pass"
KIND_REASON = {"same": PASS, "changed": "inconsistent_response", "dropped": "incomplete_response"}
LABEL_REASON = {0: PASS, 1: "inconsistent_response", 2: "incomplete_response"}


@dataclass(frozen=True)
class Pair:
    gold: str
    pred: str
    expected: str  # pass / inconsistent_response / incomplete_response / fail


def sgd_replies(part: str, data: Path) -> list[Pair]:
    return [Pair(p["gold"], p["predicted"], KIND_REASON[p["kind"]]) for p in split.sgd_reply_pairs(part, data)]


def sgd_built(part: str, data: Path, size: int = 600) -> list[Pair]:
    """Same / changed / dropped pairs built from the part's SGD dialogues, balanced by kind."""
    saved = dict(TARGETS)
    try:
        for key in TARGETS:
            TARGETS[key] = 0
        TARGETS.update(sgd_same=size, sgd_changed=size // 2, sgd_dropped=size // 2)
        rng = random.Random(7)
        turns = list(split.sgd_turns(part, data))
        built = [p for p in sgd_pairs(turns, rng) if p["source"] in ("sgd_same", "sgd_changed", "sgd_dropped")]
    finally:
        TARGETS.update(saved)
    return [Pair(p["premise"], p["hypothesis"], LABEL_REASON[p["label"]]) for p in built]


def stsb(part: str, data: Path, file: str) -> list[Pair]:
    return [Pair(a, b, PASS if s >= 4 else "fail") for a, b, s in split.stsb(part, file, data) if s >= 4 or s <= 1]


def begin(part: str, data: Path) -> tuple[list[Pair], list[Pair]]:
    rows = list(split.begin(part, data))
    graded = [Pair(r["knowledge"], r["response"], PASS if r["label"] == "Fully attributable" else "fail")
              for r in rows if r["label"] != "Generic"]
    generic = [Pair(r["knowledge"], r["response"], PASS) for r in rows if r["label"] == "Generic"]
    return graded, generic


# ----------------------------------------------------------------------------------------- measures
def balanced(pairs: Sequence[Pair], passed: Sequence[bool]) -> tuple[float, float, float]:
    pos = [ok for p, ok in zip(pairs, passed, strict=True) if p.expected == PASS]
    neg = [ok for p, ok in zip(pairs, passed, strict=True) if p.expected != PASS]
    tpr = sum(pos) / len(pos) if pos else float("nan")
    tnr = sum(not ok for ok in neg) / len(neg) if neg else float("nan")
    return (tpr + tnr) / 2, tpr, tnr


def right_reason(pairs: Sequence[Pair], got: Sequence[str]) -> float:
    failing = [(p.expected, g) for p, g in zip(pairs, got, strict=True) if p.expected not in (PASS, "fail")]
    return sum(e == g for e, g in failing) / len(failing) if failing else float("nan")


def best_cut(scores: Sequence[float], pairs: Sequence[Pair], higher_passes: bool = True) -> float:
    best, best_value = 0.5, -1.0
    for cut in sorted(set(round(s, 3) for s in scores)):
        value = balanced(pairs, [(s >= cut) == higher_passes for s in scores])[0]
        if value > best_value:
            best, best_value = cut, value
    return best


def row(name: str, scorer: str, pairs: Sequence[Pair], passed: Sequence[bool], got: Sequence[str] | None) -> str:
    bal, tpr, tnr = balanced(pairs, passed)
    reason = f"{right_reason(pairs, got):.3f}" if got is not None and any(p.expected.endswith("response")
                                                                           for p in pairs) else "  -  "
    return f"| {name:<18} | {scorer:<26} | {len(pairs):>5} | {bal:.3f} | {tpr:.3f} | {tnr:.3f} | {reason} |"


def _rules(embed: EmbeddingScorer, values: ValueComparator):  # type: ignore[no-untyped-def]
    """The hand-written reply rules, where this checkout still has them (for the ablation)."""
    try:
        from monitor.equivalence.replies import ReplyComparator
    except ImportError:
        return None
    return ReplyComparator(semantic=embed, values=values)


def _either(first: str, second: str) -> str:
    """Fails when either fails; the first one's reason wins."""
    return first if first != PASS else second


def outcome(match: ReplyMatch) -> str:
    reason = reply_reason(match)
    return PASS if reason is None else reason.value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=split.DATA_DIR, help="data folder (default: benchmarks/data)")
    parser.add_argument("--part", choices=("work", "tune", "sealed"), default="sealed",
                        help="tune: the halves of the work parts that were not trained on")
    parser.add_argument("--verifier", default=None, help="model folder (default: the shipped model)")
    parser.add_argument("--scorers", default="embedding,verifier,shipped,grounding",
                        help="any of embedding, verifier, shipped, grounding, edits, rules, verifier+rules")
    parser.add_argument("--tune", action="store_true", help="print the best cuts on the tune halves")
    args = parser.parse_args()
    scorers = set(args.scorers.split(","))
    part = args.part

    needs_verifier = bool(scorers & {"verifier", "shipped", "verifier+rules", "grounding", "edits"})
    scorer = load_verifier(args.verifier) if needs_verifier else None
    embed = EmbeddingScorer()
    values = ValueComparator(semantic=embed)
    sets: dict[str, list[Pair]] = {
        "sgd_replies": sgd_replies(part, args.data),
        "sgd_built": sgd_built(part, args.data),
        "stsb_dev": stsb(part, args.data, "stsb_en_dev.csv"),
        "stsb_train": stsb(part, args.data, "stsb_en_train.csv") if part == "sealed" else [],
    }
    sets = {  # the built SGD pairs and STS-B train have no tune half: their work part is trained on
        name: pairs for name, pairs in sets.items() if part != "tune" or name in ("sgd_replies", "stsb_dev")
    }
    work_cos: dict[str, tuple[list[float], list[Pair]]] = {}
    if "embedding" in scorers:
        for name in ("sgd_replies", "stsb_dev"):
            work = sets[name] if part == "work" else (sgd_replies if name == "sgd_replies" else
                                                      lambda p, d: stsb(p, d, "stsb_en_dev.csv"))("work", args.data)
            work_cos[name] = (embed.similarity([(p.gold, p.pred) for p in work]), work)
    reading = {"sealed": "never read", "tune": "not trained on, chose the cuts", "work": "designed and trained on"}
    print(f"## Reply accuracy, {part} part ({reading[part]})\n")
    print("| data | scorer | pairs | balanced | pass rate (same) | fail rate (different) | right reason |")
    print("|---|---|---|---|---|---|---|")
    comparators: dict[str, Callable[[str, str], str]] = {}
    if scorer is not None:
        plain = VerifierReplyComparator(scorer, VerifierConfig(typed_values=False))
        shipped = VerifierReplyComparator(scorer, VerifierConfig(), TypedValueEvidence(values))
        comparators["verifier"] = lambda g, p: outcome(plain.compare(g, p))
        comparators["shipped"] = lambda g, p: outcome(shipped.compare(g, p))
    rules = _rules(embed, values) if scorers & {"rules", "verifier+rules"} else None
    if rules is not None:
        comparators["rules"] = lambda g, p: outcome(rules.compare(g, p))
        if scorer is not None:
            both = (comparators["shipped"], comparators["rules"])
            comparators["verifier+rules"] = lambda g, p: _either(both[0](g, p), both[1](g, p))
    for name, pairs in sets.items():
        if not pairs:
            continue
        if "embedding" in scorers:
            cos = embed.similarity([(p.gold, p.pred) for p in pairs])
            print(row(name, "embedding cos >= 0.5", pairs, [c >= 0.5 for c in cos], None))
            source = work_cos.get(name) or work_cos["stsb_dev" if name.startswith("stsb") else "sgd_replies"]
            cut = best_cut(*source)
            print(row(name, f"embedding best cut {cut:.2f}", pairs, [c >= cut for c in cos], None))
        if scorer is not None:
            settle_all([plain.compare_steps(p.gold, p.pred) for p in pairs])  # one batch; answers cached
        for label, compare in comparators.items():
            if label in scorers:
                got = [compare(p.gold, p.pred) for p in pairs]
                print(row(name, label, pairs, [g == PASS for g in got], got), flush=True)
    if "grounding" in scorers and scorer is not None:
        grounding(part, args.data, scorer, embed, scorers)
    if "edits" in scorers and scorer is not None:
        edits(part, args.data, VerifierReplyComparator(scorer, VerifierConfig(), TypedValueEvidence(values)))
    if args.tune:
        tune(args.data, scorer)


EDIT_KINDS = (
    "swap_participants", "change_number", "change_calendar_word", "change_pronoun", "change_action",
    "toggle_negation", "antonym", "change_noun",
)


def edits(part: str, data: Path, shipped: VerifierReplyComparator) -> None:
    """One meaning-changing edit (``train/perturb.py``) in one sentence of a three-sentence text of STS-B dev
    sentences of the part (the tune half: never trained on), caught or not, per kind of edit; and the pass rate
    of the same texts unedited with one sentence said in other words (a paraphrase scored >= 4)."""
    from train import perturb

    source = "tune" if part == "work" else part
    rows = list(split.stsb(source, "stsb_en_dev.csv"))
    paraphrases = [(a, b) for a, b, s in rows if s >= 4]
    rng = random.Random(11)
    print(f"\n## One edit in a three-sentence text (STS-B dev sentences, {source} part)\n")
    print("| edit | texts | caught |\n|---|---|---|")
    for kind in EDIT_KINDS:
        edit = getattr(perturb, kind)
        caught, total = 0, 0
        for _ in range(400):
            if total >= 60:
                break
            texts = [a for a, _ in rng.sample(paraphrases, 3)]
            k = rng.randrange(3)
            edited = edit(texts[k], rng)
            if not edited or edited == texts[k]:
                continue
            pred = [*texts[:k], edited, *texts[k + 1 :]]
            total += 1
            caught += outcome(shipped.compare(" ".join(texts), " ".join(pred))) != PASS
        print(f"| {kind} | {total} | {caught / max(total, 1):.3f} |")
    kept = 0
    for _ in range(60):
        parts = rng.sample(paraphrases, 3)
        k = rng.randrange(3)
        pred = [b if i == k else a for i, (a, b) in enumerate(parts)]
        kept += outcome(shipped.compare(" ".join(a for a, _ in parts), " ".join(pred))) == PASS
    print(f"| none (one sentence paraphrased) | 60 | passed {kept / 60:.3f} |")


def grounding(part: str, data: Path, scorer, embed: EmbeddingScorer, scorers: set[str]) -> None:  # type: ignore[no-untyped-def]
    graded, generic = begin(part, data)  # BEGIN has no tune half: "tune" reads its work part, trained on
    shown = "work part, trained on" if part != "sealed" else "sealed part"
    print(f"\n## Reference-free grounding (BEGIN dev, {shown})\n")
    print("| data | scorer | pairs | balanced | pass rate (attributable) | fail rate (not) | generic passed |")
    print("|---|---|---|---|---|---|---|")

    def max_cos(pairs: Sequence[Pair]) -> list[float]:
        out = []
        for p in pairs:
            ks = list(sentences(p.gold)) or [p.gold]
            out.append(max(embed.similarity([(k, p.pred) for k in ks])))
        return out

    if "embedding" in scorers:
        work, _ = begin("work", data)
        cut = best_cut(max_cos(work), work)
        cos, gcos = max_cos(graded), max_cos(generic)
        bal, tpr, tnr = balanced(graded, [c >= cut for c in cos])
        gen = sum(c >= cut for c in gcos) / max(len(gcos), 1)
        label = f"max sentence cosine >= {cut:.2f}"
        print(f"| begin | {label} | {len(graded)} | {bal:.3f} | {tpr:.3f} | {tnr:.3f} | {gen:.3f} |")
    cut = VerifierConfig().grounding_threshold
    shipped = VerifierReplyComparator(scorer, VerifierConfig(), TypedValueEvidence(ValueComparator(semantic=embed)))
    readers: dict[str, Callable[[Pair], bool]] = {
        "verifier, knowledge as premise": lambda p: not unsupported_sentences(scorer, p.pred, [p.gold], cut),
        "shipped (source rendering, typed values)": lambda p: not shipped.unsupported_facts(p.pred, [p.gold]),
    }
    for label, read in readers.items():
        ok, gen_ok = [read(p) for p in graded], [read(p) for p in generic]
        bal, tpr, tnr = balanced(graded, ok)
        gen = sum(gen_ok) / max(len(gen_ok), 1)
        print(f"| begin | {label} | {len(graded)} | {bal:.3f} | {tpr:.3f} | {tnr:.3f} | {gen:.3f} |")


def tune(data: Path, scorer) -> None:  # type: ignore[no-untyped-def]
    """The pass threshold that maximises the mean balanced accuracy of the tune halves."""
    sets = [sgd_replies("tune", data), stsb("tune", data, "stsb_en_dev.csv")]
    comparators: dict[tuple[float, bool], list[float]] = {}
    for cut, both in [(c, b) for b in (False, True) for c in np.arange(0.05, 0.85, 0.05)]:
        comp = VerifierReplyComparator(scorer, VerifierConfig(float(cut), typed_values=False, confirm_omissions=both))
        settle_all([comp.compare_steps(p.gold, p.pred) for pairs in sets for p in pairs])  # answers cached
        scores = []
        for pairs in sets:
            got = [outcome(comp.compare(p.gold, p.pred)) for p in pairs]
            scores.append(balanced(pairs, [g == PASS for g in got])[0])
        comparators[(round(float(cut), 2), both)] = scores
    print("\n## Tuning on the tune halves: pass_threshold, confirm_omissions -> balanced (sgd_replies, stsb_dev)")
    for (cut, both), scores in comparators.items():
        print(f"{cut:.2f} {both!s:<5}: " + " ".join(f"{s:.3f}" for s in scores) + f"  mean {np.mean(scores):.3f}")
    graded, _ = begin("work", data)
    print("grounding_threshold -> balanced (begin work part, trained on)")
    for cut in np.arange(0.2, 0.95, 0.05):
        ok = [not unsupported_sentences(scorer, p.pred, [p.gold], float(cut)) for p in graded]
        print(f"{cut:.2f}: {balanced(graded, ok)[0]:.3f}")


if __name__ == "__main__":
    main()
