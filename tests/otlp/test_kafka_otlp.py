"""OTLP on a real broker (Tansu): spans made by the OpenTelemetry SDK score like native trace events."""

from __future__ import annotations

import subprocess

import pytest
from prometheus_client import CollectorRegistry

from monitor.cluster import make_producer
from monitor.tools.replay import dialog_events, publish_otlp
from tests.conftest import EXAMPLES
from tests.otlp.builders import batch, sales_dialog, span, unaligned
from tests.support.kafka import (
    AEM,
    REPO,
    MonitorProcess,
    MonitorThread,
    TopicSet,
    read_all,
    send,
    settings_for,
    verdicts,
)

pytestmark = pytest.mark.integration

SALES_FILE = str(EXAMPLES / "sales_report.json")
FAMILIES = ("aem_turns", "aem_turn_failures", "aem_chain_turns", "aem_dialogs", "aem_turn_score", "aem_events")
CONVERSATIONS = 3


def samples(registry: CollectorRegistry) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """The scoring metrics of a monitor, sample by sample (latency and timestamps vary run to run)."""
    out = {}
    for family in registry.collect():
        if family.name in FAMILIES:
            for s in family.samples:
                if not s.name.endswith("_created"):
                    out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def run_monitor(broker, engine, input_format: str, publish) -> tuple[list[dict], MonitorThread]:
    topics = TopicSet.fresh(broker.bootstrap)
    settings = settings_for(broker.bootstrap, topics, input_format=input_format, reference=[SALES_FILE])
    monitor = MonitorThread(settings, engine).start()
    try:
        publish(topics.traces)
        out = verdicts(read_all(broker.bootstrap, topics.verdicts, expect=CONVERSATIONS * 6))
    finally:
        monitor.stop()
    return out, monitor


def key(verdict: dict) -> tuple:
    return (verdict["conversation_id"], verdict["kind"], verdict.get("turn_no") or 0)


@pytest.fixture(scope="module")
def native(broker, engine):
    """The sales report as native trace events pointing at the same reference set."""
    dialog = unaligned(sales_dialog())

    def publish(topic: str) -> None:
        events = [e for i in range(CONVERSATIONS) for e in dialog_events(dialog, conversation_id=f"conv-{i}")]
        send(broker.bootstrap, topic, events)

    return run_monitor(broker, engine, "aem", publish)


@pytest.mark.parametrize("encoding", ["otlp_json", "otlp_proto"])
def test_sdk_spans_in_both_encodings_score_exactly_like_native_events(broker, engine, native, encoding):
    def publish(topic: str) -> None:
        producer = make_producer(broker.bootstrap, client_id="otlp-test")
        try:
            pairs = [(sales_dialog(), f"conv-{i}") for i in range(CONVERSATIONS)]
            assert publish_otlp(producer, topic, pairs, encoding) == CONVERSATIONS
        finally:
            producer.close(timeout=10)

    got, monitor = run_monitor(broker, engine, encoding, publish)
    expected, native_monitor = native
    assert sorted(got, key=key) == sorted(expected, key=key)
    turns = sorted((v for v in got if v["kind"] == "turn"), key=key)
    assert [(t["turn_no"], t["attribution"], t["caused_by"]) for t in turns[:5]] == [
        (1, None, None),
        (2, "root_cause", None),
        (3, "cascading", 2),
        (4, "cascading", 2),
        (5, "cascading", 2),
    ]
    assert samples(monitor.registry) == samples(native_monitor.registry)
    assert monitor.value("aem_otlp_spans_total", outcome="mapped") == 9 * CONVERSATIONS
    assert monitor.value("aem_otlp_spans_total", outcome="skipped") == 0
    assert monitor.value("aem_dialogs_total", agent="sales", release="v7", mode="reference", outcome="fail") == 3


def test_a_corrupt_batch_goes_to_the_dlq_whole_and_the_rest_is_scored(broker, engine):
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)
    settings = settings_for(broker.bootstrap, topics, input_format="otlp_json", reference=[SALES_FILE])
    monitor = MonitorThread(settings, engine).start()
    corrupt = [b'{"resourceSpans": [{"scopeSpans": [', batch(span("xyz", "01" * 8))]
    try:
        send(broker.bootstrap, topics.traces, corrupt)
        producer = make_producer(broker.bootstrap, client_id="otlp-test")
        try:
            publish_otlp(producer, topics.traces, [(sales_dialog(), "after")], "otlp_json")
        finally:
            producer.close(timeout=10)
        dlq = read_all(broker.bootstrap, topics.dlq, expect=2)
        good = verdicts(read_all(broker.bootstrap, topics.verdicts, expect=6))
    finally:
        monitor.stop()
    assert sorted(r.value for r in dlq) == sorted(corrupt)
    reasons = sorted(dict(r.headers)["aem-error"].decode() for r in dlq)
    assert "invalid JSON" in reasons[0] and "traceId" in reasons[1]
    assert monitor.value("aem_dlq_messages_total") == 2
    assert [v["turn_no"] for v in good if v["kind"] == "turn"] == [1, 2, 3, 4, 5]


def test_aem_replay_and_aem_run_on_otlp_json_from_the_command_line(broker):
    """`aem replay --format otlp_json`, then `aem run --input-format otlp_json --reference <sales_report.json>`."""
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)
    replay = subprocess.run(
        [AEM, "replay", SALES_FILE, "--format", "otlp_json", "--bootstrap-servers", broker.bootstrap,
         "--topic", topics.traces, "--release", "v9", "--keep-ids"],
        capture_output=True, text=True, timeout=120, cwd=REPO,
    )  # fmt: skip
    assert replay.returncode == 0, replay.stderr
    assert "published 1 otlp_json batch" in replay.stderr
    run = MonitorProcess(
        topics.run_args(broker.bootstrap, "--input-format", "otlp_json", "--reference", SALES_FILE)
    ).start()
    try:
        out = verdicts(read_all(broker.bootstrap, topics.verdicts, expect=6, timeout=120))
    finally:
        assert run.stop() == 0
    turns = [v for v in out if v["kind"] == "turn"]
    assert [(t["turn_no"], t["mode"], t["attribution"]) for t in turns] == [
        (1, "reference", None),
        (2, "reference", "root_cause"),
        (3, "reference", "cascading"),
        (4, "reference", "cascading"),
        (5, "reference", "cascading"),
    ]
    assert {(v["conversation_id"], v["agent"], v["release"]) for v in out} == {("sales_report", "default", "v9")}
