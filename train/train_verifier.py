"""Train the reply verifier: a MiniLM-L6 cross-encoder (the packaged all-MiniLM-L6-v2 weights, a new 3-way
head) on ``train/out/pairs.jsonl``.

    .venv/bin/python -m train.train_verifier [--pairs train/out/pairs.jsonl] [--out train/out/verifier]
        [--epochs 2] [--batch 32] [--max-length 128] [--lr 5e-5] [--seed 13]

Plain PyTorch: AdamW, linear warm-up (10 %) and decay, dynamic padding over length-sorted buckets (batches
are drawn in a seeded random order), fixed seeds. Logs progress and a held-back 2 % of the pairs every 500
steps; saves the Hugging Face model folder (weights, tokenizer, ``labels.json``) to ``--out``, with the
optimiser, schedule and random state in ``resume.pt``, so ``--resume`` continues an interrupted run at its last
check (``--check-every``, 500 steps). CPU only; about an hour for 50k pairs x 2 epochs on two cores. Never run
in CI.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from pathlib import Path

import numpy as np
import torch

LABELS = ("same", "changed", "dropped")
REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "train" / "out"
RESUME_FILE = "resume.pt"  # written beside the weights at every check; --resume continues from it


def repo_relative(value: object) -> str:
    """An argument as the training log records it: a path inside the repository relative to it (a log names no
    machine's folders), anything else as text."""
    if isinstance(value, Path) and value.resolve().is_relative_to(REPO):
        return str(value.resolve().relative_to(REPO))
    return str(value)


def _load(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def _batches(pairs: list[dict], size: int, rng: random.Random) -> list[list[dict]]:
    """Length-bucketed batches in random order: similar lengths pad little."""
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i]["premise"]) + len(pairs[i]["hypothesis"]))
    chunks = [order[i : i + size * 50] for i in range(0, len(order), size * 50)]
    batches: list[list[dict]] = []
    for chunk in chunks:
        rng.shuffle(chunk)
        chunk.sort(key=lambda i: len(pairs[i]["premise"]) + len(pairs[i]["hypothesis"]))
        batches += [[pairs[i] for i in chunk[j : j + size]] for j in range(0, len(chunk), size)]
    rng.shuffle(batches)
    return batches


def _encode(tokenizer, batch: list[dict], max_length: int) -> dict[str, torch.Tensor]:
    return tokenizer(
        [p["premise"] for p in batch], [p["hypothesis"] for p in batch],
        padding=True, truncation="longest_first", max_length=max_length, return_tensors="pt",
    )


def evaluate(model, tokenizer, pairs: list[dict], max_length: int) -> dict[str, float]:
    model.eval()
    right = 0
    per_class = np.zeros((3, 3), dtype=int)
    with torch.no_grad():
        for i in range(0, len(pairs), 64):
            batch = pairs[i : i + 64]
            logits = model(**_encode(tokenizer, batch, max_length)).logits
            for p, guess in zip(batch, logits.argmax(-1).tolist(), strict=True):
                per_class[p["label"], guess] += 1
                right += guess == p["label"]
    model.train()
    recalls = per_class.diagonal() / np.maximum(per_class.sum(1), 1)
    return {"accuracy": right / max(len(pairs), 1), "balanced": float(recalls.mean())}


def arguments() -> argparse.ArgumentParser:
    """The command line (``train/export_onnx.py`` writes a run's command from the arguments that differ)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--epochs", type=float, default=2.0)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--pairs", type=Path, default=OUT / "pairs.jsonl")
    parser.add_argument("--out", type=Path, default=OUT / "verifier")
    parser.add_argument("--init", type=Path, default=None, help="continue from this checkpoint (default: MiniLM)")
    parser.add_argument("--check-every", type=int, default=500, help="steps between checks and checkpoints")
    parser.add_argument(
        "--resume", action="store_true",
        help="continue an interrupted run from the last checkpoint in --out (same pairs and arguments)",
    )
    return parser


def main() -> None:
    args = arguments().parse_args()

    from sentence_transformers import CrossEncoder

    from monitor.embeddings.encoders import default_model_path

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    pairs = _load(args.pairs)
    held = pairs[: max(len(pairs) // 50, 200)]
    train = pairs[len(held) :]
    state_file = args.out / RESUME_FILE
    state = torch.load(state_file, weights_only=False) if args.resume and state_file.exists() else None
    start_from = args.out if state else (args.init or default_model_path())
    encoder = CrossEncoder(str(start_from), num_labels=3, max_length=args.max_length)
    model, tokenizer = encoder.model, encoder.tokenizer
    model.config.id2label = dict(enumerate(LABELS))
    model.config.label2id = {name: i for i, name in enumerate(LABELS)}
    model.train()

    steps_per_epoch = -(-len(train) // args.batch)
    total = int(steps_per_epoch * args.epochs)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    warmup = max(total // 10, 1)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (total - s) / max(total - warmup, 1)))
    )
    loss_fn = torch.nn.CrossEntropyLoss()
    step, started, seen = 0, time.time(), 0
    log = {
        "args": {k: repo_relative(v) for k, v in vars(args).items()},
        "pairs": len(pairs),
        "pairs_sha256": hashlib.sha256(args.pairs.read_bytes()).hexdigest(),
        "train_pairs": len(train),
        "checks": [],
    }
    resumed_at, spent_before = 0, 0.0
    if state:
        optimizer.load_state_dict(state["optimizer"])
        schedule.load_state_dict(state["schedule"])
        torch.set_rng_state(state["torch_rng"])
        resumed_at, spent_before, log["checks"] = state["step"], state["seconds"], state["checks"]
        print(json.dumps({"resumed_at": resumed_at, "of": total}), flush=True)
    while step < total:
        for batch in _batches(train, args.batch, rng):  # the same seeded order as the interrupted run
            if step >= total:
                break
            if step < resumed_at:
                step += 1
                continue
            inputs = _encode(tokenizer, batch, args.max_length)
            labels = torch.tensor([p["label"] for p in batch])
            loss = loss_fn(model(**inputs).logits, labels)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            step += 1
            seen += len(batch)
            if step % 100 == 0:
                rate = seen / (time.time() - started)
                print(f"step {step}/{total} loss {loss.item():.3f} {rate:.1f} pairs/s", flush=True)
            if step % args.check_every == 0 or step == total:
                check = {"step": step, **evaluate(model, tokenizer, held, args.max_length)}
                log["checks"].append(check)
                print(json.dumps(check), flush=True)
                args.out.mkdir(parents=True, exist_ok=True)
                model.save_pretrained(args.out)
                tokenizer.save_pretrained(args.out)
                torch.save(
                    {
                        "step": step, "optimizer": optimizer.state_dict(), "schedule": schedule.state_dict(),
                        "torch_rng": torch.get_rng_state(), "checks": log["checks"],
                        "seconds": spent_before + time.time() - started,
                    },
                    state_file,
                )
    log["seconds"] = round(spent_before + time.time() - started, 1)
    args.out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(args.out)
    tokenizer.save_pretrained(args.out)
    (args.out / "training_log.json").write_text(json.dumps(log, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({"done": True, "seconds": log["seconds"], "final": log["checks"][-1:]}))


if __name__ == "__main__":
    main()
