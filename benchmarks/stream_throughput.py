"""Benchmark: `aem run` end to end on the embedded broker, beside bare baselines in the same run.

Prints figures; asserts nothing. Run:
`HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/stream_throughput.py [--data DIR]` (DIR: the evaluation data
with stsb_en_dev.csv and sgd_reply_pairs_dev.jsonl, whose sentences are the reply texts; default
benchmarks/data). The load average is printed first and last: the machine may be shared.
`--only SECTION` (state, actions, otlp, responses, latency; repeatable) runs just those sections; `--decisions`
picks the reply decisions the responses section measures (default: the default and the fused one, side by side); latency
without actions runs at `--rate` (default 500 events/s). `--torch-threads 1` steadies the response figures
on a busy machine (bare encoder and aem run alike).

1. State: changelog bytes of one 50-turn conversation checkpointed after every turn, and the memory of one
   open 3-turn conversation (benchmarks/memory.py's measurement, in a subprocess).
2. Action turns: N are published first; then a bare kafka-python consumer reads the topic, a bare pipe
   consumes + JSON-decodes + produces one small record per event (+ flush and commit per poll), and
   `aem run`'s Monitor (same process, real broker, state changelog on) scores it. Ratio: aem run / pipe, by
   wall time and per CPU-second of this process (the broker runs in its own; steadier on a shared machine).
3. Response turns: the bare fp32 encoder encodes both texts of every all-unique turn (batch 64); then
   `aem run` (its encoder per `AEM_ENCODER`, onnx by default; printed) scores turns whose gold is one of a
   fixed set of 200 replies, and turns whose gold is all unique (gold inline, cold caches). Ratios to the bare
   fp32 encoder's turns/s, and per CPU-second of this process (steadier than wall time on a shared machine;
   aem run's figure includes its set-up and Kafka client threads, not the broker).
4. Latency at half the measured action-turn rate (or `--rate`) for `--seconds`, paced like
   conversations: three-action dialogs whose turns are `--turn-gap` seconds apart; event → turn
   verdict = verdict record timestamp − send time, p50/p99, overall and per turn of the chain.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from encoder import reply_texts, turns
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from prometheus_client import CollectorRegistry
from score_throughput import action_dialogs, response_dialogs

from monitor.cluster import ensure_topics, make_producer
from monitor.logs import configure_logging
from monitor.models.dialog import Dialog
from monitor.models.trace_event import decode_event, encode_event
from monitor.scoring import ScoringConfig, ScoringEngine
from monitor.stream.runner import Monitor
from monitor.stream.settings import MonitorSettings
from monitor.tools.broker import TansuBroker
from monitor.tools.replay import dialog_events, publish
from monitor.wiring import build_engine, build_monitor

DATA_DIR = Path(__file__).resolve().parent / "data"  # the evaluation data shipped with the repo

MakeEngine = Callable[[], ScoringEngine]
SECTIONS = ("state", "actions", "otlp", "responses", "latency")
_LATENCY_RATE = 500.0  # events/s offered when the action section (whose half it is by default) is skipped
Topics = tuple[str, str, str, str]  # traces, verdicts, dlq, state


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def bare_consumer(bootstrap: str, topic: str) -> KafkaConsumer:
    return KafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=f"bare-{uuid.uuid4().hex[:6]}",
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        session_timeout_ms=6000,
        heartbeat_interval_ms=1000,
    )


def bare_run(bootstrap: str, topic: str, expect: int, producer: KafkaProducer | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (this process) a bare consumer takes to read `expect` records, from its first record on.

    With a `producer`, it is the bare pipe: each event JSON-decoded and one small record produced for it,
    the producer flushed before each commit (what at-least-once needs at the least).
    """
    consumer = bare_consumer(bootstrap, topic)
    out = f"{topic}.pipe"
    got = 0
    start = cpu = None
    while got < expect:
        batch = consumer.poll(timeout_ms=500)
        if batch and start is None:
            start, cpu = time.perf_counter(), time.process_time()
        for records in batch.values():
            got += len(records)
            if producer is not None:
                for rec in records:
                    event = json.loads(rec.value)
                    small = {"conversation_id": event["conversation_id"], "turn_no": event["turn_no"], "ok": True}
                    producer.send(out, key=rec.key, value=json.dumps(small).encode())
        if batch:
            if producer is not None:
                producer.flush()
            consumer.commit()
    elapsed = time.perf_counter() - (start or time.perf_counter())
    cpu_s = time.process_time() - (cpu or time.process_time())
    consumer.close()
    return elapsed, cpu_s


def topics(bootstrap: str) -> Topics:
    tag = uuid.uuid4().hex[:6]
    names = (f"b{tag}.traces", f"b{tag}.verdicts", f"b{tag}.dlq", f"b{tag}.state")
    ensure_topics(bootstrap, names[:3], partitions=3)
    return names


def monitor_for(bootstrap: str, names: Topics, engine: ScoringEngine, **settings: Any) -> Monitor:
    config = MonitorSettings(
        bootstrap_servers=bootstrap,
        topic=names[0],
        verdict_topic=names[1],
        dlq_topic=names[2],
        state_topic=names[3],
        group_id=f"aem-{uuid.uuid4().hex[:6]}",
        create_topics=False,
        metrics_port=0,
        metrics_host="127.0.0.1",
        **settings,
    )
    return build_monitor(config, engine=engine, registry=CollectorRegistry())


def run_monitor_until(monitor: Monitor, verdicts: int) -> float:
    """Seconds from the first event the monitor reads to its `verdicts`-th turn verdict."""
    return timed_monitor_until(monitor, verdicts)[0]


def timed_monitor_until(monitor: Monitor, verdicts: int) -> tuple[float, float]:
    """Wall and CPU seconds (this process: the loop and the Kafka clients' threads) from the first event
    the monitor reads to its `verdicts`-th turn verdict."""
    thread = threading.Thread(target=monitor.run, daemon=True)
    thread.start()
    start = cpu = None
    while monitor.stats.verdicts < verdicts:
        if start is None and monitor.stats.events:
            start, cpu = time.perf_counter(), time.process_time()
        time.sleep(0.01)
    elapsed = time.perf_counter() - (start or time.perf_counter())
    cpu_s = time.process_time() - (cpu or time.process_time())
    monitor.stop()
    thread.join(timeout=60)
    return elapsed, cpu_s


def published(bootstrap: str, dialogs: list[Dialog]) -> tuple[Topics, int]:
    """Fresh topics with the dialogs' events on the trace topic; returns them and the event count."""
    names = topics(bootstrap)
    producer = make_producer(bootstrap)
    count = publish(producer, names[0], [e for d in dialogs for e in dialog_events(d)])
    producer.close()
    return names, count


def aem_rate(bootstrap: str, dialogs: list[Dialog], make_engine: MakeEngine) -> float:
    """aem run's turns/s on a backlog of the dialogs' events."""
    names, count = published(bootstrap, dialogs)
    return count / run_monitor_until(monitor_for(bootstrap, names, make_engine()), count)


def action_backlog(bootstrap: str, dialogs: list[Dialog], make_engine: MakeEngine) -> float:
    """Bare consumer, bare pipe and aem run on the same action-turn backlog; returns aem run's turns/s.

    Beside wall-time rates, per CPU-second of this process (the broker is another process): steadier
    than wall time on a shared machine.
    """
    names, count = published(bootstrap, dialogs)
    bare, bare_cpu = (count / s for s in bare_run(bootstrap, names[0], count))
    producer = make_producer(bootstrap)
    pipe, pipe_cpu = (count / s for s in bare_run(bootstrap, names[0], count, producer))
    producer.close()
    rate, cpu = (count / s for s in timed_monitor_until(monitor_for(bootstrap, names, make_engine()), count))
    print(f"action turns    {count:>6} turns   ({load()})")
    print(f"    bare kafka-python consumer          {bare:8.0f} msgs/s     {bare_cpu:8.0f} per CPU-second")
    print(f"    bare consume + decode + produce     {pipe:8.0f} events/s   {pipe_cpu:8.0f} per CPU-second")
    print(
        f"    aem run                             {rate:8.0f} turns/s    {cpu:8.0f} per CPU-second   "
        f"{rate / pipe:5.2f} of the pipe, per CPU-second {cpu / pipe_cpu:5.2f}   (target >= 0.5)"
    )
    return rate


def kept(make_engine: MakeEngine, engines: list[ScoringEngine]) -> MakeEngine:
    """`make_engine`, each engine it builds also appended to `engines` (to read its counters afterwards)."""

    def make() -> ScoringEngine:
        engines.append(make_engine())
        return engines[-1]

    return make


def response_backlog(bootstrap: str, data: Path, n: int, shared: Any, engines_by: dict[str, MakeEngine]) -> None:
    """The bare fp32 encoder beside aem run on response turns, gold from 200 fixed replies and all unique, for
    each reply decision in ``engines_by`` (the default, the fused decision).

    The bare encoder runs right before each aem run and the ratio is to that figure: on a shared machine
    the load changes from one minute to the next.
    """
    from monitor.embeddings.encoders import EncoderKind, TorchEncoder

    pool = reply_texts(data)
    unique, fixed = turns(pool, n, fixed=False), turns(pool, n, fixed=True)
    texts = [t for pair in unique for t in pair]
    # The baseline is the fp32 encoder whatever aem run uses (AEM_ENCODER): the same model object when fp32.
    bare_encoder = shared.encoder if shared.encoder.kind is EncoderKind.FP32 else TorchEncoder.load()
    print(f"response turns  {n:>6} turns   ({load()}; aem run's encoder: {shared.encoder.kind})")
    cases = [(d, label, pairs, target) for d in engines_by
             for label, pairs, target in (("fixed 200 gold", fixed, 1.5), ("all-unique gold", unique, 1.0))]
    for decision, label, pairs, target in cases:
        make_engine = engines_by[decision]
        start, cpu = time.perf_counter(), time.process_time()
        bare_encoder.encode(texts, batch_size=64)  # the encoder itself, no cache: two texts a turn
        bare, bare_cpu = n / (time.perf_counter() - start), n / (time.process_time() - cpu)
        engines: list[ScoringEngine] = []
        cpu = time.process_time()
        rate = aem_rate(bootstrap, response_dialogs(pairs), kept(make_engine, engines))
        aem_cpu = n / (time.process_time() - cpu)  # this process only (not the broker); set-up included
        encoded = getattr(engines[0].semantic, "encoded_texts", 0) / n
        print(
            f"    bare fp32 encoder {bare:6.1f} turns/s, then aem run ({shared.encoder.kind}, {decision:<7}), "
            f"{label:<16}"
            f"{rate:6.1f} turns/s   {rate / bare:5.2f}x the bare encoder (target >= {target:.1f}x); "
            f"per CPU-second {aem_cpu / bare_cpu:5.2f}x; {encoded:.2f} texts encoded a turn (bare: 2)"
        )


def paced_schedule(events: list[dict], turns_per_dialog: int, rate: float, gap: float) -> list[tuple[float, dict]]:
    """(send offset, event): conversations start at rate/turns per second, their turns `gap` s apart."""
    starts_per_s = rate / turns_per_dialog
    by_cid: dict[str, list[dict]] = {}
    for event in events:
        by_cid.setdefault(event["conversation_id"], []).append(event)
    schedule = [
        (i / starts_per_s + j * gap, event) for i, turns in enumerate(by_cid.values()) for j, event in enumerate(turns)
    ]
    return sorted(schedule, key=lambda item: item[0])


def latency(bootstrap: str, make_engine: MakeEngine, rate: float, seconds: float, gap: float) -> None:
    """Event (send time) → turn verdict record (its CreateTime), turns of a conversation `gap` s apart."""
    import random

    names = topics(bootstrap)
    monitor = monitor_for(bootstrap, names, make_engine())
    thread = threading.Thread(target=monitor.run, daemon=True)
    thread.start()
    monitor.ready.wait(60)
    rng = random.Random(5)
    dialogs = action_dialogs(int(rate * seconds), rng)
    events = [e for i, d in enumerate(dialogs) for e in dialog_events(d, conversation_id=f"lat-{i}")]
    schedule = paced_schedule(events, 3, rate, gap)
    producer = make_producer(bootstrap)
    sent_at: dict[tuple[str, int], float] = {}
    began = time.monotonic()
    for offset, event in schedule:
        pause = began + offset - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        event["timestamp"] = datetime.now().astimezone().isoformat()
        sent_at[(event["conversation_id"], event["turn_no"])] = time.time()
        producer.send(names[0], key=event["conversation_id"].encode(), value=encode_event(event))
    producer.flush()
    producer.close()
    deadline = time.monotonic() + 120
    while monitor.stats.verdicts < len(events) and time.monotonic() < deadline:
        time.sleep(0.1)
    monitor.stop()
    thread.join(timeout=60)
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None)
    tps = [TopicPartition(names[1], p) for p in consumer.partitions_for_topic(names[1])]
    consumer.assign(tps)
    consumer.seek_to_beginning(*tps)
    lat: dict[int, list[float]] = {}
    got = 0
    end = time.monotonic() + 30
    while time.monotonic() < end and got < len(events):
        for records in consumer.poll(timeout_ms=500).values():
            for rec in records:
                v = json.loads(rec.value)
                key = (v["conversation_id"], v.get("turn_no"))
                if v["kind"] == "turn" and key in sent_at:
                    lat.setdefault(v["turn_no"], []).append(rec.timestamp / 1000 - sent_at[key])
                    got += 1
    consumer.close()
    every = sorted(x for xs in lat.values() for x in xs)

    def pct(values: list[float]) -> str:
        q = statistics.quantiles(sorted(values), n=100)
        return f"p50 {q[49] * 1000:6.0f} ms  p99 {q[98] * 1000:6.0f} ms"

    print(
        f"latency at {rate:.0f} events/s, turns {gap:.0f} s apart: {got}/{len(events)} turn verdicts, "
        f"event -> turn verdict {pct(every)}"
    )
    for turn_no in sorted(lat):
        print(f"    action turn {turn_no} of 3 ({len(lat[turn_no])} verdicts): {pct(lat[turn_no])}")


def checkpoint_bytes(make_engine: MakeEngine, turns: int = 50) -> None:
    """Changelog bytes for one conversation checkpointed after every turn, beside the old whole-log record."""
    import random

    from monitor.stream.processor import TurnProcessor

    rng = random.Random(9)
    dialogs = action_dialogs(turns, rng)
    events = [
        dict(e, conversation_id="cp", turn_no=n, final=False)
        for n, e in enumerate((e for d in dialogs for e in dialog_events(d)), start=1)
    ][:turns]
    processor = TurnProcessor(make_engine())
    changelog = whole_log = 0
    log: list[str] = []
    for n, raw in enumerate(encode_event(e) for e in events):
        event = decode_event(raw)
        processor.process(event, raw=raw)
        changelog += sum(len(r.value or b"") for r in processor.checkpoint())
        log.append(raw.decode())
        whole_log += len(json.dumps({"v": 1, "status": "open", "log": log, "held": [], "emitted": n}))
    print(
        f"checkpoint bytes, one {turns}-turn conversation checkpointed after every turn: "
        f"changelog {changelog:,} B   (whole log re-encoded each time, as before: {whole_log:,} B)"
    )


def otlp_backlog(bootstrap: str, dialogs: list[Dialog], make_engine: MakeEngine) -> None:
    """The OTLP input beside native events on the same backlog, gold from one reference file in all three runs."""
    import tempfile

    from monitor.sources.otlp import Encoding
    from monitor.sources.otlp.emit import dialog_records

    def unaligned(d: Dialog) -> dict:  # type: ignore[type-arg]
        turns = d.turns or []
        return {
            "dialog_id": d.dialog_id,
            "gold_turns": [{"turn": t.turn, "gold_turn": t.gold_turn} for t in turns],
            "predict_turns": [{"turn_no": t.turn_no, "turn": t.turn, "predict_turn": t.predict_turn} for t in turns],
        }

    refs = [Dialog.model_validate(unaligned(d)) for d in dialogs]
    turns = sum(len(d.turns or []) for d in dialogs)
    rates = []
    with tempfile.TemporaryDirectory() as tmp:
        reference = Path(tmp) / "references.jsonl"
        reference.write_text("".join(d.model_dump_json(exclude_none=True) + "\n" for d in refs))
        for input_format in ("aem", "otlp_json", "otlp_proto"):
            names = topics(bootstrap)
            producer = make_producer(bootstrap)
            if input_format == "aem":
                records = publish(producer, names[0], [e for d in refs for e in dialog_events(d)])
            else:
                records = 0
                for record in dialog_records(((d, d.dialog_id) for d in dialogs), Encoding(input_format)):
                    producer.send(names[0], key=record.key, value=record.value)
                    records += 1
                producer.flush(timeout=60)
            producer.close()
            monitor = monitor_for(
                bootstrap, names, make_engine(), input_format=input_format, reference=[str(reference)]
            )
            seconds = run_monitor_until(monitor, turns)
            rates.append(f"{input_format} {turns / seconds:6.0f} turns/s ({records} records)")
    print(f"{'otlp vs native':<15} {turns:>6} turns (gold by reference_id): " + "   ".join(rates))


def open_conversation_bytes(conversations: int) -> None:
    """Memory of one open 3-turn conversation: benchmarks/memory.py's measurement, unbounded, in a subprocess."""
    memory = Path(__file__).with_name("memory.py")
    cmd = [sys.executable, str(memory), "--child", "100000000", "--conversations", str(conversations), "--turns", "3"]
    row = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])
    print(
        f"open conversations: {row['open']:,} of 3 turns hold {row['bytes_per_open']:,.0f} B each "
        f"(RSS growth / open conversations, target <= 4 kB)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actions", type=int, default=10_000)
    parser.add_argument("--responses", type=int, default=1_000)
    parser.add_argument("--data", type=Path, default=DATA_DIR,
        help="evaluation data folder (reply texts; default: benchmarks/data)")
    parser.add_argument("--rate", type=float, default=None, help="offered load; default half the action rate")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--turn-gap", type=float, default=3.0, help="seconds between turns of a conversation")
    parser.add_argument("--otlp-actions", type=int, default=3_000, help="action turns for the OTLP run (0: skip)")
    parser.add_argument("--open-conversations", type=int, default=20_000, help="for the memory figure (0: skip)")
    parser.add_argument("--only", action="append", choices=SECTIONS, help="run only these sections (repeatable)")
    parser.add_argument("--torch-threads", type=int, default=0, help="torch intra-op threads (0: torch's default)")
    parser.add_argument("--decisions", default="default,fused",
        help="reply decisions the responses section measures, comma-separated: default (the verifier alone), "
             "fused (scoring.verifier.fusion: true)")
    args = parser.parse_args()
    run = set(args.only or SECTIONS)
    configure_logging("error")
    if args.torch_threads:  # 1 on a shared machine: no thread waits on a descheduled sibling, wall ~ CPU time
        import torch

        torch.set_num_threads(args.torch_threads)
    import random

    from monitor.embeddings import EmbeddingScorer

    print(f"start: {load()}, {os.cpu_count()} CPUs")
    shared = EmbeddingScorer()
    shared.encode(["warm up"])

    def make_engine() -> ScoringEngine:
        return build_engine(ScoringConfig(), semantic=EmbeddingScorer(encoder=shared.encoder))  # cold caches

    if "state" in run:
        checkpoint_bytes(make_engine)
        if args.open_conversations:
            open_conversation_bytes(args.open_conversations)
    with TansuBroker() as broker:
        top = 2 * _LATENCY_RATE
        if "actions" in run:
            top = action_backlog(broker.bootstrap, action_dialogs(args.actions, random.Random(3)), make_engine)
        if args.otlp_actions and "otlp" in run:
            otlp_backlog(broker.bootstrap, action_dialogs(args.otlp_actions, random.Random(4)), make_engine)
        if args.data and "responses" in run:
            fused = ScoringConfig.model_validate({"verifier": {"fusion": True}})
            engines_by = {
                "default": make_engine,
                "fused": lambda: build_engine(fused, semantic=EmbeddingScorer(encoder=shared.encoder)),
            }
            wanted = [d.strip() for d in args.decisions.split(",") if d.strip()]
            if unknown := set(wanted) - set(engines_by):
                parser.error(f"--decisions: unknown {sorted(unknown)} (default, fused)")
            response_backlog(broker.bootstrap, args.data, args.responses, shared, {d: engines_by[d] for d in wanted})
        if args.seconds and "latency" in run:
            latency(broker.bootstrap, make_engine, args.rate or top / 2, args.seconds, args.turn_gap)
    print(f"end: {load()}")


if __name__ == "__main__":
    main()
