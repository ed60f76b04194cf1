"""Benchmark: `aem compare` reading the verdict topic, beside a bare consumer's read of the same records.

Prints figures; asserts nothing. Run: `HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/compare_read.py
[--records N]` (default 1,000,000). The demo's 200 dialogs of two releases are scored once; their verdict
records (per dialog: 5 `turn`, 1 `chain`, 1 `dialog`, serialised by the monitor's own
`monitor/stream/verdict_records.py`) are copied under fresh conversation ids until the topic holds N records
on the embedded broker (3 partitions). Then, in one run: a bare kafka-python consumer polls every record
(nothing decoded), and `aem compare`'s reader (`monitor/tools/verdict_scan.py`) reads the same records into
the two releases' tallies. Ratio: bare seconds / compare seconds (1.0: as fast as the bare read). The load
average is printed first and last: the machine may be shared.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from kafka import KafkaConsumer, TopicPartition

from monitor.cluster import KafkaClient, ensure_topics, make_producer
from monitor.demo.traffic import RELEASES, sample_dialogs
from monitor.logs import configure_logging
from monitor.models.dialog import Dialog
from monitor.models.verdict import DialogResult
from monitor.report.compare import Tally, compare
from monitor.scoring import ScoringConfig
from monitor.stream.emissions import Emission
from monitor.stream.verdict_records import verdict_record
from monitor.tools.broker import TansuBroker
from monitor.tools.topic_reader import TopicReader
from monitor.tools.verdict_scan import scan
from monitor.wiring import build_engine

PER_DIALOG = 7


def records_of(result: DialogResult, conversation: str) -> list[bytes]:
    """The verdict records `aem run` writes for one finished dialog: turns, its chain, the summary."""
    agent, release, mode = result.agent, result.release or "unknown", str(result.mode)
    out = []
    for verdict in result.turns:
        sent = verdict.model_copy(update={"chain_length": None}) if verdict.turn == "Tool" else verdict
        out.append(verdict_record(Emission("turn", conversation, agent, release, mode, verdict=sent)))
    head = f'{{"kind":"chain","conversation_id":"{conversation}","agent":"{agent}","release":"{release}",'
    actions = [v.turn_no for v in result.turns if v.turn == "Tool"]
    out.append((head + f'"mode":"{mode}","turns":{actions},"chain_length":"3+"}}').encode())
    out.append(verdict_record(Emission("dialog", conversation, agent, release, mode, result=result)))
    return out


def fill(bootstrap: str, topic: str, results: list[DialogResult], total: int) -> int:
    producer = make_producer(bootstrap, client_id="bench-fill", linger_ms=50, batch_size=512 * 1024)
    sent = i = 0
    while sent < total:
        result = results[i % len(results)]
        conversation = f"{result.dialog_id}-{i}"
        for value in records_of(result, conversation):
            producer.send(topic, key=conversation.encode(), value=value)
            sent += 1
        i += 1
    producer.flush()
    producer.close()
    return sent


def bare_read(bootstrap: str, topic: str) -> tuple[int, float]:
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False)
    tps = [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or [])]
    consumer.assign(tps)
    consumer.seek_to_beginning(*tps)
    start, count, empty = time.perf_counter(), 0, 0
    while empty < 2:  # the same end rule as the topic tools: two empty polls
        batch = consumer.poll(timeout_ms=500)
        if not batch:
            empty += 1
            continue
        empty = 0
        count += sum(len(records) for records in batch.values())
    elapsed = time.perf_counter() - start
    consumer.close()
    return count, elapsed


def compare_read(bootstrap: str, topic: str) -> tuple[int, float, dict[str, Tally]]:
    tallies = {release: Tally(release) for release in RELEASES}
    start = time.perf_counter()
    with TopicReader(KafkaClient(bootstrap_servers=bootstrap), topic) as reader:
        stats = scan(reader, tallies)
    return stats.records, time.perf_counter() - start, tallies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=1_000_000)
    args = parser.parse_args()
    configure_logging("warning")
    print(f"load average {os.getloadavg()}", flush=True)
    engine = build_engine(ScoringConfig())
    dialogs = [Dialog.model_validate(d) for d in sample_dialogs(per_release=100)]
    results = engine.score_dialogs(dialogs)
    with TansuBroker() as broker:
        topic = f"bench-verdicts-{uuid.uuid4().hex[:8]}"
        ensure_topics(broker.bootstrap, [topic], partitions=3)
        started = time.perf_counter()
        sent = fill(broker.bootstrap, topic, results, args.records)
        print(f"wrote {sent:,} verdict records in {time.perf_counter() - started:.0f} s", flush=True)
        bare_n, bare_s = bare_read(broker.bootstrap, topic)
        print(f"bare consumer: {bare_n:,} records in {bare_s:.1f} s ({bare_n / bare_s:,.0f}/s)", flush=True)
        ours_n, ours_s, tallies = compare_read(broker.bootstrap, topic)
        print(f"aem compare's reader: {ours_n:,} records in {ours_s:.1f} s ({ours_n / ours_s:,.0f}/s)", flush=True)
        print(f"ratio (bare seconds / compare seconds): {bare_s / ours_s:.2f}  (target >= 0.5)")
        base, new = (tallies[r] for r in RELEASES)
        result = compare(base, new)
        print(f"dialogs counted: {base.dialogs:,} + {new.dialogs:,}; worse root causes: {result.worse_root_causes}")
    print(f"load average {os.getloadavg()}", flush=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
