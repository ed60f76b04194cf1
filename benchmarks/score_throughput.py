"""Benchmark: `aem score` throughput on action and response turns, beside the bare encoder.

Prints figures; asserts nothing. Run: `.venv/bin/python benchmarks/score_throughput.py`
(`--actions N --responses N` to change the sizes). Every run starts from cold caches: the
engine and the bare encoder encode the same texts, in the same process, one after the other.
"""

from __future__ import annotations

import argparse
import os
import random
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from monitor.embeddings import EmbeddingScorer
from monitor.logs import configure_logging
from monitor.models.dialog import Dialog
from monitor.scoring import ScoringConfig
from monitor.wiring import build_engine

CITIES = ["Paris", "Berlin", "Madrid", "Rome", "Lisbon", "Vienna", "Prague", "Warsaw", "Dublin", "Oslo"]
METRICS = ["revenue", "profit", "units sold", "gross margin", "churn", "active users"]
NAMES = ["Alice Martin", "Bob Chen", "Carla Diaz", "Deepak Rao", "Emma Novak", "Farid Haddad"]


def action_dialogs(n_turns: int, rng: random.Random) -> list[Dialog]:
    """Dialogs of three-action chains with typed, identifier and free-text arguments, some perturbed."""
    dialogs = []
    turn_total = 0
    i = 0
    while turn_total < n_turns:
        city, metric = rng.choice(CITIES), rng.choice(METRICS)
        date = f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        gold = [
            {"tool_id": "reports", "action": "Filter", "args": {"metric": metric, "city": city, "date": date}},
            {"tool_id": "reports", "action": "Create", "args": {"dataset_id": f"ds-{i}", "limit": rng.randint(5, 500)}},
            {"tool_id": "mail", "action": "Send", "args": {"to": rng.choice(NAMES), "subject": f"{metric} in {city}"}},
        ]
        pred = [dict(g, args=dict(g["args"])) for g in gold]
        if rng.random() < 0.3:
            pred[0]["args"]["metric"] = rng.choice(METRICS)
        if rng.random() < 0.2:
            pred[0]["args"]["date"] = f"{['January', 'March', 'June', 'October'][rng.randint(0, 3)]} 3, 2024"
        if rng.random() < 0.2:
            pred[1]["args"]["limit"] = str(pred[1]["args"]["limit"])
        turns = [
            {"turn_no": n + 1, "turn": "Tool", "gold_turn": g, "predict_turn": p}
            for n, (g, p) in enumerate(zip(gold, pred, strict=True))
        ]
        dialogs.append(Dialog.model_validate({"dialog_id": f"a{i}", "turns": turns}))
        turn_total += len(turns)
        i += 1
    return dialogs


def reply_pairs(n: int, rng: random.Random) -> list[tuple[str, str]]:
    pairs = []
    for _ in range(n):
        city, metric, name = rng.choice(CITIES), rng.choice(METRICS), rng.choice(NAMES)
        amount = rng.randint(10, 999)
        quarter = f"Q{rng.randint(1, 4)}"
        gold = f"{name}, your {metric} report for {city} is ready: the total was {amount} thousand euros in {quarter}."
        kind = rng.random()
        if kind < 0.4:
            pred = f"Hi {name}! The {quarter} {city} {metric} report is done — total: {amount} thousand euros."
        elif kind < 0.6:
            pred = gold.replace(str(amount), str(amount + rng.randint(1, 50)))
        elif kind < 0.8:
            pred = gold.replace(metric, rng.choice([m for m in METRICS if m != metric]))
        else:
            pred = f"Your report is ready, {name}."
        pairs.append((gold, pred))
    return pairs


def response_dialogs(pairs: list[tuple[str, str]]) -> list[Dialog]:
    dialogs = []
    for i in range(0, len(pairs), 4):
        turns = [
            {"turn_no": n + 1, "turn": "Agent", "gold_turn": {"response": g}, "predict_turn": {"response": p}}
            for n, (g, p) in enumerate(pairs[i : i + 4])
        ]
        dialogs.append(Dialog.model_validate({"dialog_id": f"r{i}", "turns": turns}))
    return dialogs


def timed(fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--actions", type=int, default=10_000)
    parser.add_argument("--responses", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    configure_logging("error")
    rng = random.Random(args.seed)

    warm = EmbeddingScorer()
    warm.encode(["warm up the model once"])  # load weights outside the timings
    model = warm.encoder  # type: ignore[attr-defined]

    acts = action_dialogs(args.actions, rng)
    n_actions = sum(len(d.turns or []) for d in acts)
    engine = build_engine(ScoringConfig(), semantic=EmbeddingScorer())
    engine.checker.values.semantic._model = model  # share loaded weights, not caches  # type: ignore[attr-defined]
    seconds, _ = timed(lambda: engine.score_dialogs(acts))
    print(f"action turns:   {n_actions:>6} in {seconds:6.2f} s = {n_actions / seconds:8.0f} turns/s (aem score engine)")

    pairs = reply_pairs(args.responses, rng)
    texts = [t for pair in pairs for t in pair]
    bare_seconds, _ = timed(
        lambda: model.encode(texts, batch_size=64, convert_to_numpy=True, normalize_embeddings=True)
    )
    bare_rate = len(pairs) / bare_seconds
    print(f"bare encoder:   {len(pairs):>6} turns ({len(texts)} texts)", end="")
    print(f" in {bare_seconds:6.2f} s = {bare_rate:8.0f} turns/s")

    dialogs = response_dialogs(pairs)
    engine = build_engine(ScoringConfig(), semantic=EmbeddingScorer())
    engine.checker.values.semantic._model = model  # type: ignore[attr-defined]
    seconds, results = timed(lambda: engine.score_dialogs(dialogs))
    rate = len(pairs) / seconds
    failed = sum(1 for r in results for t in r.turns if not t.success)
    print(
        f"response turns: {len(pairs):>6} in {seconds:6.2f} s = {rate:8.0f} turns/s (aem score engine; {failed} failed)"
    )
    print(f"response turns at {rate / bare_rate:.0%} of the bare encoder's turns/s (target >= 80%)")


if __name__ == "__main__":
    main()
