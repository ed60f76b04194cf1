"""Benchmark: CPU per judge-only reply turn (no gold) with a 5 kB tool output and a 5-sentence reply, beside
the bare fp32 encoder reading the same texts once, in the same run.

Prints figures; asserts nothing. Run:
`HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/judge_only_cost.py [--turns 60] [--fusion]`

Each dialog is a user question, one flight-search tool call whose output is about 5 kB of JSON (records of
flights), and a 5-sentence reply: some sentences restate records of the output, one states a flight the
output does not hold, one is a courtesy. `aem score`'s engine (the one `aem run` shares) scores every dialog
from cold caches; the figure is this process's CPU time per reply turn (the tool turn is judge-only too, and
its cost is inside). The baseline is the bare fp32 encoder encoding the reply's sentences and the output's
rendered lines once (what a retrieval step must at least do). `--fusion` scores with
`scoring.verifier.fusion: true`.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from monitor.embeddings import EmbeddingScorer
from monitor.embeddings.encoders import EncoderKind, TorchEncoder
from monitor.logs import configure_logging
from monitor.models.dialog import Dialog
from monitor.scoring import ScoringConfig
from monitor.verifier.grounding import render_source
from monitor.verifier.sentences import sentences
from monitor.wiring import build_engine

CITIES = ["Boston", "Denver", "Calgary", "Vancouver", "Lisbon", "Porto", "Madrid", "Rome", "Oslo", "Dublin"]
AIRLINES = ["Air Canada", "Delta", "United", "TAP", "Iberia", "SAS"]


def flight(rng: random.Random, i: int) -> dict[str, object]:
    return {
        "flight": f"{rng.choice(['AC', 'DL', 'UA', 'TP', 'IB', 'SK'])}-{100 + i * 7 + rng.randint(0, 6)}",
        "airline": rng.choice(AIRLINES),
        "from": rng.choice(CITIES[:5]),
        "to": rng.choice(CITIES[5:]),
        "departs": f"2025-03-{rng.randint(1, 28):02d} {rng.randint(5, 22):02d}:{rng.choice(['00', '15', '30', '45'])}",
        "stops": rng.randint(0, 2),
        "fare": f"{rng.randint(90, 990)} USD",
        "seats_left": rng.randint(1, 9),
    }


def judge_dialog(rng: random.Random, n: int) -> Dialog:
    records = [flight(rng, i) for i in range(30)]  # ~5 kB as JSON
    shown = rng.sample(records, 3)
    said = [f"{r['airline']} flight {r['flight']} leaves {r['from']} for {r['to']} at {r['departs']} for {r['fare']}."
            for r in shown]
    invented = f"There is also a direct flight to {rng.choice(CITIES)} at 23:55 for 45 USD."
    reply = " ".join([*said, invented, "Let me know which one you would like to book."])
    turns = [
        {"turn_no": 1, "turn": "User", "predict_turn": {"content": "Which flights are there in March?"}},
        {"turn_no": 2, "turn": "Tool",
         "predict_turn": {"tool_id": "flights", "action": "search", "args": {"month": "March"},
                          "output": {"flights": records}}},
        {"turn_no": 3, "turn": "Agent", "predict_turn": {"response": reply}},
    ]
    return Dialog.model_validate({"dialog_id": f"j{n}", "turns": turns})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=60, help="judge-only reply turns (one dialog each)")
    parser.add_argument("--fusion", action="store_true", help="score with scoring.verifier.fusion: true")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    configure_logging("error")
    rng = random.Random(args.seed)
    dialogs = [judge_dialog(rng, i) for i in range(args.turns)]
    size = statistics.mean(len(d.turns[1].predict_turn.model_dump_json()) for d in dialogs)  # type: ignore[index,union-attr]

    shared = EmbeddingScorer()
    shared.encode(["warm up"])
    bare = shared.encoder if shared.encoder.kind is EncoderKind.FP32 else TorchEncoder.load()  # type: ignore[attr-defined]
    config = ScoringConfig.model_validate({"verifier": {"fusion": args.fusion}})
    engine = build_engine(config, semantic=EmbeddingScorer(encoder=shared.encoder))  # type: ignore[attr-defined]
    engine.score_dialog(judge_dialog(random.Random(99), -1))  # load the verifier and the value tables

    bare_ms, aem_ms, failed = [], [], 0
    for d in dialogs:
        reply = d.turns[2].predict_turn.response  # type: ignore[index,union-attr]
        output = d.turns[1].predict_turn.output  # type: ignore[index,union-attr]
        texts = [*sentences(reply), *render_source(output)]
        cpu = time.process_time()
        bare.encode(texts, batch_size=64)
        bare_ms.append(1000 * (time.process_time() - cpu))
        cpu = time.process_time()
        result = engine.score_dialog(d)
        aem_ms.append(1000 * (time.process_time() - cpu))
        failed += result.turns[-1].success is False

    def cut(values: list[float]) -> str:
        ordered = sorted(values)
        return f"median {statistics.median(ordered):6.1f} ms, p95 {ordered[int(0.95 * (len(ordered) - 1))]:6.1f} ms"

    print(f"judge-only reply turns: {args.turns}, tool output {size / 1000:.1f} kB of JSON, 5-sentence replies, "
          f"fusion {'on' if args.fusion else 'off'}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    print(f"    bare fp32 encoder, reply sentences + output lines once   CPU {cut(bare_ms)}")
    print(f"    aem score, the whole dialog (tool + reply turn)           CPU {cut(aem_ms)}   (target < 50 ms)")
    print(f"    replies failed (each states one flight the output lacks): {failed} of {args.turns}")


if __name__ == "__main__":
    main()
