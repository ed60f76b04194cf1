"""The shipped verifier's float weights, rebuilt from its int8 ONNX file: the start of a further training stage.

    .venv/bin/python -m train.dequantize_verifier --out train/out/verifier-shipped [--model monitor/verifier/model]

A training stage continues from a float checkpoint (``train_verifier --init DIR``). The checkpoints of the runs
that made the shipped model are not kept (only the int8 file ships), and rebuilding them (``train/make_model.sh``)
takes about two hours. This writes a transformers checkpoint whose weights are the int8 file's, dequantised:
``weight = (int8 - zero_point) * scale`` for every quantised MatMul (per output column) and embedding table,
the layer norms and biases as they are. Exported again (``train.export_onnx``) it gives the shipped file byte for
byte (same sha256; ``tests/train/test_dequantize_verifier.py``), so a stage started from it starts from exactly
the model that ships. The model card's sha256 is checked first: another file is refused.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from monitor.embeddings.int8_export import file_sha256
from monitor.verifier.model import CARD_FILE, MODEL_DIR
from train.export_onnx import DEQUANTIZED

ONNX_FILE = "verifier-int8.onnx"
_PREFIX = "inner."  # the export wraps the classifier as ``inner`` (train/export_onnx.py)


def float_weights(model: Any) -> dict[str, np.ndarray]:
    """The float weights of an int8 verifier graph (``onnx.ModelProto``), by the transformers parameter name."""
    from onnx import numpy_helper

    init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    users: dict[str, list[Any]] = {}
    for node in model.graph.node:
        for name in node.input:
            users.setdefault(name, []).append(node)

    def dequantised(base: str) -> np.ndarray:
        q = init[base + "_quantized"].astype(np.float32)
        return (q - init[base + "_zero_point"].astype(np.float32)) * init[base + "_scale"]

    def bias_after(output: str) -> str:
        """The bias added to a MatMul's result: its name says which layer the MatMul's weight belongs to."""
        frontier = [output]
        for _ in range(6):
            following = [n for o in frontier for n in users.get(o, [])]
            for node in following:
                if node.op_type == "Add":
                    biases = [i for i in node.input if i.endswith(".bias") and i in init]
                    if biases:
                        return biases[0]
            frontier = [o for n in following for o in n.output]
        raise ValueError(f"no bias follows {output!r}: not a graph train.export_onnx wrote")

    weights: dict[str, np.ndarray] = {}
    for node in model.graph.node:
        if node.op_type == "MatMulInteger":  # x @ W with W [in, out]: a Linear's weight is W transposed
            base = node.input[1].removesuffix("_quantized")
            layer = bias_after(node.output[0]).removesuffix(".bias")
            weights[layer.removeprefix(_PREFIX) + ".weight"] = np.ascontiguousarray(dequantised(base).T)
        elif node.op_type == "DequantizeLinear":  # an embedding table, gathered then dequantised
            base = node.input[1].removesuffix("_scale")
            weights[base.removeprefix(_PREFIX)] = dequantised(base)
    for name, value in init.items():
        if value.dtype == np.float32 and name.startswith(_PREFIX) and not name.endswith("_scale"):
            weights[name.removeprefix(_PREFIX)] = value
    return weights


def dequantize(model_dir: Path, out: Path) -> Path:
    """Write the float checkpoint of the int8 verifier in ``model_dir`` to ``out``; returns ``out``."""
    import onnx
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from monitor.embeddings.encoders import default_model_path

    card = json.loads((model_dir / CARD_FILE).read_text(encoding="utf-8"))
    onnx_path = model_dir / ONNX_FILE
    if file_sha256(onnx_path) != card["sha256"]:
        raise SystemExit(f"{onnx_path} is not the file its model card names (sha256 differs)")
    weights = float_weights(onnx.load(str(onnx_path)))
    base = str(default_model_path())
    classifier = AutoModelForSequenceClassification.from_pretrained(base, num_labels=len(card["labels"]))
    state = classifier.state_dict()
    unknown = sorted(set(weights) - set(state))
    missing = sorted(k for k in state if k not in weights and not k.endswith("position_ids"))
    if unknown or missing:
        raise SystemExit(f"the graph's weights do not fit the classifier: unknown {unknown}, missing {missing}")
    for name, value in weights.items():
        if tuple(state[name].shape) != value.shape:
            raise SystemExit(f"{name}: {tuple(value.shape)} in the graph, {tuple(state[name].shape)} in the classifier")
        state[name] = torch.from_numpy(value.copy())
    classifier.load_state_dict(state)
    classifier.config.id2label = dict(enumerate(card["labels"]))
    classifier.config.label2id = {label: i for i, label in enumerate(card["labels"])}
    out.mkdir(parents=True, exist_ok=True)
    classifier.save_pretrained(out)
    AutoTokenizer.from_pretrained(base).save_pretrained(out)
    # what a stage trained from here lists before its own run in its model card (train/export_onnx.py)
    source = {"model_id": card["model_id"], "sha256": card["sha256"], "training": card["training"]}
    (out / DEQUANTIZED).write_text(json.dumps(source, indent=2) + "\n", encoding="utf-8")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, default=MODEL_DIR, help="the int8 model folder (default: the shipped)")
    parser.add_argument("--out", type=Path, required=True, help="where the float checkpoint goes")
    args = parser.parse_args()
    print(f"wrote {dequantize(args.model, args.out)}")


if __name__ == "__main__":
    main()
