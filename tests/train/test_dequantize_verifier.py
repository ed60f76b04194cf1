"""train/dequantize_verifier.py: the shipped int8 verifier's float weights, from which a further stage trains. Exported
again they give the shipped file byte for byte, and a stage trained from them lists the shipped runs first."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from monitor.embeddings.int8_export import file_sha256
from tests.conftest import REPO

SHIPPED = REPO / "monitor" / "verifier" / "model"


def test_the_float_weights_export_to_the_shipped_file_byte_for_byte(tmp_path: Path) -> None:
    from train.dequantize_verifier import dequantize
    from train.export_onnx import export

    checkpoint = dequantize(SHIPPED, tmp_path / "float")
    export(checkpoint, tmp_path / "again", 128)
    card = json.loads((SHIPPED / "verifier.json").read_text())
    assert file_sha256(tmp_path / "again" / "verifier-int8.onnx") == card["sha256"]
    assert json.loads((checkpoint / "dequantized_from.json").read_text())["model_id"] == card["model_id"]


def test_another_file_than_the_card_names_is_refused(tmp_path: Path) -> None:
    from train.dequantize_verifier import dequantize

    model = tmp_path / "model"
    shutil.copytree(SHIPPED, model)
    with (model / "verifier-int8.onnx").open("ab") as f:
        f.write(b"\0")
    with pytest.raises(SystemExit, match="sha256 differs"):
        dequantize(model, tmp_path / "float")


def test_a_stage_trained_from_the_float_weights_lists_the_shipped_runs_first(tmp_path: Path) -> None:
    from train.export_onnx import training_runs

    shipped = json.loads((SHIPPED / "verifier.json").read_text())
    start = tmp_path / "verifier-shipped"
    start.mkdir()
    source = {"model_id": shipped["model_id"], "sha256": shipped["sha256"], "training": shipped["training"]}
    (start / "dequantized_from.json").write_text(json.dumps(source))
    stage = tmp_path / "verifier-stage3"
    stage.mkdir()
    args = {"epochs": "1.0", "batch": "32", "max_length": "128", "lr": "1e-05", "seed": "41",
            "pairs": "train/out/stage3_pairs.jsonl", "out": str(stage), "init": str(start), "check_every": "200",
            "resume": "True"}  # fmt: skip
    log = {"args": args, "pairs": 100, "pairs_sha256": "c" * 64, "seconds": 60.2}
    (stage / "training_log.json").write_text(json.dumps(log))
    runs = training_runs(stage)
    assert runs[: len(shipped["training"])] == shipped["training"]
    assert runs[-1]["stage"] == len(shipped["training"]) + 1
    assert (runs[-1]["seed"], runs[-1]["pairs"], runs[-1]["lr"]) == (41, 100, 1e-05)
