"""Every dashboard panel query returns data from a real Prometheus that scraped a /metrics
endpoint and evaluated the recording and alert rules.

Stand-in: the endpoint is tests/deploy/fake_monitor.py until `aem run` can be started here;
`run_dashboard_queries` (tests/support/prometheus.py) is written to be reused against it.
"""

from __future__ import annotations

import json
import time

import pytest
from prometheus_client import CollectorRegistry, start_http_server

from monitor.stream.calibration import CalibrationMetrics
from tests.support.prometheus import (
    DASHBOARDS_DIR,
    RULES_DIR,
    PrometheusError,
    PrometheusProcess,
    dashboard_files,
    has_finite_value,
    iter_panels,
    panel_queries,
    prometheus_binary,
    run_dashboard_queries,
    substitute,
)

from .fake_monitor import FakeMonitor

pytestmark = pytest.mark.integration

VARIABLES = {"job": ["aem-monitor"], "agent": ["shop"], "release": ["v1.4.0", "v1.5.0"]}
OVERVIEW = DASHBOARDS_DIR / "aem-overview.json"


@pytest.fixture(scope="module")
def prom():
    assert prometheus_binary(), "the prometheus binary is required (Debian package `prometheus`)"
    with (
        FakeMonitor() as monitor,
        PrometheusProcess([f"127.0.0.1:{monitor.port}"], sorted(RULES_DIR.glob("*.yml"))) as p,
    ):
        # a few scrapes and rule evaluations (1s each)
        p.wait_for('aem:turn_correctness:ratio_rate5m{release="v1.5.0"}', timeout=60)
        p.wait_for("aem:release:previous", timeout=30)
        yield p


def _expected_panel_count() -> int:
    titles = set()
    for path in dashboard_files():
        d = json.loads(path.read_text())
        titles |= {f"{d['uid']}/{title}" for title, _, _ in panel_queries(d)}
    return len(titles)


def test_every_dashboard_panel_returns_data(prom):
    deadline = time.monotonic() + 60
    while True:
        results = run_dashboard_queries(prom, VARIABLES)
        empty = sorted(title for title, result in results.items() if not has_finite_value(result))
        if not empty or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert len(results) == _expected_panel_count()
    assert not empty, f"panels without data: {empty}"


def test_newest_vs_previous_panel_picks_releases_by_first_seen(prom):
    results = run_dashboard_queries(prom, VARIABLES)
    samples = results["aem-overview/Newest vs previous release"]
    by_ref = {(s["metric"]["__refId__"], s["metric"]["agent"]): s["metric"]["release"] for s in samples}
    # shop: v1.5.0 was first seen after v1.4.0 (the agent selector leaves out faq)
    assert by_ref == {("A", "shop"): "v1.5.0", ("B", "shop"): "v1.4.0"}
    every_agent = run_dashboard_queries(prom, {"job": ".*", "agent": ".*", "release": ".*"})[
        "aem-overview/Newest vs previous release"
    ]
    by_ref = {(s["metric"]["__refId__"], s["metric"]["agent"]): s["metric"]["release"] for s in every_agent}
    # faq has a single release: newest, and no previous one
    assert by_ref == {("A", "shop"): "v1.5.0", ("B", "shop"): "v1.4.0", ("A", "faq"): "r7"}


def test_release_selector_filters_panels(prom):
    results = run_dashboard_queries(prom, {"job": ".*", "agent": ["shop"], "release": ["v1.4.0"]})
    releases = {s["metric"].get("release") for s in results["aem-overview/Turn correctness by release (5m)"]}
    assert releases == {"v1.4.0"}
    correctness = float(results["aem-overview/Turn correctness by release (5m)"][0]["value"][1])
    assert 0.8 < correctness < 1.0  # the fake v1.4.0 passes 92% of turns


def test_rules_evaluate_without_errors(prom):
    groups = prom.rule_groups()
    rules = [r for g in groups for r in g["rules"]]
    assert len(rules) >= 30
    bad = {r["name"]: r.get("lastError") for r in rules if r["health"] != "ok"}
    assert not bad


def test_no_alert_fires_on_healthy_traffic(prom):
    firing = prom.query('ALERTS{alertstate="firing"}')
    assert firing == []


def test_template_variable_queries_return_values(prom):
    # Grafana's label_values(metric{sel}, label) == the label's values among matching series
    agents = {s["metric"]["agent"] for s in prom.query("group by (agent) (aem_turns_total)")}
    assert agents == {"shop", "faq"}
    expr = substitute('group by (release) (aem_turns_total{agent=~"$agent"})', {"agent": ["shop"]})
    assert {s["metric"]["release"] for s in prom.query(expr)} == {"v1.4.0", "v1.5.0"}


def test_query_errors_are_raised(prom):
    with pytest.raises(PrometheusError):
        prom.query("sum(")


def test_runbook_promql_runs(prom):
    """Every PromQL expression of the docs/operating.md runbooks is accepted by a real Prometheus
    loaded with the rules (the agent and release placeholders pointed at the stand-in's)."""
    from .test_runbooks import runbook_promql

    exprs = runbook_promql()
    answered = 0
    for expr in exprs:
        expr = expr.replace('agent="sales-assistant"', 'agent="shop"').replace("<release>", "v1.5.0")
        answered += has_finite_value(prom.query(expr))  # raises PrometheusError when rejected
    assert answered >= len(exprs) // 2, f"only {answered} of {len(exprs)} runbook queries returned data"


AGREEMENT = "aem-overview/Agreement with people's labels (calibration)"


def test_the_agreement_panel_shows_the_calibration_it_has(prom):
    """The stand-in monitor runs calibrated: the panel shows its figures and no "no calibration" status."""
    samples = run_dashboard_queries(prom, VARIABLES)[AGREEMENT]
    assert {s["metric"]["__refId__"] for s in samples} == {"A", "B", "C"}


def test_the_agreement_panel_says_no_calibration_loaded_for_an_uncalibrated_monitor():
    """A monitor started without a calibration: the panel's one series is the status its mapping turns into
    "no calibration loaded" (the panel was blank)."""
    registry = CollectorRegistry()
    CalibrationMetrics(registry, None)  # what `aem run` exports without a calibration
    server, thread = start_http_server(0, addr="127.0.0.1", registry=registry)
    try:
        with PrometheusProcess([f"127.0.0.1:{server.server_port}"]) as p:
            p.wait_for("aem_calibration_loaded", timeout=30)
            samples = run_dashboard_queries(p, VARIABLES)[AGREEMENT]
    finally:
        server.shutdown()
        thread.join(timeout=5)
    assert [(s["metric"]["__refId__"], s["value"][1]) for s in samples] == [("D", "0")]
    panel = next(pn for pn in iter_panels(json.loads(OVERVIEW.read_text())) if pn["title"] == AGREEMENT.split("/")[1])
    (override,) = panel["fieldConfig"]["overrides"]
    assert override["matcher"]["options"] == "D"
    assert {"type": "value", "options": {"0": {"text": "no calibration loaded"}}} in override["properties"][1]["value"]
