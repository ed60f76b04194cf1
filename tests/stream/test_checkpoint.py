"""The commit path with in-memory Kafka stand-ins: order of steps, and nothing committed that is neither published
nor on the changelog."""

from __future__ import annotations

import json

import pytest
from kafka import TopicPartition
from kafka.errors import KafkaTimeoutError
from prometheus_client import CollectorRegistry

from monitor.models.dialog import Dialog
from monitor.stream.changelog import event_key
from monitor.stream.checkpoint import Checkpoint
from monitor.stream.runner import Monitor
from monitor.stream.settings import MonitorSettings
from monitor.wiring import build_monitor
from tests.conftest import EXAMPLES
from tests.stream.fakes import FakeConsumer, FakeProducer, ProducerStore
from tests.stream.helpers import events_of

TP = TopicPartition("traces", 0)


class Steps:
    """A sink and a changelog that log their calls, and fail while told to."""

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls
        self.fail_flush = 0
        self.fail_write = 0

    def add(self, emission: object) -> None:
        self.calls.append("add")

    def flush(self) -> None:
        self.calls.append("sink flush")
        if self.fail_flush:
            self.fail_flush -= 1
            raise RuntimeError("sink flush failed (injected)")

    def write_changes(self) -> None:
        self.calls.append("changelog")
        if self.fail_write:
            self.fail_write -= 1
            raise KafkaTimeoutError("state write failed (injected)")


class LoggingProducer(FakeProducer):
    def __init__(self, calls: list[str]) -> None:
        super().__init__()
        self.calls = calls

    def flush(self, timeout: float | None = None) -> None:
        self.calls.append("producer flush")
        super().flush(timeout)


class LoggingConsumer(FakeConsumer):
    def __init__(self, calls: list[str]) -> None:
        super().__init__()
        self.calls = calls

    def commit(self, offsets: dict) -> None:
        self.calls.append("commit")
        super().commit(offsets)


def make(calls: list[str]) -> tuple[Checkpoint, Steps, LoggingProducer, LoggingConsumer]:
    steps = Steps(calls)
    producer, consumer = LoggingProducer(calls), LoggingConsumer(calls)
    return Checkpoint(consumer, producer, [steps], steps, interval_s=0), steps, producer, consumer


def test_commit_runs_sinks_changelog_producer_then_offsets():
    calls: list[str] = []
    checkpoint, *_, consumer = make(calls)
    checkpoint.polled_to(TP, 2)
    assert checkpoint.commit() == {TP: 3}
    assert calls == ["sink flush", "changelog", "producer flush", "commit"]
    assert consumer.committed_offset() == 3


@pytest.mark.parametrize("failing", ["sink", "changelog", "producer"])
def test_a_failing_step_commits_nothing_and_the_next_commit_catches_up(failing):
    calls: list[str] = []
    checkpoint, steps, producer, consumer = make(calls)
    if failing == "sink":
        steps.fail_flush = 1
    elif failing == "changelog":
        steps.fail_write = 1
    else:
        producer.fail_flushes = 1
    checkpoint.polled_to(TP, 0)
    with pytest.raises((RuntimeError, KafkaTimeoutError)):
        checkpoint.commit()
    assert consumer.commits == [] and "commit" not in calls
    assert checkpoint.due(idle=True)  # still to commit: its flush never succeeded
    assert checkpoint.commit() == {TP: 1}


def test_a_failed_commit_is_retried():
    checkpoint, _, _, consumer = make([])
    consumer.fail_commits = 1
    checkpoint.polled_to(TP, 0)
    assert checkpoint.commit() == {} and consumer.commits == []
    assert checkpoint.commit() == {TP: 1}


def test_offsets_stop_at_a_record_the_source_still_holds_part_of():
    held: dict[TopicPartition, int] = {TP: 1}  # e.g. an OTLP batch whose spans wait for their trace
    steps, consumer = Steps([]), FakeConsumer()
    checkpoint = Checkpoint(consumer, FakeProducer(), [steps], steps, interval_s=0, holding=lambda: held)
    checkpoint.polled_to(TP, 3)
    assert checkpoint.commit() == {TP: 1}
    assert not checkpoint.due(idle=True)  # nothing more to commit while it holds it
    held.clear()
    assert checkpoint.due(idle=True)
    assert checkpoint.commit() == {TP: 4}


def test_output_without_a_new_record_makes_a_commit_due_once():
    calls: list[str] = []
    checkpoint, *_ = make(calls)
    assert not checkpoint.due(idle=True)
    checkpoint.emitted()  # e.g. a timer finished a conversation: its summary waits in the producer
    assert checkpoint.due(idle=True)
    assert checkpoint.commit() == {} and calls == ["sink flush", "changelog", "producer flush"]
    assert not checkpoint.due(idle=True)


def test_revoked_partitions_are_not_committed():
    checkpoint, _, _, consumer = make([])
    checkpoint.polled_to(TP, 0)
    checkpoint.forget([TP])
    assert checkpoint.commit() == {} and consumer.commits == []


# -- the poll loop on fakes, with the real engine --------------------------------------------------

SALES = json.loads((EXAMPLES / "sales_report.json").read_text())


def sales_values(cid: str) -> list[bytes]:
    dialog = Dialog.model_validate({"dialog_id": cid, "release": "r", "turns": SALES})
    return [e.model_dump_json(exclude_none=True).encode() for e in events_of(dialog)]


def loop(engine, consumer: FakeConsumer, producer: FakeProducer, changelog: bool = True) -> Monitor:
    settings = MonitorSettings(state_topic="", commit_interval_s=0, metrics_port=0)
    store = ProducerStore(producer) if changelog else None
    monitor = build_monitor(
        settings, engine=engine, registry=CollectorRegistry(), consumer=consumer, producer=producer, store=store
    )
    monitor.start()
    return monitor


def committed_events_are_kept(consumer: FakeConsumer, producer: FakeProducer, values: list[bytes]) -> None:
    """Every event below the committed offset has its verdict delivered, or is on the delivered changelog."""
    delivered = {(v["conversation_id"], v.get("turn_no")) for v in producer.values("aem.verdicts")}
    on_changelog = {r["key"] for t, r in producer.delivered if t == "aem.state"}
    offset = consumer.committed_offset() or 0
    for value in values[:offset]:
        event = json.loads(value)
        turn = (event["conversation_id"], event["turn_no"])
        if event["turn"] != "User":
            kept = turn in delivered or event_key(*turn).encode() in on_changelog
            assert kept, (event["turn_no"], offset)


def turns_sent(producer: FakeProducer) -> list[tuple[str, int]]:
    return [(v["conversation_id"], v["turn_no"]) for v in producer.values("aem.verdicts") if v["kind"] == "turn"]


def test_the_loop_commits_only_what_is_published_or_on_the_changelog(engine):
    consumer, producer = FakeConsumer(batch=2), FakeProducer()
    monitor = loop(engine, consumer, producer)
    values = sales_values("c1")
    consumer.feed("traces", values)
    producer.fail_flushes = 1
    with pytest.raises(KafkaTimeoutError):  # `run` logs it and polls again
        monitor.poll_once()  # two events; the flush fails: nothing committed
    assert consumer.commits == []
    producer.fail_flushes = 0
    for _ in range(4):
        monitor.poll_once()
        committed_events_are_kept(consumer, producer, values)
    assert consumer.committed_offset() == len(values)
    kinds = [v["kind"] for v in producer.values("aem.verdicts")]
    assert kinds.count("dialog") == 1 and kinds.count("turn") == 5


def test_offsets_move_past_a_turn_waiting_for_its_group_and_a_restart_sends_it_once(engine):
    """Turn 2 of the sales report waits for turn 3 (an order-invariant group): its offset is committed at once,
    since the changelog holds it; a fresh process reading on from the commit sends its verdict once."""
    producer = FakeProducer()
    values, other = sales_values("held"), sales_values("other")
    first = FakeConsumer()
    first.feed("traces", [*values[:2], *other])
    monitor = loop(engine, first, producer)
    monitor.poll_once()
    assert ("held", 2) not in turns_sent(producer)
    assert first.committed_offset() == 2 + len(other)  # past the waiting turn
    second = FakeConsumer()  # a restart: reads on from the committed offset
    second.feed("traces", values[2:])
    monitor = loop(engine, second, producer)
    monitor.poll_once()
    monitor.poll_once()
    sent = turns_sent(producer)
    assert sorted(sent) == sorted({*sent}) and len(sent) == 10  # every turn of both, once
    assert [v["conversation_id"] for v in producer.values("aem.verdicts") if v["kind"] == "dialog"] == [
        "other",
        "held",
    ]


def test_a_crash_between_the_changelog_flush_and_the_offset_commit_loses_nothing_and_sends_nothing_twice(engine):
    producer = FakeProducer()
    values = [v for pair in zip(sales_values("a"), sales_values("b"), strict=True) for v in pair]
    first = FakeConsumer(batch=3)
    first.feed("traces", values)
    first.fail_commits = 1_000  # the process dies after each flush, before its commit
    monitor = loop(engine, first, producer)
    for _ in range(2):  # six of ten events read, scored and on the changelog; no offset committed
        monitor.poll_once()
    assert first.commits == [] and turns_sent(producer)
    second = FakeConsumer(batch=3)  # a fresh process: everything is read again
    second.feed("traces", values)
    monitor = loop(engine, second, producer)
    for _ in range(5):
        monitor.poll_once()
    sent = turns_sent(producer)
    assert len(sent) == len(set(sent)) == 10  # none lost, none sent twice: the changelog knew what was sent
    assert sorted(v["conversation_id"] for v in producer.values("aem.verdicts") if v["kind"] == "dialog") == ["a", "b"]
    assert second.committed_offset() == len(values)


def test_the_loop_dead_letters_a_poison_pill_and_moves_on(engine):
    consumer, producer = FakeConsumer(), FakeProducer()
    monitor = loop(engine, consumer, producer)
    pill = sales_values("bad")[1].replace(b'"turn_no":2', b'"turn_no":' + b"9" * 5000)
    values = [pill, *sales_values("c2")]
    consumer.feed("traces", values)
    monitor.poll_once()
    monitor.poll_once()
    assert consumer.committed_offset() == len(values)
    [(_topic, record)] = [(t, r) for t, r in producer.delivered if t == "aem.traces.dlq"]
    assert record["value"] == pill and dict(record["headers"])["aem-source"] == b"traces/0/0"
