"""The second stage's pairs (train/stage2_pairs.py): a reported outcome reversed on one side is a change, on both
sides (or worded otherwise) it is not, and a seed gives the same pairs."""

from __future__ import annotations

import random

from train import perturb, stage2_pairs

SAME, CHANGED = 0, 1
TURNS = [
    {"dialogue_id": "d1", "utterance": "Your table at Nopa is booked for 7 pm.", "acts": []},
    {"dialogue_id": "d2", "utterance": "Would you like a table at Nopa?", "acts": []},
    {"dialogue_id": "d3", "utterance": "Your loan was approved.", "acts": []},
]
SAME_ACTS = [
    {"premise": "Your table at Nopa is booked for 7 pm.", "hypothesis": "I reserved Nopa for 7 pm.", "label": SAME},
    {"premise": "Your loan was approved.", "hypothesis": "The loan is approved and paid out.", "label": SAME},
    {"premise": "Nopa it is.", "hypothesis": "All set at Nopa.", "label": SAME},
]


def test_one_reversed_side_is_a_change_both_ways_and_questions_are_left_out() -> None:
    pairs = stage2_pairs.reversed_pairs(TURNS, random.Random(3))
    assert {p["label"] for p in pairs} == {CHANGED}
    assert not any("?" in p["premise"] or "?" in p["hypothesis"] for p in pairs)
    assert len(pairs) == 4  # two reporting turns, each both ways
    for p in pairs:
        assert p["premise"] != p["hypothesis"]
        assert {p["premise"], p["hypothesis"]} & {t["utterance"] for t in TURNS}


def test_both_sides_reversed_stay_the_same_and_each_side_lost_its_outcome() -> None:
    pairs = stage2_pairs.reversed_same_pairs(SAME_ACTS, random.Random(3))
    assert {p["label"] for p in pairs} == {SAME}
    # only the first pair has exactly one outcome word a side ("paid" makes two in the second; none in the third)
    assert len(pairs) == 2
    premise, hypothesis = pairs[0]["premise"], pairs[0]["hypothesis"]
    assert "booked" not in premise and "reserved" not in hypothesis
    assert perturb.outcome_words(premise) == perturb.outcome_words(hypothesis) == 1
    assert (pairs[1]["premise"], pairs[1]["hypothesis"]) == (hypothesis, premise)


def test_outcome_same_needs_an_outcome_on_one_side_and_a_seed_gives_the_same_pairs() -> None:
    same = stage2_pairs.outcome_same_pairs(SAME_ACTS)
    assert {p["source"] for p in same} == {"sgd_outcome_same"} and len(same) == 4
    first = stage2_pairs.reversed_same_pairs(SAME_ACTS, random.Random(5))
    assert first == stage2_pairs.reversed_same_pairs(SAME_ACTS, random.Random(5))
