"""A stop (SIGTERM) in the middle of a long poll: the monitor stops between two events, not after the poll, and
what it did not process is read again after the restart (at least once: nothing lost, nothing sent twice)."""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry

from monitor.stream.runner import Monitor
from monitor.stream.settings import MonitorSettings
from monitor.wiring import build_monitor
from tests.otlp.builders import batch, span, tool
from tests.stream.fakes import FakeConsumer, FakeProducer, ProducerStore
from tests.stream.test_checkpoint import sales_values, turns_sent


def monitor_on(engine: Any, consumer: FakeConsumer, producer: FakeProducer, **settings: Any) -> Monitor:
    config = MonitorSettings(state_topic="", commit_interval_s=0, metrics_port=0, **settings)
    store = ProducerStore(producer)
    monitor = build_monitor(
        config, engine=engine, registry=CollectorRegistry(), consumer=consumer, producer=producer, store=store
    )
    monitor.start()
    return monitor


def stop_after(monitor: Monitor, events: int) -> None:
    """SIGTERM arrives while the `events`-th event of the poll is processed."""
    process, seen = monitor.processor.process, []

    def counting(*args: Any, **kwargs: Any) -> Any:
        seen.append(1)
        if len(seen) == events:
            monitor.stop()
        return process(*args, **kwargs)

    monitor.processor.process = counting  # type: ignore[method-assign]


def stop_mid_poll(monitor: Monitor, events: int) -> None:
    """One poll, stopped after `events` events, then what `Monitor.run` does on the way out."""
    stop_after(monitor, events)
    monitor.poll_once()
    monitor.link.checkpoint.commit(timeout=10)


def test_a_stop_mid_poll_leaves_the_rest_of_the_poll_uncommitted_and_a_restart_scores_it(engine):
    producer = FakeProducer()
    values = [v for pair in zip(sales_values("a"), sales_values("b"), strict=True) for v in pair]
    first = FakeConsumer()
    first.feed("traces", values)
    monitor = monitor_on(engine, first, producer)
    stop_mid_poll(monitor, 4)
    assert len(turns_sent(producer)) < 10
    assert first.committed_offset() == 4  # the first event not processed
    second = FakeConsumer()  # the restart reads on from the committed offset
    second.feed("traces", values[4:])
    monitor = monitor_on(engine, second, producer)
    monitor.poll_once()
    sent = turns_sent(producer)
    assert len(sent) == len(set(sent)) == 10


TRACE = "0" * 31 + "7"
ROOT = "0" * 15 + "1"


def failing_trace(turns: int) -> list[bytes]:
    """One OTLP trace of `turns` judge-only tool calls (each argument stated nowhere, each output different) in
    one batch, then its root in a second: the second releases every turn in one poll."""
    spans = [
        tool(TRACE, f"{i + 2:016x}", ROOT, i, "lookup", {"q": f"item {i}"}, {"code": 4000 + i}) for i in range(turns)
    ]
    root = span(TRACE, ROOT, "", 0, turns + 10, **{"gen_ai.operation.name": "invoke_agent"})
    return [batch(*spans), batch(root)]


def test_a_stop_while_a_released_trace_is_scored_leaves_its_batch_to_be_read_again(engine):
    producer = FakeProducer()
    records = failing_trace(30)
    first = FakeConsumer()
    first.feed("traces", records)
    monitor = monitor_on(engine, first, producer, input_format="otlp_json")
    stop_mid_poll(monitor, 10)
    assert len(turns_sent(producer)) < 30
    assert first.committed_offset() == 0  # the spans' batch: its unprocessed turns are read again
    second = FakeConsumer()
    second.feed("traces", records)
    monitor = monitor_on(engine, second, producer, input_format="otlp_json")
    monitor.poll_once()
    monitor.poll_once()
    sent = turns_sent(producer)
    assert len(sent) == len(set(sent)) and sorted(n for _, n in sent) == list(range(1, 31))
    verdicts = [v for v in producer.values("aem.verdicts") if v["kind"] == "turn"]
    assert all(v["success"] is False for v in verdicts)
