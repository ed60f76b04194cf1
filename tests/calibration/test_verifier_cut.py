"""The reply verifier's pass cut is one of the cuts calibration reads and fits, from a real scored reply."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from monitor.calibration.cuts import deciding_scores, low_confidence
from monitor.models.dialog import Dialog
from monitor.scoring import ScoringConfig
from monitor.wiring import build_engine


def reply_record(gold: str, pred: str) -> dict:
    dialog = Dialog.model_validate(
        {"dialog_id": "d", "turns": [{"turn_no": 1, "turn": "Agent", "gold_turn": {"response": gold},
                                      "predict_turn": {"response": pred}}]}
    )  # fmt: skip
    [turn] = build_engine(ScoringConfig(), embed=False).score_dialog(dialog).turns
    return turn.model_dump(mode="json")


def test_a_verifier_verdict_is_read_at_its_pass_cut() -> None:
    record = reply_record("The refund was approved.", "Your refund has been approved.")
    scores = deciding_scores(record)
    assert set(scores) == {"verifier_pass"}
    assert scores["verifier_pass"] == round(record["decision"]["probabilities"]["same"], 4)
    cut_at_score = {"scoring": {"verifier": {"pass_threshold": scores["verifier_pass"]}}}
    far_cut = {"scoring": {"verifier": {"pass_threshold": 0.0 if scores["verifier_pass"] > 0.5 else 1.0}}}
    assert low_confidence(record, cut_at_score) and not low_confidence(record, far_cut)


def test_an_exact_reply_has_no_deciding_score() -> None:
    assert deciding_scores(reply_record("Done.", "done.")) == {}
