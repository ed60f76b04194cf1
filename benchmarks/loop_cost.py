"""Benchmark: `aem run`'s poll loop alone on an action-turn backlog — no broker, no Kafka client.

The Monitor reads from an in-memory consumer and writes to an in-memory producer and state store
(tests/stream/fakes.py), so what is measured is decode → process → sinks → checkpoint and nothing else.
Prints the loop thread's CPU per event (median and 10th percentile over polls) and a sha256 of every
verdict record, so two versions of the code can be checked for byte-identical output. Asserts nothing.

CPU time on a shared machine moves by ±30 % from run to run. For a steady figure count instructions
instead: `--callgrind` switches valgrind's instrumentation on for the measured polls only:

    HF_HUB_OFFLINE=1 valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/cg.out \\
        .venv/bin/python benchmarks/loop_cost.py --actions 1500 --typed-only --callgrind
    callgrind_annotate /tmp/cg.out | grep "PROGRAM TOTALS"     # divide by the events printed

`--typed-only` leaves the embedding model out (valgrind would spend minutes loading it). The backlog is
fed after the assignment poll, so every event falls in the measured polls.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(str(Path(__file__).resolve().parent.parent))  # for tests.stream.fakes; PYTHONPATH goes first

from prometheus_client import CollectorRegistry
from score_throughput import action_dialogs

from monitor.embeddings import EmbeddingScorer
from monitor.logs import configure_logging
from monitor.models.trace_event import encode_event
from monitor.scoring import ScoringConfig
from monitor.stream.settings import MonitorSettings
from monitor.tools.replay import dialog_events
from monitor.wiring import build_engine, build_monitor
from tests.stream.fakes import FakeConsumer
from tests.stream.test_rebalance import MemoryStore

PARTITIONS = 3


class KeptProducer:
    """Keeps the verdict records' values (for the hash) and counts records per topic."""

    def __init__(self) -> None:
        self.verdicts: list[bytes] = []
        self.counts: dict[str, int] = {}

    def send(self, topic: str, fallback: object = None, **record: bytes) -> None:
        self.counts[topic] = self.counts.get(topic, 0) + 1
        if topic == "aem.verdicts":
            self.verdicts.append(record["value"])

    def flush(self, timeout: float | None = None) -> None:
        return None

    def partitions_for(self, topic: str) -> set[int]:
        return set(range(PARTITIONS))

    def close(self, timeout: float | None = None) -> None:
        return None


def callgrind(on: bool) -> None:
    subprocess.run(["callgrind_control", "-i", "on" if on else "off", str(os.getpid())], capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actions", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--typed-only", action="store_true", help="no embedding model (typed stages only)")
    parser.add_argument("--callgrind", action="store_true", help="instrument only the measured polls (valgrind)")
    args = parser.parse_args()
    configure_logging("error")
    shared = None if args.typed_only else EmbeddingScorer()
    events = [e for d in action_dialogs(args.actions, random.Random(3)) for e in dialog_events(d)]
    for repeat in range(args.repeats):
        consumer = FakeConsumer(topic="traces", partitions=PARTITIONS)
        producer = KeptProducer()
        semantic = {"embed": False} if shared is None else {"semantic": EmbeddingScorer(encoder=shared.encoder)}
        monitor = build_monitor(
            MonitorSettings(topic="traces", state_topic="", metrics_port=0),
            engine=build_engine(ScoringConfig(), **semantic),
            registry=CollectorRegistry(),
            consumer=consumer,
            producer=producer,
            store=MemoryStore(),
        )
        monitor.start()
        monitor.poll_once()  # the assignment, before any record is there: every event is in the measured polls
        for event in events:  # a conversation's events stay on one partition, in order
            partition = int(hashlib.md5(event["conversation_id"].encode()).hexdigest(), 16) % PARTITIONS
            consumer.feed("traces", [encode_event(event)], partition=partition)
        per_event: list[float] = []
        if args.callgrind:
            callgrind(True)
        while consumer.queue:
            polled, start = min(len(consumer.queue), consumer.batch), time.thread_time()
            monitor.poll_once()
            per_event.append((time.thread_time() - start) / polled)
        monitor.link.checkpoint.commit()
        if args.callgrind:
            callgrind(False)
        monitor._shutdown()
        per_event.sort()
        digest = hashlib.sha256(b"\n".join(producer.verdicts)).hexdigest()[:16]
        print(
            f"repeat {repeat}: {len(events)} events, loop CPU per event: median "
            f"{1e6 * per_event[len(per_event) // 2]:.0f} us, p10 {1e6 * per_event[len(per_event) // 10]:.0f} us; "
            f"records {producer.counts}; verdict records sha256 {digest}"
        )


if __name__ == "__main__":
    main()
