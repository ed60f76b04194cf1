"""A fifth stage's pairs (train/stage5_pairs.py, tried): a reply's noun changed to another of its kind and a
reversed outcome are changes, same-acts replies of two dialogues are the same, beside the fourth stage's STS-B
pairs and a replay of the first stage; a seed gives the same pairs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from train import split, stage4_pairs, stage5_pairs

SAME, CHANGED = 0, 1


def act(slot: str, *values: str, kind: str = "INFORM") -> dict[str, object]:
    return {"service": "Travel_1", "act": kind, "slot": slot, "values": list(values), "canonical_values": list(values)}


BOOKED = [act("", kind="NOTIFY_SUCCESS")]
TURNS = [
    {"dialogue_id": "d1", "utterance": "I added one suitcase to your booking.", "acts": [act("bags", "1")]},
    {"dialogue_id": "d2", "utterance": "One suitcase is now on your booking.", "acts": [act("bags", "1")]},
    {"dialogue_id": "d3", "utterance": "Your table has been booked.", "acts": BOOKED},
    {"dialogue_id": "d4", "utterance": "The table is booked for you.", "acts": BOOKED},
    *({"dialogue_id": f"t{i}", "utterance": "Is the trunk big enough?", "acts": []} for i in range(3)),
]  # fmt: skip
ROWS = [
    ("A man is skating down a set of stairs.", "The man is skiing down a snowy hill.", 1.6),
    ("A cat looks at the camera.", "A cat is looking at the camera.", 4.6),
]
FIRST = [{"premise": f"p{i}", "hypothesis": f"h{i}", "label": SAME, "source": "stsb"} for i in range(10)]


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    def turns(part: str, data: Path = split.DATA_DIR) -> list[dict[str, Any]]:
        return [dict(t) for t in TURNS]

    monkeypatch.setattr(split, "sgd_turns", turns)
    monkeypatch.setattr(stage5_pairs, "stsb_rows", lambda data: ROWS)
    monkeypatch.setattr(stage4_pairs, "build", lambda seed, data: [dict(p) for p in FIRST])  # the first stage


@pytest.mark.usefixtures("small")
def test_each_source_has_its_label_and_a_seed_gives_the_same_pairs() -> None:
    pairs = stage5_pairs.stage5_pairs(seed=47, replay=4)
    by_source: dict[str, set[int]] = {}
    for p in pairs:
        by_source.setdefault(p["source"], set()).add(p["label"])
    assert by_source["sgd_kind"] == {CHANGED} and by_source["sgd_reversed"] == {CHANGED}
    assert by_source["sgd_same"] == {SAME} and by_source["stsb_band"] == {SAME, CHANGED}
    assert by_source["sgd_outcome_same"] == {SAME}
    kinds = {(p["premise"], p["hypothesis"]) for p in pairs if p["source"] == "sgd_kind"}
    assert ("I added one suitcase to your booking.", "I added one trunk to your booking.") in kinds  # both ways
    assert ("I added one trunk to your booking.", "I added one suitcase to your booking.") in kinds
    assert sum(p["source"] == "replay" for p in pairs) == 4
    assert not any("?" in p["premise"] for p in pairs if p["source"] in ("sgd_kind", "sgd_reversed"))
    assert stage5_pairs.stage5_pairs(seed=47, replay=4) == pairs
