"""Rebalances on fakes: a partition kept through an eager rebalance keeps its conversations.

kafka-python runs the rebalance listener on its IO thread and keeps the fetch position of a
partition that is assigned again, so the loop may see the revocation in one poll and the new
assignment in a later one. These tests drive the listener by hand at exactly those moments.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from kafka import TopicPartition
from prometheus_client import CollectorRegistry

from monitor.stream.runner import Monitor
from monitor.stream.settings import MonitorSettings
from monitor.stream.state import StateStore, never
from monitor.wiring import build_monitor
from tests.stream.fakes import FakeConsumer, FakeProducer
from tests.stream.helpers import FakeClock
from tests.stream.test_checkpoint import sales_values

TP0, TP1 = TopicPartition("traces", 0), TopicPartition("traces", 1)


class MemoryStore(StateStore):
    """The changelog as a dict per partition; counts the partitions it was asked to load."""

    def __init__(self) -> None:
        self.records: dict[int, dict[str, bytes]] = {}
        self.loaded: list[int] = []

    def save(self, partition: int, key: str, value: bytes | None, source: str) -> None:
        if value is None:
            self.records.get(partition, {}).pop(key, None)
        else:
            self.records.setdefault(partition, {})[key] = value

    def load_many(self, partitions: Sequence[int], stopping: Callable[[], bool] = never) -> dict[int, dict[str, bytes]]:
        self.loaded += partitions
        return {p: dict(self.records.get(p, {})) for p in partitions}


class RewindingConsumer(FakeConsumer):
    def __init__(self, partitions: int) -> None:
        super().__init__(partitions=partitions)
        self.rewound: list[tuple[TopicPartition, int]] = []

    def seek(self, tp: TopicPartition, offset: int) -> None:
        self.rewound.append((tp, offset))


def monitor_on(
    engine, consumer: FakeConsumer, producer: FakeProducer, store: MemoryStore, clock: FakeClock | None = None
) -> Monitor:
    settings = MonitorSettings(state_topic="", commit_interval_s=3600, metrics_port=0, idle_timeout_s=60)
    monitor = build_monitor(
        settings,
        engine=engine,
        registry=CollectorRegistry(),
        consumer=consumer,
        producer=producer,
        store=store,
        clock=clock or FakeClock(),
    )
    monitor.start()
    monitor.poll_once()  # the first assignment: nothing to restore yet
    return monitor


def turn_verdicts(producer: FakeProducer, cid: str) -> list[int]:
    return sorted(
        v["turn_no"] for v in producer.values("aem.verdicts") if v["kind"] == "turn" and v["conversation_id"] == cid
    )


def test_a_partition_kept_through_a_split_rebalance_keeps_what_was_scored_since_the_checkpoint(engine):
    consumer, producer, store = FakeConsumer(partitions=2), FakeProducer(), MemoryStore()
    monitor = monitor_on(engine, consumer, producer, store)
    values = sales_values("c1")
    consumer.feed("traces", values[:3])
    monitor.poll_once()  # scored, not yet in the changelog (the commit interval has not passed)
    assert "c1" in monitor.processor.open and store.records.get(0, {}) == {}

    consumer.listener.on_partitions_revoked({TP0, TP1})
    monitor.poll_once()  # the loop sees the revocation before the new assignment
    consumer.listener.on_partitions_assigned({TP0, TP1})
    consumer.feed("traces", values[3:])
    for _ in range(3):
        monitor.poll_once()

    scored = [json.loads(v)["turn_no"] for v in values if json.loads(v)["turn"] != "User"]
    assert turn_verdicts(producer, "c1") == scored  # nothing held back waiting for turns the state forgot
    kinds = [v["kind"] for v in producer.values("aem.verdicts") if v["conversation_id"] == "c1"]
    assert kinds.count("dialog") == 1


def test_nothing_is_scored_between_the_revocation_and_the_assignment(engine):
    consumer, producer, store = RewindingConsumer(partitions=2), FakeProducer(), MemoryStore()
    monitor = monitor_on(engine, consumer, producer, store)
    consumer.listener.on_partitions_revoked({TP0, TP1})
    consumer.feed("traces", sales_values("c1")[:2])
    monitor.poll_once()
    assert monitor.stats.verdicts == 0 and "c1" not in monitor.processor.open
    assert consumer.rewound == [(TP0, 0)]  # fetched again once the assignment is known


def test_timers_wait_for_the_new_assignment(engine):
    consumer, producer, store, clock = FakeConsumer(partitions=2), FakeProducer(), MemoryStore(), FakeClock()
    monitor = monitor_on(engine, consumer, producer, store, clock)
    consumer.feed("traces", sales_values("c1")[:3])
    monitor.poll_once()
    for _ in range(11):  # 55 s of polling: not idle yet (60 s)
        clock.advance(5)
        monitor.poll_once()
    assert "c1" in monitor.processor.open
    consumer.listener.on_partitions_revoked({TP0, TP1})
    for _ in range(2):  # past the idle timeout, mid-rebalance: c1 may be about to move to another member
        clock.advance(5)
        monitor.poll_once()
    assert "c1" in monitor.processor.open
    consumer.listener.on_partitions_assigned({TP0, TP1})
    monitor.poll_once()  # kept: now its idle timeout finishes it
    monitor.poll_once()
    assert [v["kind"] for v in producer.values("aem.verdicts") if v["conversation_id"] == "c1"].count("dialog") == 1


def test_only_partitions_that_moved_away_are_dropped(engine):
    consumer, producer, store = FakeConsumer(partitions=2), FakeProducer(), MemoryStore()
    monitor = monitor_on(engine, consumer, producer, store)
    consumer.feed("traces", sales_values("c0")[:3], partition=0)
    consumer.feed("traces", sales_values("c1")[:3], partition=1)
    monitor.poll_once()
    loads = len(store.loaded)

    consumer.listener.on_partitions_revoked({TP0, TP1})
    consumer.tps = {TP1}
    consumer.listener.on_partitions_assigned({TP1})
    monitor.poll_once()

    assert set(monitor.processor.open) == {"c1"}  # c0's next owner restores it
    assert len(store.loaded) == loads  # the kept partition was not reloaded
    assert TP0 not in monitor.link.checkpoint.polled


def test_lost_partitions_are_reloaded_from_the_changelog(engine):
    consumer, producer, store = FakeConsumer(partitions=2), FakeProducer(), MemoryStore()
    monitor = monitor_on(engine, consumer, producer, store)
    consumer.feed("traces", sales_values("c0")[:3], partition=0)
    monitor.poll_once()
    monitor.poll_once()  # idle: the checkpoint writes c0's changelog
    assert store.records.get(0)

    consumer.listener.on_partitions_lost({TP0, TP1})  # evicted: positions restart from the commit
    consumer.listener.on_partitions_assigned({TP0, TP1})
    monitor.poll_once()
    assert sorted(store.loaded[-2:]) == [0, 1]
    assert "c0" in monitor.processor.open
