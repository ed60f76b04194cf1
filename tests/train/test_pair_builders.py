"""The training pair builders (train/build_pairs.py, train/perturb.py, train/entailment_pairs.py) on a few rows of
each kind: every pair has the four fields, the label its source stands for, and a seed gives the same pairs."""

from __future__ import annotations

import random
from typing import Any

import pytest

from train import build_pairs, entailment_pairs, perturb

SAME, CHANGED, DROPPED = 0, 1, 2
LABELS = {
    "sgd_same": {SAME}, "sgd_changed": {CHANGED}, "sgd_dropped": {DROPPED}, "sgd_added": {CHANGED},
    "sgd_edit": {CHANGED}, "sgd_grounded": {DROPPED}, "sgd_ungrounded": {CHANGED}, "stsb": {SAME, CHANGED},
    "edit_changed": {CHANGED}, "edit_dropped": {DROPPED}, "edit_added": {CHANGED}, "passage_same": {SAME},
    "passage_changed": {CHANGED}, "passage_dropped": {DROPPED}, "reply_pairs": {SAME, CHANGED, DROPPED},
    "begin": {CHANGED, DROPPED}, "identical": {SAME}, "nli": {CHANGED, DROPPED}, "breaking": {SAME, CHANGED, DROPPED},
    "summedits": {CHANGED, DROPPED}, "citod": {CHANGED, DROPPED},
}


def _act(slot: str, *values: str) -> dict[str, Any]:
    return {"act": "INFORM", "slot": slot, "values": list(values), "canonical_values": list(values)}


def _turn(dialogue: str, utterance: str, *acts: dict[str, Any]) -> dict[str, Any]:
    return {"dialogue_id": dialogue, "utterance": utterance, "user": "Book a table at Nopa.", "acts": list(acts)}


TURNS = [
    _turn("d1", "Your table at Nopa is booked for 7 pm.", _act("restaurant_name", "Nopa"), _act("time", "7 pm")),
    _turn("d2", "Booked: Nopa at 7 pm.", _act("restaurant_name", "Nopa"), _act("time", "7 pm")),
    _turn("d3", "Your table at Nopa is booked for 8 pm.", _act("restaurant_name", "Nopa"), _act("time", "8 pm")),
    _turn("d4", "Nopa at 8 pm it is.", _act("restaurant_name", "Nopa"), _act("time", "8 pm")),
    _turn("d5", "Your table at Nopa is booked.", _act("restaurant_name", "Nopa")),
    _turn("d6", "All set at Nopa.", _act("restaurant_name", "Nopa")),
]
STSB = [
    ("The meeting starts at 3 pm on Monday.", "The meeting begins on Monday at 3 pm.", 4.6),
    ("The store opens early on Friday and closes late on Sunday.", "On Friday the store opens early and on Sunday it "
     "closes late.", 4.2),
    ("Alice paid Bob 20 dollars for the old bike.", "Alice gave Bob 20 dollars for the old bike.", 4.8),
    ("A man is playing a guitar.", "A woman is slicing an onion.", 0.2),
    ("The cat sat on the mat.", "A dog ran in the park.", 2.5),
]


def _check(pairs: list[dict[str, Any]]) -> None:
    assert pairs
    for pair in pairs:
        assert set(pair) == {"premise", "hypothesis", "label", "source"}
        assert isinstance(pair["premise"], str) and isinstance(pair["hypothesis"], str) and pair["hypothesis"]
        assert pair["label"] in LABELS[pair["source"]], pair


@pytest.fixture
def small_targets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_pairs, "TARGETS", dict.fromkeys(build_pairs.TARGETS, 4))
    monkeypatch.setattr(entailment_pairs, "TARGETS", dict.fromkeys(entailment_pairs.TARGETS, 2))


def test_sgd_pairs_have_their_sources_labels_and_a_seed_gives_the_same(small_targets: None) -> None:
    pairs = list(build_pairs.sgd_pairs(TURNS, random.Random(13)))
    _check(pairs)
    assert pairs == list(build_pairs.sgd_pairs(TURNS, random.Random(13)))
    by_source = {p["source"] for p in pairs}
    assert {"sgd_same", "sgd_changed", "sgd_edit", "sgd_grounded", "sgd_ungrounded"} <= by_source
    assert by_source & {"sgd_dropped", "sgd_added"}
    for pair in pairs:
        if pair["source"] == "sgd_changed":  # the other time, in another dialogue
            assert {"7 pm" in pair["premise"], "7 pm" in pair["hypothesis"]} == {True, False}
        if pair["source"] == "sgd_grounded":
            assert pair["premise"].startswith("User: Book a table at Nopa.\nTool result: restaurant name: Nopa")


def test_stsb_pairs_and_their_edits(small_targets: None) -> None:
    pairs = list(build_pairs.stsb_pairs(STSB, random.Random(13)))
    _check(pairs)
    stsb = [(p["premise"], p["hypothesis"], p["label"]) for p in pairs if p["source"] == "stsb"]
    assert stsb.count((STSB[0][0], STSB[0][1], SAME)) == stsb.count((STSB[0][1], STSB[0][0], SAME)) == 2
    assert (STSB[3][0], STSB[3][1], CHANGED) in stsb and not any(STSB[4][0] in (a, b) for a, b, _ in stsb)
    edits = [p for p in pairs if p["source"] in {"edit_changed", "edit_dropped", "passage_changed"}]
    assert edits and all(p["premise"] != p["hypothesis"] for p in edits)
    assert sum(p["source"] == "edit_changed" for p in pairs) == 4


def test_reply_begin_and_identical_pairs() -> None:
    rows = [{"gold": "It is $40.", "predicted": "It is $45.", "kind": "changed"},
            {"gold": "Booked for 2.", "predicted": "Booked.", "kind": "dropped"}]
    replies = list(build_pairs.reply_pairs(rows))
    _check(replies)
    assert [p["label"] for p in replies] == [CHANGED] * 3 + [DROPPED] * 3
    begin = [{"knowledge": "Paris is in France.", "response": "Paris is French.", "label": "Fully attributable"},
             {"knowledge": "Paris is in France.", "response": "Hi!", "label": "Generic"},
             {"knowledge": "Paris is in France.", "response": "Paris is in Spain.", "label": "Not fully attributable"}]
    grounded = list(build_pairs.begin_pairs(begin))
    _check(grounded)
    assert [p["label"] for p in grounded] == [DROPPED] * 3 + [CHANGED] * 3
    same = list(build_pairs.identical_pairs([s for s, _, _ in STSB], random.Random(13)))
    _check(same)
    assert all(p["premise"] == p["hypothesis"] for p in same)


def test_entailment_and_grounding_pairs(small_targets: None) -> None:
    rng = random.Random(13)
    nli = [{"premise": "A man sleeps.", "hypothesis": "Someone sleeps.", "label": "entailment"},
           {"premise": "A man sleeps.", "hypothesis": "A man runs.", "label": "not_entailment"}]
    breaking = [
        {"premise": "He is happy.", "hypothesis": "He is glad.", "label": "entailment", "category": "synonyms"},
        {"premise": "He is happy.", "hypothesis": "He is sad.", "label": "contradiction", "category": "antonyms"},
    ]
    doc = "The plant opened in 1990. It makes steel. It employs 400 people. Its owner is Acme. Sales rose."
    summedits = [{"doc": doc, "summary": "The plant employs 400 people.", "label": 1},
                 {"doc": doc, "summary": "The plant employs 500 people.", "label": 0}]
    kb = {"items": [{"poi": "Cafe Uno", "distance": "2 miles", "traffic": "-"},
                    {"poi": "Shell", "distance": "5 miles"}]}
    dialogue = [{"turn": "driver", "utterance": "How far is Cafe_Uno?"},
                {"turn": "assistant", "utterance": "Cafe Uno is 2 miles away."}]
    citod = [{"kb": kb, "dialogue": dialogue, "kb_inconsistent": False, "query_inconsistent": False,
              "history_inconsistent": False},
             {"kb": kb, "dialogue": dialogue, "kb_inconsistent": True, "query_inconsistent": False,
              "history_inconsistent": False}]
    pairs = [*entailment_pairs.nli_pairs(nli, rng), *entailment_pairs.breaking_pairs(breaking, rng),
             *entailment_pairs.summedits_pairs(summedits), *entailment_pairs.citod_pairs(citod)]
    _check(pairs)
    labels = {(p["source"], p["hypothesis"]): p["label"] for p in pairs}
    assert labels[("nli", "Someone sleeps.")] == DROPPED and labels[("nli", "A man runs.")] == CHANGED
    assert labels[("breaking", "He is glad.")] == SAME and labels[("breaking", "He is sad.")] == CHANGED
    summed = [p for p in pairs if p["source"] == "summedits"]
    assert [p["label"] for p in summed] == [DROPPED, DROPPED, CHANGED, CHANGED]
    assert all("It employs 400 people." in p["premise"] and p["premise"] != doc for p in summed)
    cited = [p for p in pairs if p["source"] == "citod"]
    assert [p["label"] for p in cited] == [DROPPED] * 3 + [CHANGED] * 3
    assert cited[0]["premise"].startswith("User: How far is Cafe Uno?\nTool result: poi: Cafe Uno; distance: 2 miles.")


def test_each_edit_changes_the_sentence_or_does_not_apply() -> None:
    text = "Alice paid Bob 20 dollars on Monday and the store was open."
    for edit in (*perturb.CHANGES, *perturb.DROPS):
        edited = edit(text, random.Random(13))
        assert edited is None or (edited != text and edited.strip())
    assert perturb.change_number(text, random.Random(13)) != text
    assert perturb.drop_conjunct(text, random.Random(13)) == "Alice paid Bob 20 dollars on Monday."
