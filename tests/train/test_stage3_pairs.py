"""The third stage's pairs (train/stage3_pairs.py): two values of two acts trade places (a list's own order is no
change), the noun of a noun phrase becomes another of its kind the turns use, courtesies and questions are left
alone, and a seed gives the same pairs."""

from __future__ import annotations

import random

from train import stage3_pairs

SAME, CHANGED = 0, 1


def act(slot: str, *values: str) -> dict[str, object]:
    return {"service": "Flights_1", "act": "INFORM", "slot": slot, "values": list(values)}


FLIGHT = {
    "dialogue_id": "d1",
    "utterance": "Your flight from Toronto to Vancouver leaves at 8 am and returns at 6 pm.",
    "acts": [act("origin_city", "Toronto"), act("destination_city", "Vancouver"),
             act("outbound_departure_time", "8 am"), act("return_departure_time", "6 pm")],
}  # fmt: skip
OFFERED = {
    "dialogue_id": "d2",
    "utterance": "There are 2 movies showing today: Dumbo and Hellboy.",
    "acts": [act("movie_name", "Dumbo", "Hellboy")],
}


def test_two_acts_values_of_one_kind_trade_places_and_a_list_keeps_its_order() -> None:
    seen = {stage3_pairs.swap_values(FLIGHT, random.Random(seed)) for seed in range(20)}
    assert seen == {
        "Your flight from Vancouver to Toronto leaves at 8 am and returns at 6 pm.",
        "Your flight from Toronto to Vancouver leaves at 6 pm and returns at 8 am.",
    }  # a city for a city, a time for a time; never a city for a time
    assert stage3_pairs.swap_values(OFFERED, random.Random(0)) is None


def test_a_kind_change_uses_the_turns_own_words_and_leaves_courtesies_alone() -> None:
    bag = {"dialogue_id": "d3", "utterance": "I added one suitcase to your booking.", "acts": [act("bags", "1")]}
    courtesy = {"dialogue_id": "d4", "utterance": "Have a nice day.", "acts": [{"act": "GOODBYE", "slot": ""}]}
    change = stage3_pairs.kind_changer({"trunk", "backpack"})
    edited = change(bag, random.Random(1))
    assert edited is not None and edited != bag["utterance"]
    assert edited.replace("trunk", "suitcase").replace("backpack", "suitcase") == bag["utterance"]
    assert change(courtesy, random.Random(1)) is None
    assert stage3_pairs.kind_changer(set())(bag, random.Random(1)) is None  # no word of the turns to use


def test_edited_pairs_are_changes_both_ways_without_questions_and_a_seed_repeats() -> None:
    asked = {**FLIGHT, "dialogue_id": "d5", "utterance": FLIGHT["utterance"].replace(".", "?")}
    edit = stage3_pairs.swap_values
    pairs = stage3_pairs.edited_pairs([FLIGHT, asked], random.Random(2), edit, CHANGED, "sgd_swap", 10)
    assert len(pairs) == 2 and {p["label"] for p in pairs} == {CHANGED}
    assert (pairs[0]["premise"], pairs[0]["hypothesis"]) == (pairs[1]["hypothesis"], pairs[1]["premise"])
    again = stage3_pairs.edited_pairs([FLIGHT, asked], random.Random(2), edit, CHANGED, "sgd_swap", 10)
    assert pairs == again
