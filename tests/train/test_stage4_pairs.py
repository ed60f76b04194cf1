"""The fourth stage's pairs (train/stage4_pairs.py): STS-B pairs scored 4 or more are the same and 2 or less a
change, both ways, the scores between left out."""

from __future__ import annotations

from train import stage4_pairs

SAME, CHANGED = 0, 1
ROWS = [
    ("A man is skating down a set of stairs.", "The man is skiing down a snowy hill.", 1.6),
    ("A cat looks at the camera.", "A cat is looking at the camera.", 4.6),
    ("A woman slices an onion.", "A woman is cooking.", 2.8),  # between: left out
    ("Oil falls in Asian trade.", "Stocks rise in Europe.", 0.4),
]


def test_the_band_pairs_read_same_from_4_and_change_up_to_2_both_ways() -> None:
    pairs = stage4_pairs.band_pairs(ROWS)
    assert len(pairs) == 6
    by_text = {(p["premise"], p["hypothesis"]): p["label"] for p in pairs}
    assert by_text[ROWS[0][:2]] == by_text[ROWS[0][1::-1]] == CHANGED
    assert by_text[ROWS[1][:2]] == by_text[ROWS[1][1::-1]] == SAME
    assert by_text[ROWS[3][:2]] == CHANGED
    assert not any("onion" in p["premise"] or "onion" in p["hypothesis"] for p in pairs)
    assert {p["source"] for p in pairs} == {"stsb_band"}
