"""Response-turn throughput of the reply path beside the bare encoders, and `aem score` start-up cost.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/encoder.py [--data DIR] [--turns 1000] [--repeat 2] [--base CHECKOUT]

DIR holds stsb_en_dev.csv and sgd_reply_pairs_dev.jsonl: their sentences are the reply texts. A response turn
is one (gold, predicted) pair of distinct texts.

- bare fp32 / bare int8: the encoder alone encodes both texts of every turn (batch 64, normalised): what a
  monitor without a cache pays per turn.
- Figures: turns per wall-clock second and per CPU second of the process (all its threads); on a shared
  machine the CPU figure is the steadier one.
- reply path: a ScoringEngine scores the turns as dialogs (decided as one batch, then turn by turn), on a
  cold prediction cache. "gold from a fixed set of 200": every turn's gold is one of 200 reference replies,
  embedded once before the timing, as `aem run --reference` does at start-up; "all-unique gold": every gold
  is new. Ratios are to the bare fp32 encoder's turns/s (targets: >= 1.5x and >= 1.0x).
- `aem score` start-up: wall time and peak RSS of one `aem score` process on a file of action turns whose
  arguments typed checks decide, on one whose calls fail before a free-text value is compared, and on
  one with a free-text argument (needs the model), per encoder.
  ``--base`` runs the same files with another checkout (e.g. the code before the lazy-load fix) beside,
  with its default encoder.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from monitor.embeddings import EmbeddingScorer
from monitor.embeddings.encoders import EncoderKind, TextEncoder, load_encoder
from monitor.logs import configure_logging
from monitor.models.dialog import Dialog
from monitor.scoring import ScoringConfig, ScoringEngine, reference_of
from monitor.wiring import build_engine

DATA_DIR = Path(__file__).resolve().parent / "data"  # the evaluation data shipped with the repo

REPO = Path(__file__).resolve().parents[1]
FIXED_GOLDS = 200


def reply_texts(data: Path) -> list[str]:
    """Distinct sentences of the SGD reply pairs, then of STS-B, in file order."""
    texts: dict[str, None] = {}
    with (data / "sgd_reply_pairs_dev.jsonl").open() as fh:
        for line in fh:
            row = json.loads(line)
            texts.update(dict.fromkeys((row["gold"].strip(), row["predicted"].strip())))
    with (data / "stsb_en_dev.csv").open(newline="") as fh:
        for row in csv.reader(fh):
            if len(row) == 3 and row[2] != "score":
                texts.update(dict.fromkeys((row[0].strip(), row[1].strip())))
    return [t for t in texts if t]


def turns(pool: list[str], n: int, fixed: bool) -> list[tuple[str, str]]:
    """n (gold, pred) pairs: predictions always distinct; golds one of FIXED_GOLDS or all distinct."""
    if len(pool) < 2 * n + FIXED_GOLDS:
        raise SystemExit(f"encoder.py: {len(pool)} distinct texts in --data, {2 * n + FIXED_GOLDS} needed")
    preds = pool[FIXED_GOLDS : FIXED_GOLDS + n]
    golds = [pool[i % FIXED_GOLDS] for i in range(n)] if fixed else pool[FIXED_GOLDS + n : FIXED_GOLDS + 2 * n]
    return list(zip(golds, preds, strict=True))


def dialogs(pairs: list[tuple[str, str]], per_dialog: int = 5) -> list[Dialog]:
    out = []
    for start in range(0, len(pairs), per_dialog):
        chunk = pairs[start : start + per_dialog]
        turns_ = [
            {"turn_no": i + 1, "turn": "Agent", "gold_turn": {"response": g}, "predict_turn": {"response": p}}
            for i, (g, p) in enumerate(chunk)
        ]
        out.append(Dialog.model_validate({"dialog_id": f"d{start}", "turns": turns_}))
    return out


@dataclass
class Measure:
    """One timed figure: ``run(setup())``, setup untimed; best wall and best CPU seconds over the rounds."""

    label: str
    setup: Callable[[], Any]
    run: Callable[[Any], Any]
    note: str = ""
    wall: float = float("inf")
    cpu: float = float("inf")

    def once(self) -> None:
        state = self.setup()
        w0, c0 = time.perf_counter(), time.process_time()
        self.run(state)
        self.wall = min(self.wall, time.perf_counter() - w0)
        self.cpu = min(self.cpu, time.process_time() - c0)


Timed = tuple[Callable[[], Any], Callable[[Any], Any]]


def reply_path(encoder: TextEncoder, pairs: list[tuple[str, str]], fixed: bool) -> Timed:
    """A fresh engine per run (cold caches); with fixed golds, the reference set is embedded before the timing."""
    batch = dialogs(pairs)
    references = [s for d in dialogs(pairs[:FIXED_GOLDS]) for s in reference_of(d) or []]

    def setup() -> ScoringEngine:
        engine = build_engine(ScoringConfig(), semantic=EmbeddingScorer(encoder=encoder))
        if fixed:
            engine.embed_references(references)
        return engine

    return setup, lambda engine: engine.score_dialogs(batch)


def throughput(args: argparse.Namespace) -> None:
    pool = reply_texts(args.data)
    unique, fixed = turns(pool, args.turns, fixed=False), turns(pool, args.turns, fixed=True)
    encoders = {kind: load_encoder(kind) for kind in EncoderKind}
    for enc in encoders.values():
        enc.encode(pool[:64])  # load and warm up outside the timings
    n = args.turns
    texts = [t for pair in unique for t in pair]
    measures = [Measure(f"bare encoder {k}", lambda: None, lambda _, e=e: e.encode(texts, batch_size=64))
                for k, e in encoders.items()]
    for kind, enc in encoders.items():
        for label, pairs, is_fixed, target in (("fixed 200 gold", fixed, True, 1.5),
                                               ("all-unique gold", unique, False, 1.0)):
            setup, run = reply_path(enc, pairs, is_fixed)
            measures.append(Measure(f"reply path {kind}, {label}", setup, run, f"(target >= {target:.1f}x)"))
    for _ in range(args.repeat):  # rounds interleave the figures, so load on a shared machine hits all alike
        for m in measures:
            m.once()
    print(f"response turns: {n} per run, best of {args.repeat} interleaved rounds; "
          f"{len(texts)} texts for the bare encoders")
    base_wall, base_cpu = n / measures[0].wall, n / measures[0].cpu
    print(f"  {'':<36} {'turns/s':>8} {'x bare fp32':>11}   {'turns/CPU-s':>11} {'x bare fp32':>11}")
    for m in measures:
        wall, cpu = n / m.wall, n / m.cpu
        print(f"  {m.label:<36} {wall:8.1f} {wall / base_wall:10.2f}x   {cpu:11.1f} {cpu / base_cpu:10.2f}x {m.note}")


# -- `aem score` start-up -------------------------------------------------------------------------

PROBE = """
import resource, subprocess, sys, time
t0 = time.perf_counter()
proc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
elapsed = time.perf_counter() - t0
if proc.returncode not in (0, 1):
    sys.exit(proc.stderr[-2000:])
print(elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


ACTION_FILES = {
    "typed": "typed arguments only",
    "wrong_tool": "free text, wrong tool/missing arg",
    "free_text": "a free-text argument",
}


def action_file(folder: Path, kind: str, dialogs_: int = 200) -> Path:
    """Action turns only. typed: typed checks decide every argument; wrong_tool: the predicted calls fail on
    their tool or a missing argument before any free-text value is compared; free_text: a subject line that
    only the semantic stage can compare."""
    lines = []
    for i in range(dialogs_):
        gold = {"tool_id": "reports", "action": "Filter", "args": {"metric": "revenue", "region": "EU",
                                                                    "date": "2024-03-01", "limit": 5 + i}}
        pred = {**gold, "args": {**gold["args"], "date": "March 1, 2024", "limit": str(5 + i)}}
        mail = {"tool_id": "mail", "action": "Send", "args": {"to": "ana@example.com", "subject": f"Report {i}"}}
        subject = f"Report {i}" if kind == "typed" else f"The report number {i}"
        sent = {**mail, "args": {**mail["args"], "subject": subject}}
        if kind == "wrong_tool":
            pred = {**pred, "tool_id": "chat"}
            sent = {**sent, "args": {"subject": sent["args"]["subject"]}}
        turns_ = [{"turn_no": 1, "turn": "Tool", "gold_turn": gold, "predict_turn": pred},
                  {"turn_no": 2, "turn": "Tool", "gold_turn": mail, "predict_turn": sent}]
        lines.append(json.dumps({"dialog_id": f"a{i}", "turns": turns_}))
    path = folder / f"actions_{kind}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def startup_once(checkout: Path, path: Path, encoder: str) -> tuple[float, float]:
    cmd = [sys.executable, "-c", "from monitor.cli import main; raise SystemExit(main())", "score", str(path)]
    env = dict(os.environ, AEM_ENCODER=encoder, PYTHONPATH=str(checkout), HF_HUB_OFFLINE="1")
    out = subprocess.run([sys.executable, "-c", PROBE, *cmd], capture_output=True, text=True, env=env,
                         cwd=checkout, check=True).stdout.split()
    return float(out[0]), int(out[1]) / 1024


def startup(args: argparse.Namespace) -> None:
    checkouts = [("this checkout", REPO)] + ([("--base", args.base.resolve())] if args.base else [])
    print("`aem score` start-up: one process, 400 action turns (best of "
          f"{args.repeat} for time, peak RSS of that run)")
    with tempfile.TemporaryDirectory() as tmp:
        files = [(label, action_file(Path(tmp), kind)) for kind, label in ACTION_FILES.items()]
        for name, checkout in checkouts:
            for label, path in files:
                for encoder in EncoderKind if checkout == REPO else [EncoderKind.FP32]:
                    runs = [startup_once(checkout, path, encoder.value) for _ in range(args.repeat)]
                    seconds, rss = min(runs)
                    print(f"  {name:<14} {label:<34} AEM_ENCODER={encoder.value:<5} {seconds:6.2f} s  {rss:7.0f} MB")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA_DIR,
        help="folder with stsb_en_dev.csv, sgd_reply_pairs_dev.jsonl (default: benchmarks/data)")
    ap.add_argument("--turns", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--base", type=Path, help="another checkout to run the start-up figures with, beside this one")
    ap.add_argument("--skip-startup", action="store_true")
    ap.add_argument("--skip-throughput", action="store_true")
    args = ap.parse_args()
    for name in ("stsb_en_dev.csv", "sgd_reply_pairs_dev.jsonl"):
        if not (args.data / name).is_file():
            sys.stderr.write(f"encoder.py: --data {args.data}: no {name}\n")
            return 2
    configure_logging("error")
    if not args.skip_throughput:
        throughput(args)
    if not args.skip_startup:
        startup(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
