"""Real agent frameworks, real spans: each runs the scripted booking agent, `aem run` scores what it emits.

Every framework runs its real loop in its own process (the `openai`-based ones against the fake
OpenAI-compatible endpoint on loopback); its spans go through the OpenTelemetry SDK and
`monitor.otel.KafkaSpanExporter` (one `ExportTraceServiceRequest` per trace, keyed by trace id, as the
Collector's Kafka exporter writes) onto the embedded broker, in both encodings. Release `v1` does the
task right; release `v2` searches the wrong date: root cause, then two cascades.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.agents import booking
from tests.support.kafka import REPO, MonitorThread, TopicSet, read_all, settings_for, verdicts

pytestmark = pytest.mark.integration

FRAMEWORKS = ("pydantic_ai", "openai_agents", "openai_otel", "openai_openinference")
# What each framework gives the conversation id from (None: the trace is the conversation).
CONVERSATION_FROM = {
    "pydantic_ai": "gen_ai.conversation.id",
    "openai_agents": None,
    "openai_otel": None,
    "openai_openinference": "session.id",
}


def drive(framework: str, release: str, bootstrap: str, topic: str, encoding: str) -> dict[str, str | None]:
    """One run of the booking agent in its own process; returns the ids it was given."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.agents.drive", framework, release,
         "--bootstrap", bootstrap, "--topic", topic, "--encoding", encoding],
        capture_output=True, text=True, timeout=180, cwd=REPO,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def failures(monitor: MonitorThread) -> dict[tuple[str, str, str, str], float]:
    """`aem_turn_failures_total` samples of the booking agent in reference mode, by (release, turn type, reason,
    attribution)."""
    out = {}
    for family in monitor.registry.collect():
        for sample in family.samples:
            labels = sample.labels
            if sample.name == "aem_turn_failures_total" and sample.value:
                assert (labels["agent"], labels["mode"], labels["sub_metric"]) == (
                    "booking-agent",
                    "reference",
                    "truthfulness",
                )
                out[(labels["release"], labels["turn_type"], labels["reason"], labels["attribution"])] = sample.value
    return out


def expected_conversation(framework: str, ids: dict[str, str | None]) -> str | None:
    return ids["conversation_id"] if CONVERSATION_FROM[framework] else ids["trace_id"]


@pytest.mark.parametrize("encoding", ["otlp_proto", "otlp_json"])
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_regressed_release_is_caught_turn_by_turn(broker, engine, framework, encoding):
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)
    settings = settings_for(broker.bootstrap, topics, input_format=encoding, reference=[str(booking.REFERENCE_FILE)])
    monitor = MonitorThread(settings, engine).start()
    try:
        good = drive(framework, booking.GOOD, broker.bootstrap, topics.traces, encoding)
        bad = drive(framework, booking.REGRESSED, broker.bootstrap, topics.traces, encoding)
        out = verdicts(read_all(broker.bootstrap, topics.verdicts, expect=2 * 4 + 2, timeout=120))
    finally:
        monitor.stop()
    conversations = {
        booking.GOOD: expected_conversation(framework, good),
        booking.REGRESSED: expected_conversation(framework, bad),
    }
    assert len(set(conversations.values())) == 2
    # Conversation grouping: every verdict of a run carries that run's conversation id, and its release.
    assert {(v["conversation_id"], v["release"]) for v in out} == {(c, r) for r, c in conversations.items()}
    turns = {
        release: [
            (v["turn_no"], v["turn"], v["success"], v["attribution"], v["caused_by"])
            for v in out
            if v["kind"] == "turn" and v["conversation_id"] == cid and v["turn"] != "User"
        ]
        for release, cid in conversations.items()
    }
    assert turns[booking.GOOD] == [
        (2, "Tool", True, None, None),
        (3, "Tool", True, None, None),
        (4, "Agent", True, None, None),
    ]
    assert turns[booking.REGRESSED] == [
        (2, "Tool", False, "root_cause", None),  # the wrong date
        (3, "Tool", False, "cascading", 2),  # booking the flight that search found
        (4, "Agent", False, "cascading", 2),  # confirming it to the user
    ]
    # The root cause names the field; the metric counts the regression by reason and attribution.
    root = next(v for v in out if v["kind"] == "turn" and v["conversation_id"] == conversations[booking.REGRESSED]
                and v["turn_no"] == 2)  # fmt: skip
    assert (root["failure_reason"], root["field"]) == ("inconsistent_parameter_values", "date")
    assert failures(monitor) == {
        (booking.REGRESSED, "action", "inconsistent_parameter_values", "root_cause"): 1,
        (booking.REGRESSED, "action", "prior_action_failed", "cascading"): 1,
        (booking.REGRESSED, "response", "prior_action_failed", "cascading"): 1,
    }
    root_causes = {"agent": "booking-agent", "reason": "inconsistent_parameter_values", "field": "date"}
    assert monitor.value("aem_root_causes_total", release=booking.REGRESSED, **root_causes) == 1
    assert monitor.value("aem_root_causes_total", release=booking.GOOD, **root_causes) == 0
    assert monitor.value("aem_otlp_spans_total", outcome="invalid") == 0
