"""The fused reply decision: its parameters are checked where they are loaded, its score is P(right) and the cut
decides on it, and a refit towards shipped parameters moves only as far as the labels ask."""

from __future__ import annotations

import json
import math
import os
import random
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from monitor.embeddings import EmbeddingScorer
from monitor.equivalence import ValueComparator
from monitor.scoring.config import ScoringConfig, VerifierSettings
from monitor.verifier import VerifierReplyComparator, VerifierUnavailable
from monitor.verifier.fusion import (
    BOOSTING,
    FEATURES,
    FUSION_FILE,
    Evidence,
    Fusion,
    FusionUnavailable,
    Tree,
    fit,
    load_fusion,
    refit,
)
from monitor.verifier.model import MODEL_DIR, Probabilities
from monitor.wiring import reply_comparator


@pytest.fixture(scope="module")
def embed() -> EmbeddingScorer:
    return EmbeddingScorer()


@pytest.fixture(scope="module")
def shipped(embed: EmbeddingScorer) -> VerifierReplyComparator:
    config = ScoringConfig(verifier=VerifierSettings(fusion=True))
    comparator = reply_comparator(config, ValueComparator(semantic=embed), embed, None)
    assert isinstance(comparator, VerifierReplyComparator)
    return comparator


def _evidence(rng: random.Random, right: bool) -> Evidence:
    same = rng.uniform(0.5, 0.95) if right else rng.uniform(0.01, 0.5)
    changed = (1 - same) * rng.uniform(0.2, 0.9)
    probs = Probabilities(same, changed, 1 - same - changed)
    return Evidence(rng.uniform(0.6, 0.95), rng.uniform(0.6, 0.95), probs, probs)


def test_fusion_on_decides_by_the_fused_decision(shipped: VerifierReplyComparator, embed: EmbeddingScorer) -> None:
    default = reply_comparator(ScoringConfig(), ValueComparator(semantic=embed), embed, None)
    assert isinstance(default, VerifierReplyComparator) and default.fusion is None  # opt-in (docs/verifier.md)
    assert shipped.fusion is not None and shipped.semantic is not None
    match = shipped.compare("Your table is booked for 7 pm.", "I booked your table for 7 pm.")
    assert match.decision is not None and match.decision.check == "fused"
    assert set(match.decision.evidence or {}) == set(FEATURES)
    assert 0.0 <= match.score <= 1.0


def test_the_score_is_p_right_and_the_cut_decides_on_it(shipped: VerifierReplyComparator) -> None:
    gold, pred = "The museum opens at nine on weekdays.", "On weekdays the museum opens at 9."
    score = shipped.compare(gold, pred).score
    above = replace(shipped, config=replace(shipped.config, fused_threshold=min(score + 0.01, 1.0)))
    below = replace(shipped, config=replace(shipped.config, fused_threshold=max(score - 0.01, 0.0)))
    assert not above.compare(gold, pred).equivalent
    assert below.compare(gold, pred).equivalent


def test_parameters_fitted_for_other_features_or_broken_are_refused() -> None:
    leaf = Tree((0,), (0.0,), (-1,), (-1,), (0.3,))
    data = Fusion((leaf,), 0.1, "m").as_dict()
    assert Fusion.from_dict(data) == Fusion((leaf,), 0.1, "m")
    with pytest.raises(FusionUnavailable, match="features"):
        Fusion.from_dict({**data, "features": ["cosine"]})
    with pytest.raises(FusionUnavailable, match="finite"):
        Fusion.from_dict({**data, "baseline": math.nan})
    loop = {"feature": [0, 0], "threshold": [0.5, 0.0], "left": [0, -1], "right": [1, -1], "value": [0.0, 1.0]}
    with pytest.raises(FusionUnavailable, match="outside"):
        Fusion.from_dict({**data, "trees": [loop]})


def test_the_exported_trees_predict_what_scikit_learn_predicts() -> None:
    import numpy as np
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = random.Random(2)
    rows = [_evidence(rng, i % 3 != 0) for i in range(300)]
    right = [i % 3 != 0 for i in range(300)]
    fusion = fit(rows, right, "m")
    x = np.array([e.vector() for e in rows])
    model = HistGradientBoostingClassifier(**BOOSTING).fit(x, np.array(right, dtype=int))
    expected = model.predict_proba(x)[:, 1]
    assert max(abs(fusion.p_right(e) - p) for e, p in zip(rows, expected, strict=True)) < 1e-9


def _model_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    shutil.copytree(MODEL_DIR, folder)
    return folder


def test_a_changed_fusion_file_is_refused(tmp_path: Path) -> None:
    folder = _model_copy(tmp_path)
    data = json.loads((folder / FUSION_FILE).read_text())
    data["intercept"] += 1.0
    (folder / FUSION_FILE).write_text(json.dumps(data))
    with pytest.raises(VerifierUnavailable, match="fusion_sha256"):
        load_fusion(str(folder))


def test_a_model_folder_without_fusion_decides_by_the_verifier_alone(tmp_path: Path) -> None:
    folder = _model_copy(tmp_path)
    (folder / FUSION_FILE).unlink()
    assert load_fusion(str(folder)) is None
    comparator = reply_comparator(
        ScoringConfig(verifier=VerifierSettings(model=str(folder), fusion=True)), ValueComparator(), EmbeddingScorer(),
        None,
    )
    match = comparator.compare("The shop closes at 6 pm.", "The shop is closed at 6 pm.")
    assert match.decision is not None and match.decision.check == "verifier"


def test_a_refit_towards_the_shipped_fit_moves_with_the_labels_and_no_further() -> None:
    rng = random.Random(1)
    rows = [_evidence(rng, i % 2 == 0) for i in range(400)]
    right = [i % 2 == 0 for i in range(400)]
    shipped = fit(rows, right, "m")
    flipped = [not r for r in right[:60]]  # 60 labels that say the opposite
    gentle = refit(shipped, rows[:60], flipped, strength=1e4)
    strong = refit(shipped, rows[:60], flipped, strength=0.01)
    test = rows[200:260]

    def agreement(f: Fusion) -> float:
        return sum((f.p_right(e) >= 0.5) == (shipped.p_right(e) >= 0.5) for e in test) / len(test)

    assert agreement(gentle) > agreement(strong)  # weak evidence keeps the shipped decision
    assert agreement(strong) < 0.5  # labels that are many and consistent move it
    assert gentle.source == strong.source == "calibration" and gentle.trees == shipped.trees


def test_aem_score_with_fusion_on_writes_the_fused_verdicts(tmp_path: Path, capsys) -> None:
    """The fused decision end to end: its verdict record (with the evidence it read) is a valid verdict."""
    from monitor.cli import main

    dialog = {"dialog_id": "d", "turns": [
        {"turn_no": 1, "turn": "Agent", "gold_turn": {"response": "Your table at Nopa is booked for Friday."},
         "predict_turn": {"response": "I booked your table at Nopa for Friday."}},
        {"turn_no": 2, "turn": "Agent", "gold_turn": {"response": "The museum opens at nine and closes at five."},
         "predict_turn": {"response": "The museum is closed all week."}},
    ]}  # fmt: skip
    (tmp_path / "d.json").write_text(json.dumps(dialog), encoding="utf-8")
    (tmp_path / "fused.yaml").write_text("scoring:\n  verifier:\n    fusion: true\n", encoding="utf-8")
    code = main(["score", str(tmp_path / "d.json"), "--config", str(tmp_path / "fused.yaml"), "--format", "json"])
    [result] = json.loads(capsys.readouterr().out)["dialogs"]
    assert code in (0, 1)  # scored (1: a turn failed), not an error
    first, second = result["turns"]
    assert first["decision"]["check"] == "fused" and set(first["decision"]["evidence"]) >= {"cosine", "same"}
    assert first["success"] is True and second["success"] is False
    assert 0.0 <= second["score"] < 0.5 <= first["score"] <= 1.0
