"""train/export_onnx.py writes the model card that ships: every field but the fused decision's (train/fit_fusion.py
adds those) comes from the training run's log and the pairs' summary, none by hand."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import REPO

SHIPPED = REPO / "monitor" / "verifier" / "model"


def model_card(*args: object) -> dict:
    """train.export_onnx's, imported when a test runs: that module imports torch (about 2 s of CPU at collection)."""
    from train.export_onnx import model_card

    return model_card(*args)


def _checkpoint(root: Path, name: str, log: dict, pairs: int, sha: str) -> Path:
    folder = root / "train" / "out" / name
    folder.mkdir(parents=True)
    (folder / "training_log.json").write_text(json.dumps(log))
    (folder.parent / "pairs.summary.json").write_text(json.dumps({"pairs": pairs, "sha256": sha, "seed": 13}))
    return folder


def test_the_exported_card_is_the_shipped_one(tmp_path: Path) -> None:
    """The shipped model's own training log, continued from the dequantised earlier model whose card lists the
    runs before it (train/dequantize_verifier.py), exports to the shipped card field for field."""
    shipped = json.loads((SHIPPED / "verifier.json").read_text())
    *earlier, last_run = shipped["training"]
    log = json.loads((SHIPPED / "training_log.json").read_text())
    init = log["args"]["init"]  # the dequantised earlier model the shipped model's last run started from
    assert init.startswith("train/out/")
    start = tmp_path / init
    start.mkdir(parents=True)
    (start / "dequantized_from.json").write_text(json.dumps({"model_id": "m", "sha256": "s", "training": earlier}))
    log["args"]["init"] = str(start)
    last = tmp_path / log["args"]["out"]
    last.mkdir()
    (last / "training_log.json").write_text(json.dumps(log))
    card = model_card(shipped["sha256"], shipped["max_length"], last)
    assert card["training"][-1] == last_run
    assert card == {k: v for k, v in shipped.items() if not k.startswith("fusion_")}
    assert list(card) == [k for k in shipped if not k.startswith("fusion_")]


def test_a_run_started_from_another_checkpoint_lists_both_runs(tmp_path: Path) -> None:
    args = {"epochs": "1.0", "batch": "32", "max_length": "128", "lr": "6e-05", "seed": "13",
            "pairs": "train/out/pairs.jsonl", "out": "train/out/stage1", "init": "None", "check_every": "500",
            "resume": "True"}
    first = {"args": args, "pairs": 10, "pairs_sha256": "a" * 64, "seconds": 99.6}
    _checkpoint(tmp_path, "stage1", first, 10, "a" * 64)
    second = {**args, "epochs": "0.5", "lr": "2e-05", "seed": "7", "out": str(REPO / "train/out/stage2"),
              "pairs": "train/out/stage2_pairs.jsonl",
              "init": str(tmp_path / "train/out/stage1")}
    stage2 = _checkpoint(tmp_path, "stage2", {"args": second, "pairs": 20, "pairs_sha256": "b" * 64, "seconds": 10},
                         20, "b" * 64)
    card = model_card("c" * 64, 128, stage2)
    runs = card["training"]
    assert (card["training_pairs"], card["training_pairs_sha256"]) == (20, "b" * 64)  # the last run's
    assert [(r["stage"], r["pairs"], r["pairs_sha256"][0], r["seed"], r["epochs"], r["lr"], r["seconds"])
            for r in runs] == [(1, 10, "a", 13, 1.0, 6e-05, 100), (2, 20, "b", 7, 0.5, 2e-05, 10)]
    assert runs[1]["command"] == (
        "python -m train.train_verifier --epochs 0.5 --lr 2e-5 --seed 7 --pairs train/out/stage2_pairs.jsonl --out "
        "train/out/stage2 --init train/out/stage1 && python -m train.export_onnx --checkpoint train/out/stage2"
    )  # trained on other pairs than train/build_pairs.py writes: the command that made them is their summary's
