"""Exemplars {conversation_id, turn_no} of failing turns on the monitor's metrics, and the
OpenMetrics exposition that carries them (served when the scraper asks for it)."""

from __future__ import annotations

import httpx
from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.openmetrics.exposition import generate_latest

from monitor.models.verdict import TurnVerdict
from monitor.stream.metrics import ROOT_CAUSE_FIELDS_PER_RELEASE, VerdictMetrics, failing_turn_exemplar
from monitor.stream.telemetry import PipelineTelemetry

OPENMETRICS_ACCEPT = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"


def failing(turn_no: int, field: str = "metric", attribution: str = "root_cause") -> TurnVerdict:
    return TurnVerdict(
        turn_no=turn_no,
        turn="Tool",
        success=False,
        failure_reason="inconsistent_parameter_values",
        sub_metric="truthfulness",
        field=field,
        score=0.25,
        attribution=attribution,
        chain_length="1",
    )


def passing(turn_no: int) -> TurnVerdict:
    return TurnVerdict(turn_no=turn_no, turn="Tool", success=True, score=1.0, chain_length="1")


def exemplar_lines(metrics: VerdictMetrics) -> list[str]:
    text = generate_latest(metrics.registry).decode()
    return [line for line in text.splitlines() if " # {" in line]


def test_failing_turns_leave_the_latest_one_as_exemplar():
    metrics = VerdictMetrics()
    metrics.record_turn(failing(2), "shop", "v1", "reference", "conv-a")
    metrics.record_turn(failing(4), "shop", "v1", "reference", "conv-b")
    metrics.record_turn(passing(5), "shop", "v1", "reference", "conv-c")
    lines = exemplar_lines(metrics)
    latest = '# {conversation_id="conv-b",turn_no="4"}'
    by_metric = {line.split("{", 1)[0]: line for line in lines}
    assert set(by_metric) == {
        "aem_turns_total",
        "aem_turn_failures_total",
        "aem_root_causes_total",
        "aem_turn_score_bucket",
    }
    for line in lines:
        assert latest in line, line
        assert "conv-c" not in line and "conv-a" not in line
    assert 'outcome="fail"' in by_metric["aem_turns_total"]  # the pass series carries none
    assert 'le="0.3"' in by_metric["aem_turn_score_bucket"]  # the bucket of the failing score 0.25


def test_an_id_too_long_for_an_exemplar_is_counted_without_one():
    metrics = VerdictMetrics()
    long_id = "c" * 120
    assert failing_turn_exemplar(long_id, 3) is None
    assert failing_turn_exemplar("", 3) is None
    metrics.record_turn(failing(3), "shop", "v1", "reference", long_id)
    assert exemplar_lines(metrics) == []
    labels = {"agent": "shop", "release": "v1", "mode": "reference", "turn_type": "action", "outcome": "fail"}
    assert metrics.registry.get_sample_value("aem_turns_total", labels) == 1


def test_root_causes_count_reason_and_field_and_leave_cascades_out():
    metrics = VerdictMetrics()
    metrics.record_turn(failing(2, field="metric"), "shop", "v1", "reference", "c1")
    metrics.record_turn(failing(3, field="metric", attribution="cascading"), "shop", "v1", "reference", "c1")
    labels = {"agent": "shop", "release": "v1", "reason": "inconsistent_parameter_values", "field": "metric"}
    assert metrics.registry.get_sample_value("aem_root_causes_total", labels) == 1


def test_root_cause_fields_are_bounded_per_release():
    metrics = VerdictMetrics()
    for i in range(ROOT_CAUSE_FIELDS_PER_RELEASE + 5):
        metrics.record_turn(failing(1, field=f"f{i}"), "shop", "v1", "reference", f"c{i}")
    fields = {
        s.labels["field"]
        for m in metrics.registry.collect()
        if m.name == "aem_root_causes"
        for s in m.samples
        if s.name == "aem_root_causes_total"
    }
    assert len(fields) == ROOT_CAUSE_FIELDS_PER_RELEASE + 1
    assert "other" in fields
    other = {"agent": "shop", "release": "v1", "reason": "inconsistent_parameter_values", "field": "other"}
    assert metrics.registry.get_sample_value("aem_root_causes_total", other) == 5


def test_metrics_endpoint_negotiates_openmetrics():
    """The monitor's /metrics (prometheus_client's server, as `aem run` starts it) answers an
    OpenMetrics Accept header with the OpenMetrics exposition, which alone carries exemplars."""
    metrics = VerdictMetrics()
    metrics.record_turn(failing(2), "shop", "v1", "reference", "conv-a")
    server, thread = start_http_server(0, addr="127.0.0.1", registry=metrics.registry)
    try:
        url = f"http://127.0.0.1:{server.server_port}/metrics"
        om = httpx.get(url, headers={"Accept": OPENMETRICS_ACCEPT}, timeout=5)
        assert om.headers["content-type"].startswith("application/openmetrics-text")
        assert '# {conversation_id="conv-a",turn_no="2"}' in om.text
        plain = httpx.get(url, timeout=5)
        assert plain.headers["content-type"].startswith("text/plain")
        assert "conversation_id" not in plain.text
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_judge_configured_gauge_is_exported_as_zero_by_default():
    telemetry = PipelineTelemetry(CollectorRegistry())
    assert telemetry.registry.get_sample_value("aem_judge_configured") == 0


def test_the_monitor_exports_whether_an_llm_judge_is_configured():
    """`aem_judge_configured` follows the judge settings of the real Monitor (no broker needed to build it)."""
    from monitor.stream.settings import JudgeSettings, MonitorSettings
    from monitor.wiring import build_monitor

    without, judged = CollectorRegistry(), CollectorRegistry()
    build_monitor(MonitorSettings(metrics_port=0), without)
    assert without.get_sample_value("aem_judge_configured") == 0
    build_monitor(MonitorSettings(metrics_port=0, judge=JudgeSettings(url="http://127.0.0.1:9/v1")), judged)
    assert judged.get_sample_value("aem_judge_configured") == 1
