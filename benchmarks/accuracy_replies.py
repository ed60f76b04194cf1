"""Reply accuracy of every reply scorer, on the work and the sealed parts of the data (``train/split.py``).

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/accuracy_replies.py [--data benchmarks/data] [--part sealed]
        [--verifier DIR] [--scorers embedding,verifier,shipped,fused,grounding,edits] [--sets NAMES] [--tune]

Data sets (each cut by hash into a work and a sealed part before anyone read it):

* ``sgd_replies``: the SGD reply pairs file (same -> pass, changed -> inconsistent_response, dropped ->
  incomplete_response);
* ``sgd_built``: pairs built the same way from SGD train dialogues (``train.build_pairs.sgd_pairs``, seed 7)
  - on the sealed part these are dialogues the verifier never saw;
* ``stsb_dev`` and ``stsb_train``: STS-B pairs scored >= 4 (pass) or <= 1 (fail); the verifier trained on the
  work part of ``stsb_train`` only;
* ``breaking``: Breaking NLI, a sentence against itself with one word swapped: a synonym passes, any other
  swap is ``inconsistent_response``;
* judge-only: ``begin`` (BEGIN dev knowledge / response, fully attributable or not), ``citod`` (an in-car
  assistant's last reply against the knowledge-base table it had and the driver's last turn), ``summedits``
  (a summary against its document), ``nli`` (MultiNLI / FEVER hypotheses against their premise); 400 a set at
  most, a seeded sample.

Scorers: ``embedding`` (bare cosine >= 0.5, and the best single threshold chosen on the work part), ``verifier``
(the cross-encoder alone), ``shipped`` (the default configuration, as ``aem score`` builds it), ``fused``
(``scoring.verifier.fusion: true``); for judge-only, max sentence cosine (best cut on the work part) beside
them. Figures: balanced accuracy
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
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from monitor.asking import settle_all
from monitor.embeddings import EmbeddingScorer
from monitor.equivalence import ValueComparator
from monitor.equivalence.types import ReplyComparing, ReplyMatch, reply_reason
from monitor.scoring.config import ScoringConfig, VerifierSettings
from monitor.verifier import VerifierConfig, VerifierReplyComparator, load_verifier
from monitor.verifier.grounding import premise_sentences, render_source, unsupported_sentences
from monitor.wiring import reply_comparator
from train import perturb, split
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


def sgd_outcome(part: str, data: Path, size: int = 1500) -> list[Pair]:
    """Agent replies reporting an outcome (booked, confirmed, approved, available...): a turn of another dialogue
    with the same dialogue acts (pass), and that turn with the outcome reversed (``perturb.reverse_outcome``:
    fail), from the part's SGD dialogues."""
    saved = dict(TARGETS)
    try:
        for key in TARGETS:
            TARGETS[key] = 0
        TARGETS.update(sgd_same=size)
        rng = random.Random(11)
        turns = list(split.sgd_turns(part, data))
        same = [p for p in sgd_pairs(turns, rng) if p["source"] == "sgd_same" and "?" not in p["hypothesis"]]
    finally:
        TARGETS.update(saved)
    out: list[Pair] = []
    seen: set[tuple[str, str]] = set()
    for p in same:
        reversed_ = perturb.reverse_outcome(p["hypothesis"], rng)
        if reversed_ is None or (p["premise"], p["hypothesis"]) in seen:
            continue
        seen.add((p["premise"], p["hypothesis"]))
        out += [Pair(p["premise"], p["hypothesis"], PASS), Pair(p["premise"], reversed_, "inconsistent_response")]
    return out


def stsb(part: str, data: Path, file: str) -> list[Pair]:
    return [Pair(a, b, PASS if s >= 4 else "fail") for a, b, s in split.stsb(part, file, data) if s >= 4 or s <= 1]


def begin(part: str, data: Path) -> tuple[list[Pair], list[Pair]]:
    rows = list(split.begin(part, data))
    graded = [Pair(r["knowledge"], r["response"], PASS if r["label"] == "Fully attributable" else "fail")
              for r in rows if r["label"] != "Generic"]
    generic = [Pair(r["knowledge"], r["response"], PASS) for r in rows if r["label"] == "Generic"]
    return graded, generic


@dataclass(frozen=True)
class Grounded:
    """A judge-only case: what the conversation said (user messages as text, tool outputs as JSON values) and a
    reply that it supports (pass) or not (fail)."""

    sources: tuple[Any, ...]
    reply: str
    expected: str


JUDGE_SAMPLE = 400  # judge-only cases read per set (a seeded sample of the part)


def _sample(items: list[Any], size: int = JUDGE_SAMPLE) -> list[Any]:
    return items if len(items) <= size else random.Random(3).sample(items, size)


def judge_sets(part: str, data: Path) -> dict[str, list[Grounded]]:
    """The judge-only sets of a part: knowledge-grounded dialogue replies (BEGIN), in-car assistant replies
    against the knowledge-base table the assistant had (CI-ToD), summaries against their document
    (SummEdits), statements against the text they are drawn from (MultiNLI / FEVER)."""
    begin_rows = [
        Grounded((r["knowledge"],), r["response"], PASS if r["label"] == "Fully attributable" else "fail")
        for r in split.begin(part, data) if r["label"] != "Generic"
    ]
    citod_rows = []
    for r in split.citod(part, data):
        turns = r["dialogue"]
        if not r["kb"].get("items") or not turns or turns[-1]["turn"] != "assistant":
            continue
        if not r["kb_inconsistent"] and (r["query_inconsistent"] or r["history_inconsistent"]):
            continue
        asked = next((t["utterance"] for t in reversed(turns[:-1]) if t["turn"] == "driver"), "")
        reply = turns[-1]["utterance"].replace("_", " ")
        items = r["kb"]["items"]
        kb = {"items": [{k: str(v).replace("_", " ") for k, v in item.items() if v != "-"} for item in items]}
        citod_rows.append(Grounded((asked.replace("_", " "), kb), reply, "fail" if r["kb_inconsistent"] else PASS))
    summ = [Grounded((r["doc"],), r["summary"], PASS if int(r["label"]) == 1 else "fail")
            for r in split.summedits(part, data)]
    nli = [Grounded((r["premise"],), r["hypothesis"], PASS if r["label"] == "entailment" else "fail")
           for r in split.nli(part, data)]
    return {"begin": begin_rows, "citod": _sample(citod_rows), "summedits": _sample(summ), "nli": _sample(nli)}


def breaking(part: str, data: Path) -> list[Pair]:
    """One word swapped (Breaking NLI): a synonym says the same (pass), any other swap changes it (fail)."""
    rows = [Pair(r["premise"], r["hypothesis"], PASS if r["category"] == "synonyms" and r["label"] == "entailment"
                 else "inconsistent_response")
            for r in split.breaking_nli(part, data) if r["label"] != "entailment" or r["category"] == "synonyms"]
    same = [p for p in rows if p.expected == PASS]
    return same + _sample([p for p in rows if p.expected != PASS], max(len(same), 150))


# ----------------------------------------------------------------------------------------- measures
def balanced(pairs: Sequence[Pair], passed: Sequence[bool]) -> tuple[float, float, float]:
    pos = [ok for p, ok in zip(pairs, passed, strict=True) if p.expected == PASS]
    neg = [ok for p, ok in zip(pairs, passed, strict=True) if p.expected != PASS]
    tpr = sum(pos) / len(pos) if pos else float("nan")
    tnr = sum(not ok for ok in neg) / len(neg) if neg else float("nan")
    return (tpr + tnr) / 2, tpr, tnr


@dataclass(frozen=True)
class Difference:
    """Balanced accuracy of one scorer minus another's on the same pairs, with its 95 % interval."""

    value: float
    low: float
    high: float

    def __str__(self) -> str:
        return f"{self.value:+.3f} [{self.low:+.3f}, {self.high:+.3f}]"


def paired_difference(
    expected_pass: Sequence[bool], first: Sequence[bool], second: Sequence[bool], resamples: int = 2000, seed: int = 0
) -> Difference:
    """``first``'s balanced accuracy minus ``second``'s (each: does the scorer pass the pair?) on the same pairs,
    with the 95 % percentile interval of a paired, stratified bootstrap: a resample draws pairs, each with both
    scorers' answers (what the two share cancels out), the passing and the failing pairs apart, so every resample
    keeps the set's class sizes and has a balanced accuracy (``scipy.stats.bootstrap`` cannot stratify). Seeded."""
    y = np.asarray(expected_pass, dtype=bool)
    gain = np.asarray(first, dtype=float) - np.asarray(second, dtype=float)  # +1: only first passes the pair
    pos, neg = gain[y], -gain[~y]  # a pass gained on a passing pair, a fail gained on a failing one
    if not len(pos) or not len(neg):
        raise ValueError("a balanced accuracy needs passing and failing pairs")
    value = float((pos.mean() + neg.mean()) / 2)
    rng = np.random.default_rng(seed)
    draws = (pos[rng.integers(0, len(pos), (resamples, len(pos)))].mean(1)
             + neg[rng.integers(0, len(neg), (resamples, len(neg)))].mean(1)) / 2  # fmt: skip
    low, high = np.percentile(draws, [2.5, 97.5])
    return Difference(value, float(low), float(high))


def reading(differences: Sequence[Difference]) -> str:
    """How the default stands against the baselines: below one of them beyond its interval, below one within
    noise, above all beyond their intervals, or at or above all within noise."""
    if any(d.high < 0 for d in differences):
        return "below"
    if any(d.value < 0 for d in differences):
        return "below, within noise"
    return "above" if all(d.low > 0 for d in differences) else "at or above, within noise"


def against_baselines(results: dict[str, dict[str, tuple[list[bool], list[bool]]]]) -> None:
    """The default (``shipped``) against each baseline, set by set: the difference in balanced accuracy with its
    95 % interval (``paired_difference``), and what that says."""
    rows = {name: r for name, r in results.items() if "shipped" in r and len(r) > 1}
    if not rows:
        return
    print("\n## The default against the baselines (difference in balanced accuracy, 95 % paired bootstrap)\n")
    print("| data | baseline | default minus baseline [95 % interval] | reading |\n|---|---|---|---|")
    for name, r in rows.items():
        expected, shipped = r["shipped"]
        diffs = {label: paired_difference(expected, shipped, passed) for label, (_, passed) in r.items()
                 if label != "shipped"}  # fmt: skip
        for label, d in diffs.items():
            print(f"| {name} | {label} | {d} | {reading([d])} |")
        if len(diffs) > 1:
            print(f"| {name} | every baseline | | **{reading(list(diffs.values()))}** |")


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


def reference_sets(part: str, data: Path) -> dict[str, list[Pair]]:
    sets = {
        "sgd_replies": sgd_replies(part, data),
        "sgd_built": sgd_built(part, data),
        "sgd_outcome": sgd_outcome(part, data),
        "stsb_dev": stsb(part, data, "stsb_en_dev.csv"),
        "stsb_train": stsb(part, data, "stsb_en_train.csv"),
        "breaking": breaking(part, data),
    }
    # Only the dev files have a tune half; the others' work parts were trained on.
    return {n: p for n, p in sets.items() if part != "tune" or n in ("sgd_replies", "stsb_dev")}


def shipped_comparator(
    verifier: str | None,
    embed: EmbeddingScorer,
    values: ValueComparator,
    fusion: bool = False,
    pass_threshold: float | None = None,
    unrelated_cosine: float | None = None,
) -> ReplyComparing:
    """The reply comparator ``aem score`` builds (``monitor.wiring``) by default, or with ``verifier.fusion: true``,
    on ``verifier``'s model (``pass_threshold``, ``unrelated_cosine``: other settings than the defaults)."""
    given = {"pass_threshold": pass_threshold, "unrelated_cosine": unrelated_cosine}
    cuts = {k: v for k, v in given.items() if v is not None}
    config = ScoringConfig(verifier=VerifierSettings(model=verifier, fusion=fusion, **cuts))
    return reply_comparator(config, values, embed, None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=split.DATA_DIR, help="data folder (default: benchmarks/data)")
    parser.add_argument("--part", choices=("work", "tune", "sealed"), default="sealed",
                        help="tune: the halves of the work parts that were not trained on")
    parser.add_argument("--verifier", default=None, help="model folder (default: the shipped model)")
    parser.add_argument("--scorers", default="embedding,verifier,shipped,fused,grounding",
                        help="any of embedding, verifier, shipped (the default), fused (verifier.fusion: true), "
                             "grounding, edits")
    parser.add_argument("--sets", default=None, help="comma-separated reference / judge-only sets (default: all)")
    parser.add_argument("--tune", action="store_true", help="print the best cuts on the tune halves")
    parser.add_argument("--pass-threshold", type=float, default=None,
                        help="the shipped scorer's verifier.pass_threshold (default: the config default)")
    parser.add_argument("--unrelated-cosine", type=float, default=None,
                        help="the shipped scorer's verifier.unrelated_cosine (0: the check off; default: the config's)")
    args = parser.parse_args()
    scorers = set(args.scorers.split(","))
    chosen = set(args.sets.split(",")) if args.sets else None
    part = args.part

    needs_verifier = bool(scorers & {"verifier", "shipped", "grounding", "edits"})
    scorer = load_verifier(args.verifier) if needs_verifier else None
    embed = EmbeddingScorer()
    values = ValueComparator(semantic=embed)
    sets = {n: p for n, p in reference_sets(part, args.data).items() if chosen is None or n in chosen}
    reading = {"sealed": "never read", "tune": "not trained on, chose the cuts", "work": "designed and trained on"}
    print(f"## Reply accuracy, {part} part ({reading[part]})\n")
    print("| data | scorer | pairs | balanced | pass rate (same) | fail rate (different) | right reason |")
    print("|---|---|---|---|---|---|---|")
    comparators: dict[str, ReplyComparing] = {}
    if scorer is not None:
        alone = VerifierConfig(typed_values=False, lexical_checks=False)  # the cross-encoder, no check beside it
        comparators["verifier"] = VerifierReplyComparator(scorer, alone)
        comparators["shipped"] = shipped_comparator(
            args.verifier, embed, values, pass_threshold=args.pass_threshold, unrelated_cosine=args.unrelated_cosine
        )
        comparators["fused"] = shipped_comparator(args.verifier, embed, values, fusion=True)
    work_sets = reference_sets("work", args.data) if part != "work" else sets
    results: dict[str, dict[str, tuple[list[bool], list[bool]]]] = {}  # set -> scorer -> (expected, passed)
    for name, pairs in sets.items():
        if not pairs:
            continue
        expected = [p.expected == PASS for p in pairs]
        answers = results.setdefault(name, {})
        if "embedding" in scorers:
            cos = embed.similarity([(p.gold, p.pred) for p in pairs])
            print(row(name, "embedding cos >= 0.5", pairs, [c >= 0.5 for c in cos], None))
            work = work_sets[name]
            cut = best_cut(embed.similarity([(p.gold, p.pred) for p in work]), work)
            print(row(name, f"embedding best cut {cut:.2f}", pairs, [c >= cut for c in cos], None))
            answers["cosine >= 0.5"] = (expected, [c >= 0.5 for c in cos])
            answers[f"best cosine cut {cut:.2f}"] = (expected, [c >= cut for c in cos])
        for label, comparator in comparators.items():
            if label in scorers:
                got = [outcome(m) for m in settle_all([comparator.compare_steps(p.gold, p.pred) for p in pairs])]
                print(row(name, label, pairs, [g == PASS for g in got], got), flush=True)
                if label == "shipped":
                    answers[label] = (expected, [g == PASS for g in got])
    if "grounding" in scorers and scorer is not None:
        results |= grounding(part, args.data, scorer, embed, comparators, scorers, chosen)
    against_baselines(results)
    if "edits" in scorers and scorer is not None:
        edits(part, args.data, comparators["fused" if "fused" in scorers else "shipped"])
    if args.tune:
        tune(args.data, scorer)


EDIT_KINDS = (
    "swap_participants", "change_number", "change_calendar_word", "change_pronoun", "change_action",
    "toggle_negation", "antonym", "change_noun",
)


def edits(part: str, data: Path, shipped: ReplyComparing) -> None:
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


def max_sentence_cosine(embed: EmbeddingScorer, cases: Sequence[Grounded]) -> list[float]:
    """The baseline: the reply's cosine with the premise sentence most like it."""
    out = []
    for case in cases:
        pieces = premise_sentences([line for source in case.sources for line in render_source(source)]) or ("",)
        out.append(max(embed.similarity([(piece, case.reply) for piece in pieces])))
    return out


def grounding(  # type: ignore[no-untyped-def]
    part: str, data: Path, scorer, embed: EmbeddingScorer, comparators: dict[str, ReplyComparing],
    scorers: set[str], chosen: set[str] | None,
) -> dict[str, dict[str, tuple[list[bool], list[bool]]]]:
    """The judge-only sets' figures; returns each set's answers (scorer -> expected, passed) for
    ``against_baselines``."""
    sets = {n: c for n, c in judge_sets(part, data).items() if chosen is None or n in chosen}
    results: dict[str, dict[str, tuple[list[bool], list[bool]]]] = {}
    work_sets = judge_sets("work", data) if part != "work" else sets
    print(f"\n## Judge-only grounding ({part} part)\n")
    print("| data | scorer | cases | balanced | pass rate (supported) | fail rate (not) |")
    print("|---|---|---|---|---|---|")
    cut = VerifierConfig().grounding_threshold
    readers: dict[str, Callable[[Grounded], bool]] = {
        "verifier alone, lexical window": lambda c: not unsupported_sentences(
            scorer, c.reply, [line for s in c.sources for line in render_source(s)], cut
        ),
    }
    for label in ("shipped", "fused"):
        if label in scorers:
            comparator = comparators[label]
            readers[label] = lambda c, comparator=comparator: not comparator.unsupported_facts(c.reply, list(c.sources))
    for name, cases in sets.items():
        pairs = [Pair("", "", c.expected) for c in cases]
        expected = [c.expected == PASS for c in cases]
        answers = results.setdefault(f"judge-only: {name}", {})
        if "embedding" in scorers:
            work = work_sets[name]
            best = best_cut(max_sentence_cosine(embed, work), [Pair("", "", c.expected) for c in work])
            cos = max_sentence_cosine(embed, cases)
            bal, tpr, tnr = balanced(pairs, [v >= best for v in cos])
            print(f"| {name} | max sentence cosine >= {best:.2f} | {len(cases)} | {bal:.3f} | {tpr:.3f} | {tnr:.3f} |")
            answers[f"max sentence cosine {best:.2f}"] = (expected, [v >= best for v in cos])
        for label, read in readers.items():
            passed = [read(c) for c in cases]
            bal, tpr, tnr = balanced(pairs, passed)
            print(f"| {name} | {label} | {len(cases)} | {bal:.3f} | {tpr:.3f} | {tnr:.3f} |", flush=True)
            if label == "shipped":
                answers[label] = (expected, passed)
    return results


def tune(data: Path, scorer) -> None:  # type: ignore[no-untyped-def]
    """The pass threshold that maximises the mean balanced accuracy of the tune halves."""
    sets = [sgd_replies("tune", data), stsb("tune", data, "stsb_en_dev.csv")]
    comparators: dict[tuple[float, bool], list[float]] = {}
    for cut, both in [(c, b) for b in (False, True) for c in (0.01, 0.02, 0.03, *np.arange(0.05, 0.85, 0.05))]:
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
