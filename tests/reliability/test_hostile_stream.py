"""A hypothesis-generated batch of hostile events, mixed with valid traffic, through a real `aem run`."""

from __future__ import annotations

import random
import re
import time
import urllib.request

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from monitor.cluster import make_producer
from monitor.models.trace_event import EventLimits, InvalidEvent, decode_event
from monitor.tools.replay import publish
from tests.reliability.hostile import every_kind
from tests.reliability.scenarios import Harness, evaluate, make_traffic, read_verdicts, wait_for_coverage
from tests.support.kafka import read_all

pytestmark = pytest.mark.integration

MAX_BYTES = 200_000  # the monitor under test runs with AEM_MAX_EVENT_BYTES lowered to this


def scrape(port: int, name: str, **labels: str) -> float:
    """The sum of `name`'s samples with `labels` on the monitor's /metrics."""
    return sample(metrics_text(port), name, **labels)


def metrics_text(port: int) -> str:
    return str(urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode())


def sample(text: str, name: str, **labels: str) -> float:
    """The sum of `name`'s samples with `labels` in a /metrics text."""
    total = 0.0
    for line in text.splitlines():
        found = re.match(rf"{re.escape(name)}(?:{{(.*)}})? (\S+)$", line)
        if not found:
            continue
        got = dict(re.findall(r'(\w+)="([^"]*)"', found.group(1) or ""))
        if all(got.get(k) == v for k, v in labels.items()):
            total += float(found.group(2))
    return total


@settings(
    max_examples=1,
    phases=[Phase.generate],
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(
    hostile=every_kind(huge=MAX_BYTES + 50_000),
    duplicates=st.integers(3, 10),
    seed=st.integers(0, 2**16),
)
def test_hostile_events_go_to_the_dlq_valid_ones_get_verdicts(broker, engine, hostile, duplicates, seed):
    limits = EventLimits(max_bytes=MAX_BYTES)
    for raw in hostile:  # every generated event is invalid by construction
        with pytest.raises(InvalidEvent):
            decode_event(raw, limits)
    traffic = make_traffic(engine, per_release=4, window=3, seed=seed)
    rng = random.Random(seed)
    repeated = [dict(e) for e in rng.sample([e for e in traffic.events if e["turn"] != "User"], duplicates)]
    mixed: list[dict | bytes] = list(traffic.events)
    for raw in hostile:
        mixed.insert(rng.randint(0, len(mixed)), raw)
    mixed += repeated  # the same (conversation_id, turn_no) again: redeliveries, counted `duplicate`

    h = Harness(broker.bootstrap, traffic, env={"AEM_MAX_EVENT_BYTES": str(MAX_BYTES)})
    monitor = h.monitor()
    try:
        monitor.wait_for("partitions_assigned")
        producer = make_producer(broker.bootstrap, client_id="hostile", max_request_size=4 * MAX_BYTES)
        try:
            publish(producer, h.topics.traces, mixed)
        finally:
            producer.close(timeout=30)
        reached = wait_for_coverage(broker.bootstrap, h.topics.verdicts, traffic, 1.0, timeout=120)
        assert reached == 1.0, f"{reached:.0%} of the verdicts; monitor log tail:\n" + "".join(monitor.lines[-8:])
        dlq = read_all(broker.bootstrap, h.topics.dlq, expect=len(hostile), timeout=60)
        assert sorted(r.value for r in dlq) == sorted(hostile)
        assert all(dict(r.headers).get("aem-error") for r in dlq)
        port = monitor.metrics_port
        assert port is not None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if scrape(port, "aem_events_total", outcome="duplicate") >= duplicates:
                break
            time.sleep(0.5)
        assert scrape(port, "aem_events_total", outcome="invalid") == len(hostile)
        assert scrape(port, "aem_dlq_messages_total") == len(hostile)
        assert scrape(port, "aem_events_total", outcome="duplicate") == duplicates
        assert monitor.process is not None and monitor.process.poll() is None, "the monitor died"
        res = evaluate("hostile", traffic, read_verdicts(broker.bootstrap, h.topics.verdicts), None)
        assert (res.lost, res.lost_dialogs, res.wrong, res.wrong_dialogs, res.duplicated) == (0, 0, 0, 0, 0), (
            res.examples
        )
        assert monitor.stop() == 0
    finally:
        h.cleanup()
