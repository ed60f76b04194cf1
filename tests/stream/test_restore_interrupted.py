"""A stop (SIGTERM) while newly assigned partitions are restored: the restore gives up between two reads of the state
topic or two conversations, keeps nothing of what it rebuilt, commits nothing, and the restart restores it all
(the verdicts never sent before the first stop included, each once). The real-broker probe is
tests/reliability/test_state_topic_stream.py."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import pytest
from kafka import TopicPartition
from prometheus_client import CollectorRegistry

from monitor.stream import state
from monitor.stream.changelog import group_changelog
from monitor.stream.partitions import PartitionState
from monitor.stream.processor import TurnProcessor
from monitor.stream.runner import Monitor
from monitor.stream.settings import MonitorSettings
from monitor.stream.state import KafkaStateStore, RestoreInterrupted, never
from monitor.wiring import build_monitor
from tests.stream.fakes import FakeConsumer, FakeProducer, Record
from tests.stream.helpers import events_of
from tests.stream.test_checkpoint import sales_values, turns_sent
from tests.stream.test_processor import changelog, run, sales_dialog
from tests.stream.test_rebalance import MemoryStore, RewindingConsumer

TP0 = TopicPartition("traces", 0)
CONVERSATIONS = [f"c{i}" for i in range(5)]
UNSENT = "c2"  # its head says one verdict fewer was sent than its events give: the restore sends it


def saved_store(engine: Any) -> MemoryStore:
    """The state of five sales dialogs after four events (turns 1-4 scored), all on partition 0; one of them
    stopped before its turn 4 verdict was sent."""
    store = MemoryStore()
    for cid in CONVERSATIONS:
        first = TurnProcessor(engine)
        run(first, events_of(sales_dialog(cid))[:4])
        saved = changelog(first)
        if cid == UNSENT:
            head = json.loads(saved[cid])
            saved[cid] = json.dumps({**head, "emitted": head["emitted"] - 1}).encode()
        store.records.setdefault(0, {}).update(saved)
    return store


def stopping_after(calls: int) -> Callable[[], bool]:
    """A `stopping` that says yes from its `calls`-th question on."""
    asked = [0]

    def stopping() -> bool:
        asked[0] += 1
        return asked[0] >= calls

    return stopping


def test_parsing_a_partitions_records_gives_up_once_stopping(engine):
    records = saved_store(engine).records[0]
    with pytest.raises(RestoreInterrupted):
        group_changelog(records, stopping=stopping_after(3))
    assert set(group_changelog(records, stopping=never)) == set(CONVERSATIONS)


def test_a_restore_stopped_between_conversations_keeps_nothing_and_a_second_restores_everything(engine):
    store = saved_store(engine)
    processor = TurnProcessor(engine)
    partitions = PartitionState(processor, store, finished_retention_s=3600)
    partitions.stopping = lambda: UNSENT in processor.open  # c0-c2 restored (c2 sent its turn 4 again), then SIGTERM
    out = partitions.restore({TP0})
    assert (out.emissions, out.failed) == ([], [])
    assert TP0 not in partitions.restored and not partitions.ready(TP0)
    assert (dict(processor.open), dict(processor.finished), processor.dirty, partitions.owner) == ({}, {}, set(), {})

    partitions.stopping = never
    out = partitions.restore({TP0})
    assert TP0 in partitions.restored
    assert set(processor.open) == set(CONVERSATIONS)
    assert [(e.conversation_id, e.verdict.turn_no) for e in out.emissions if e.verdict is not None] == [(UNSENT, 4)]


class EndlessConsumer:
    """A state topic that is never read to its end: a record per poll."""

    made: ClassVar[list[EndlessConsumer]] = []

    def __init__(self, **kwargs: Any) -> None:
        self.polls, self.closed = 0, False
        EndlessConsumer.made.append(self)

    def assign(self, tps: Sequence[TopicPartition]) -> None:
        self.tps = list(tps)

    def seek_to_beginning(self, *tps: TopicPartition) -> None:
        return None

    def end_offsets(self, tps: Sequence[TopicPartition]) -> dict[TopicPartition, int]:
        return dict.fromkeys(tps, 1 << 40)

    def poll(self, timeout_ms: int = 0) -> dict[TopicPartition, list[Record]]:
        self.polls += 1
        tp = self.tps[0]
        return {tp: [Record(tp.topic, tp.partition, self.polls, b'{"status":"finished"}', key=b"c%d" % self.polls)]}

    def position(self, tp: TopicPartition) -> int:
        return self.polls

    def close(self) -> None:
        self.closed = True


def test_reading_the_state_topic_gives_up_between_two_polls_once_stopping(monkeypatch):
    monkeypatch.setattr(state, "KafkaConsumer", EndlessConsumer)
    store = KafkaStateStore("localhost:9", "aem.state", producer=None, read_timeout_s=3600)
    reader: list[EndlessConsumer] = []

    def stopping() -> bool:
        reader[:] = EndlessConsumer.made[-1:]
        return reader[0].polls >= 3

    with pytest.raises(RestoreInterrupted):
        store.load_many([0, 1], stopping=stopping)
    assert reader[0].polls == 3 and reader[0].closed


def monitor_on(engine: Any, consumer: FakeConsumer, producer: FakeProducer, store: MemoryStore) -> Monitor:
    settings = MonitorSettings(state_topic="", commit_interval_s=0, metrics_port=0, idle_timeout_s=60)
    monitor = build_monitor(
        settings, engine=engine, registry=CollectorRegistry(), consumer=consumer, producer=producer, store=store
    )
    monitor.start()
    return monitor


def test_a_stop_amid_the_restore_commits_nothing_and_the_restart_sends_each_verdict_once(engine):
    store, producer = saved_store(engine), FakeProducer()
    saved = {p: dict(records) for p, records in store.records.items()}
    later = [sales_values(cid)[4] for cid in CONVERSATIONS]  # turn 5 of each, polled with the assignment
    first = RewindingConsumer(partitions=1)
    first.feed("traces", later)
    monitor = monitor_on(engine, first, producer, store)
    load = store.load_many

    def sigterm_while_reading(partitions: Sequence[int], stopping: Callable[[], bool] = never) -> Any:
        monitor.stop()
        return load(partitions, stopping)

    store.load_many = sigterm_while_reading  # type: ignore[method-assign]
    monitor.poll_once()  # the first assignment: its restore meets the stop
    monitor.link.checkpoint.commit(timeout=10)  # what `Monitor.run` does on the way out
    assert TP0 not in monitor.partitions.restored and dict(monitor.processor.open) == {}
    assert producer.values("aem.verdicts") == [] and first.commits == []
    assert first.rewound == [(TP0, 0)]  # the batch polled with the assignment: read again by the next owner
    assert store.records == saved
    del store.load_many  # no stop this time

    second = FakeConsumer()  # the restart reads from the (unmoved) committed offset
    second.feed("traces", later)
    monitor = monitor_on(engine, second, producer, store)
    monitor.poll_once()
    monitor.poll_once()
    sent = turns_sent(producer)
    assert sorted(sent) == sorted([(UNSENT, 4), *((cid, 5) for cid in CONVERSATIONS)])
    assert second.committed_offset() == len(later)
