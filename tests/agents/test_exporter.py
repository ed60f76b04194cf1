"""`monitor.otel`: spans straight from an agent process to the topic, and the two examples that use it."""

from __future__ import annotations

import subprocess
import sys

import pytest
from opentelemetry import trace
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from monitor.otel import KafkaSpanExporter
from monitor.sources.otlp import Encoding, decode_batch
from tests.agents import booking
from tests.agents.fake_llm import FakeLLM
from tests.support.kafka import REPO, MonitorProcess, TopicSet, read_all, verdicts

pytestmark = pytest.mark.integration


def two_traces() -> list:
    """Spans of two traces, ended interleaved, as one export batch of the SDK would hold them."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "booking-agent", "service.version": "v3"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("t")
    first, second = tracer.start_span("invoke_agent a"), tracer.start_span("invoke_agent b")
    for root in (first, second):
        with tracer.start_as_current_span("chat", context=trace.set_span_in_context(root)):
            pass
    second.end()
    first.end()
    return list(memory.get_finished_spans())


@pytest.mark.parametrize("encoding", [Encoding.PROTO, Encoding.JSON])
def test_one_batch_per_trace_keyed_by_trace_id(broker, encoding):
    topics = TopicSet.fresh(broker.bootstrap, partitions=3)
    spans = two_traces()
    exporter = KafkaSpanExporter(broker.bootstrap, topics.traces, encoding)
    try:
        assert exporter.export(spans).name == "SUCCESS"
    finally:
        exporter.shutdown()
    records = read_all(broker.bootstrap, topics.traces, expect=2)
    by_key = {r.key.decode(): decode_batch(r.value, encoding) for r in records}
    trace_ids = {format(s.context.trace_id, "032x") for s in spans}
    assert set(by_key) == trace_ids and len(records) == 2
    for trace_id, decoded in by_key.items():
        assert {s.trace_id for s in decoded} == {trace_id} and len(decoded) == 2
        assert decoded[0].resource["service.version"] == "v3"
    if encoding is Encoding.PROTO:  # the Collector's otlp_proto: a plain ExportTraceServiceRequest
        assert all(ExportTraceServiceRequest.FromString(r.value).resource_spans for r in records)


def run_example(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, f"examples/{name}", *args], capture_output=True, text=True, timeout=180, cwd=REPO
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_the_examples_ship_spans_that_aem_run_scores(broker):
    """`python examples/otel_*.py --bootstrap-servers …`, then `aem run --input-format otlp_proto` on the topic."""
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)
    where = ("--bootstrap-servers", broker.bootstrap, "--topic", topics.traces)
    run_example("otel_pydantic_ai.py", *where, "--release", "pai-1")
    with FakeLLM(booking.script(booking.GOOD)) as llm:
        run_example("otel_openai_agents.py", *where, "--release", "oa-1", "--base-url", llm.base_url, "--model", "m")
    run = MonitorProcess(topics.run_args(broker.bootstrap, "--input-format", "otlp_proto", "--idle-timeout", "2"))
    run.start()
    try:
        out = verdicts(read_all(broker.bootstrap, topics.verdicts, expect=2 * 3 + 2, timeout=150))
    finally:
        assert run.stop() == 0
    turns = {}
    for v in out:
        if v["kind"] == "turn":
            turns.setdefault(v["release"], []).append((v["turn_no"], v["turn"], v["mode"]))
    assert {release: [t[1] for t in sorted(ts)] for release, ts in turns.items()} == {
        "pai-1": ["Tool", "Tool", "Agent"],
        "oa-1": ["Tool", "Tool", "Agent"],
    }
    assert {v["agent"] for v in out} == {"booking-agent"}
    assert len({v["conversation_id"] for v in out if v["release"] == "pai-1"}) == 1
    assert {v["kind"] for v in out} >= {"turn", "dialog"}


def test_an_export_the_broker_does_not_acknowledge_fails():
    """The SDK is told (FAILURE) when the spans did not reach Kafka; it never hangs the agent."""
    from monitor.cluster import ensure_topics
    from monitor.tools.broker import TansuBroker

    with TansuBroker() as gone:
        ensure_topics(gone.bootstrap, ["spans"], partitions=1)
        exporter = KafkaSpanExporter(gone.bootstrap, "spans", send_timeout_s=3, max_block_ms=3000)
    try:
        assert exporter.export(two_traces()).name == "FAILURE"
    finally:
        exporter.shutdown()  # does not raise either: the unsent spans are logged as dropped


CRASHING_AGENT = """
import sys
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from monitor.otel import kafka_span_processor

provider = TracerProvider(resource=Resource.create({"service.name": "crashing-agent"}))
provider.add_span_processor(kafka_span_processor(sys.argv[1], sys.argv[2]))
with provider.get_tracer("agent").start_as_current_span("invoke_agent crashing-agent"):
    pass
raise RuntimeError("the agent crashed")  # no provider.shutdown(): the exit hooks must ship the span
"""


def test_an_agent_that_crashes_without_shutdown_still_ships_its_spans(broker, tmp_path):
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)
    agent = tmp_path / "crashing_agent.py"
    agent.write_text(CRASHING_AGENT)
    done = subprocess.run(
        [sys.executable, str(agent), broker.bootstrap, topics.traces],
        capture_output=True, text=True, timeout=120, cwd=REPO,
    )  # fmt: skip
    assert done.returncode == 1 and "the agent crashed" in done.stderr
    assert "otlp_export_failed" not in done.stdout + done.stderr
    records = read_all(broker.bootstrap, topics.traces, expect=1, timeout=20)
    assert [s.name for r in records for s in decode_batch(r.value, Encoding.PROTO)] == ["invoke_agent crashing-agent"]


def closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize(
    ("example", "model_args"),
    [
        ("otel_openai_agents.py", ("--base-url", "http://127.0.0.1:{port}/v1", "--model", "m")),
        ("otel_pydantic_ai.py", ("--model", "openai:gpt-4o")),
    ],
)
def test_an_example_whose_model_server_is_unreachable_says_so_in_one_line(broker, example, model_args):
    """Exit 1 with one line on stderr, and the failed run's spans still reach the topic."""
    import os

    port = closed_port()
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    env |= {"OPENAI_API_KEY": "not-used", "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1"}
    done = subprocess.run(
        [sys.executable, f"examples/{example}", "--bootstrap-servers", broker.bootstrap, "--topic", topics.traces,
         *(a.format(port=port) for a in model_args)],
        capture_output=True, text=True, timeout=180, cwd=REPO, env=env,
    )  # fmt: skip
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr[-2000:]
    assert lines[0].startswith("error: ") and "Connection error" in lines[0]
    assert read_all(broker.bootstrap, topics.traces, expect=1, timeout=20)
