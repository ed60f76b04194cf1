"""Structure of the provisioned Grafana dashboards and provisioning files."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from prometheus_client import CollectorRegistry

from tests.support.prometheus import dashboard_files, iter_panels, panel_queries, substitute

from .conftest import REPO_ROOT
from .fake_monitor import FakeMonitor

GRAFANA = REPO_ROOT / "grafana"

# the core metrics (docs/metrics.md)
DESIGN_METRICS = {
    "aem_turns_total": "counter",
    "aem_turn_failures_total": "counter",
    "aem_chain_turns_total": "counter",
    "aem_dialogs_total": "counter",
    "aem_turn_score": "histogram",
    "aem_release_first_seen_timestamp_seconds": "gauge",
    "aem_events_total": "counter",
    "aem_consumer_lag_messages": "gauge",
    "aem_event_latency_seconds": "histogram",
    "aem_open_dialogs": "gauge",
}
# exported by the monitor beyond the §5 table (memory bound, DLQ, optional LLM judge)
EXTRA_METRICS = {
    "aem_evictions_total": "counter",
    "aem_dlq_messages_total": "counter",
    "aem_dlq_reduced_total": "counter",
    "aem_turns_too_large_total": "counter",
    "aem_turns_unscored_total": "counter",
    "aem_state_records_skipped_total": "counter",
    "aem_otlp_spans_total": "counter",
    "aem_otlp_spans_skipped_total": "counter",
    "aem_open_dialog_bytes": "gauge",
    "aem_label_overflow_total": "counter",
    "aem_judge_requests_total": "counter",
    "aem_judge_latency_seconds": "histogram",
    "aem_judge_configured": "gauge",
    "aem_root_causes_total": "counter",
    "aem_cache_hits_total": "counter",
    "aem_cache_misses_total": "counter",
    "aem_cache_entries": "gauge",
    "aem_low_confidence_turns_total": "counter",
    "aem_confidence_checked_turns_total": "counter",
    "aem_calibration_loaded": "gauge",
    "aem_calibration_agreement": "gauge",
    "aem_calibration_agreement_low": "gauge",
    "aem_calibration_agreement_high": "gauge",
    "aem_calibration_labels": "gauge",
    "aem_calibration_info": "gauge",
    "aem_calibration_low_confidence_share": "gauge",
}
PROMETHEUS_METRICS = {"up"}

KEYWORDS = {
    "by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool",
    "offset", "inf", "nan",
}  # fmt: skip


def known_series_names() -> set[str]:
    names = set(PROMETHEUS_METRICS)
    for name, kind in {**DESIGN_METRICS, **EXTRA_METRICS}.items():
        names.add(name)
        if kind == "histogram":
            names |= {f"{name}_bucket", f"{name}_sum", f"{name}_count"}
    for path in (REPO_ROOT / "deploy" / "prometheus" / "rules").glob("*.yml"):
        for group in yaml.safe_load(path.read_text())["groups"]:
            names |= {r["record"] for r in group["rules"] if "record" in r}
    return names


def metric_names(expr: str) -> set[str]:
    """Metric names in a PromQL expression (identifiers that are not functions, keywords or labels)."""
    expr = re.sub(r'"(?:\\.|[^"\\])*"', '""', expr)  # strings
    expr = re.sub(r"\{[^}]*\}", "", expr)  # label matchers
    expr = re.sub(r"\[[^\]]*\]", "", expr)  # ranges
    expr = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", expr)
    expr = re.sub(r"\boffset\s+\w+", "", expr)
    names = set()
    for m in re.finditer(r"(?<![\w:$.])([a-zA-Z_:][\w:]*)(\s*\()?", expr):
        word, call = m.group(1), m.group(2)
        if call or word.lower() in KEYWORDS:
            continue
        names.add(word)
    return names


def load(path: Path) -> dict:
    return json.loads(path.read_text())


DASHBOARDS = dashboard_files()


def test_documented_metric_table_matches():
    """docs/metrics.md, the repo's own contract, lists exactly the metrics the dashboards may use."""
    text = (REPO_ROOT / "docs" / "metrics.md").read_text()
    table = dict(re.findall(r"^\| `(aem_\w+)` \| (\w+) \|", text, flags=re.M))
    assert table == {**DESIGN_METRICS, **EXTRA_METRICS}


def test_metric_name_extraction():
    expr = (
        'histogram_quantile(0.99, sum by (le) (rate(aem_event_latency_seconds_bucket{job="x"}[5m]))) '
        "and on (agent, release) aem:release:newest offset 5m > bool 0"
    )
    assert metric_names(expr) == {"aem_event_latency_seconds_bucket", "aem:release:newest"}


def test_two_dashboards_with_fixed_unique_uids():
    uids = [load(p)["uid"] for p in DASHBOARDS]
    assert sorted(uids) == ["aem-overview", "aem-pipeline"]
    assert [p.stem for p in DASHBOARDS] == sorted(uids)


def test_committed_dashboards_match_the_generator():
    result = subprocess.run(
        [sys.executable, str(GRAFANA / "build_dashboards.py"), "--check"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("path", DASHBOARDS, ids=lambda p: p.stem)
def test_template_variables(path: Path):
    variables = {v["name"]: v for v in load(path)["templating"]["list"]}
    assert set(variables) >= {"job", "agent", "release"}
    assert variables["job"]["definition"] == "label_values(aem_events_total, job)"
    assert variables["agent"]["definition"] == "label_values(aem_turns_total, agent)"
    assert variables["release"]["definition"] == 'label_values(aem_turns_total{agent=~"$agent"}, release)'
    for v in variables.values():
        assert v["datasource"]["uid"] == "aem-prometheus"


@pytest.mark.parametrize("path", DASHBOARDS, ids=lambda p: p.stem)
def test_every_panel_has_a_query_on_known_metrics(path: Path):
    dashboard = load(path)
    known = known_series_names()
    panels = list(iter_panels(dashboard))
    assert panels
    titles = [p["title"] for p in panels]
    assert len(titles) == len(set(titles)), "panel titles must be unique (they key query results)"
    ids = [p["id"] for p in panels]
    assert len(ids) == len(set(ids))
    for p in panels:
        exprs = [t.get("expr", "") for t in p.get("targets", [])]
        assert exprs and all(e.strip() for e in exprs), f"panel {p['title']!r} has no query"
        assert p["datasource"]["uid"] == "aem-prometheus"
        for expr in exprs:
            unknown = metric_names(expr) - known
            assert not unknown, f"panel {p['title']!r} uses unknown metrics {unknown}"
            # after substitution no template variable remains
            rendered = substitute(expr, {"job": ["j"], "agent": ["a"], "release": ["r"]})
            assert "$" not in rendered, rendered


def test_overview_covers_the_required_views():
    exprs = " ".join(e for _, _, e in panel_queries(load(GRAFANA / "dashboards" / "aem-overview.json")))
    for needle in [
        "aem:turn_correctness:ratio_rate5m",
        "aem:release:newest",
        "aem:release:previous",
        "sum by (agent, release, sub_metric) (rate(aem_turn_failures_total",
        "sum by (agent, release, reason) (rate(aem_turn_failures_total",
        "aem_root_causes_total",
        "aem:turn_failures_by_attribution:ratio_rate5m",
        "aem:chain_turn_correctness:ratio_rate5m",
        "aem:dialog_pass:ratio_rate5m",
        "aem:turn_mode_share:ratio_rate5m",
        "aem_calibration_agreement{",
        "aem_calibration_agreement_low{",
        "aem_calibration_agreement_high{",
    ]:
        assert needle in exprs, needle


def test_overview_shows_agreement_beside_correctness():
    """The calibration's agreement sits in the top row, next to the correctness it qualifies."""
    panels = _panels(GRAFANA / "dashboards" / "aem-overview.json")
    correctness = panels["Turn correctness by release (5m)"]["gridPos"]
    agreement = panels["Agreement with people's labels (calibration)"]["gridPos"]
    assert agreement["y"] == correctness["y"]


def test_pipeline_covers_the_required_views():
    exprs = " ".join(e for _, _, e in panel_queries(load(GRAFANA / "dashboards" / "aem-pipeline.json")))
    for needle in [
        "aem_events_total",
        "aem_dlq_messages_total",
        "max by (topic, partition) (aem_consumer_lag_messages",
        "histogram_quantile(0.5, sum by (le) (rate(aem_event_latency_seconds_bucket",
        "histogram_quantile(0.99, sum by (le) (rate(aem_event_latency_seconds_bucket",
        "aem_open_dialogs",
        "aem_evictions_total",
    ]:
        assert needle in exprs, needle


def test_provisioning_points_at_the_dashboards_and_datasource():
    ds = yaml.safe_load((GRAFANA / "provisioning" / "datasources" / "prometheus.yml").read_text())
    assert [d["uid"] for d in ds["datasources"]] == ["aem-prometheus"]
    assert ds["datasources"][0]["type"] == "prometheus"
    providers = yaml.safe_load((GRAFANA / "provisioning" / "dashboards" / "aem.yml").read_text())["providers"]
    assert providers[0]["type"] == "file"
    # docker-compose mounts grafana/dashboards at this path
    compose = (REPO_ROOT / "docker-compose.yml").read_text()
    assert f"./grafana/dashboards:{providers[0]['options']['path']}" in compose


def _families(obj: object) -> dict[str, tuple[str, tuple[str, ...]]]:
    from prometheus_client.metrics import MetricWrapperBase

    return {m._name: (m._type, tuple(m._labelnames)) for m in vars(obj).values() if isinstance(m, MetricWrapperBase)}


def test_stand_in_exports_what_the_real_monitor_exports():
    """The stand-in must not drift from monitor/stream/metrics.py and telemetry.py (names, types, labels)."""
    real_metrics = pytest.importorskip("monitor.stream.metrics")
    telemetry = pytest.importorskip("monitor.stream.telemetry")
    registry = CollectorRegistry()
    real = {
        **_families(real_metrics.VerdictMetrics(registry)),
        **_families(telemetry.PipelineTelemetry(registry)),
    }
    fake = _families(FakeMonitor())
    assert real, "the real monitor defines no metrics"
    for name, spec in real.items():
        assert fake.get(name) == spec, name
    # only the optional LLM-judge metrics (registered by the judge itself) are ahead of the real monitor
    assert set(fake) - set(real) <= {"aem_judge_requests", "aem_judge_latency_seconds"}


RAW_METRIC = re.compile(r"\b(aem_[a-z_]+|up)\{([^}]*)\}")


@pytest.mark.parametrize("path", DASHBOARDS, ids=lambda p: p.stem)
def test_raw_series_are_selected_through_the_job_variable(path: Path):
    """No panel hard-codes the scrape job (a ServiceMonitor names it after the Service)."""
    for title, _, expr in panel_queries(load(path)):
        assert 'job="' not in expr, title
        for name, matchers in RAW_METRIC.findall(expr):
            assert 'job=~"$job"' in matchers, f"{title}: {name} is not filtered by the job variable"
        assert not re.search(r"\b(aem_[a-z_]+|up)\b(?![{_])", re.sub(r'"[^"]*"', "", expr)), title


def _panels(path: Path) -> dict[str, dict]:
    return {p["title"]: p for p in iter_panels(load(path))}


def test_failure_rate_panels_show_exemplars_of_failing_turns():
    panels = _panels(GRAFANA / "dashboards" / "aem-overview.json")
    for title in ("Failure rate by sub-metric", "Failure rate by reason", "Turn score p50 / p10"):
        targets = panels[title]["targets"]
        assert any(t.get("exemplar") for t in targets), title
        # exemplars exist only on raw series, not on recording rules
        assert all("aem:" not in t["expr"] for t in targets if t.get("exemplar")), title
        assert "aem inspect" in panels[title]["description"] or title.startswith("Turn score")


def test_judge_panels_say_when_no_judge_is_configured():
    panels = _panels(GRAFANA / "dashboards" / "aem-pipeline.json")
    judge = [p for p in panels.values() if "judge" in p["title"].lower()]
    assert len(judge) == 2
    for p in judge:
        status = [t for t in p["targets"] if "aem_judge_configured" in t["expr"]]
        assert len(status) == 1 and status[0]["expr"].endswith("== 0")
        (override,) = p["fieldConfig"]["overrides"]
        assert override["matcher"] == {"id": "byFrameRefID", "options": status[0]["refId"]}
        mappings = next(x["value"] for x in override["properties"] if x["id"] == "mappings")
        assert mappings == [{"type": "value", "options": {"0": {"text": "judge not configured"}}}]


def test_the_agreement_panel_says_when_no_calibration_is_loaded():
    panel = _panels(GRAFANA / "dashboards" / "aem-overview.json")["Agreement with people's labels (calibration)"]
    (status,) = [t for t in panel["targets"] if "aem_calibration_loaded" in t["expr"]]
    assert status["expr"] == 'max(aem_calibration_loaded{job=~"$job"}) == 0' and status.get("instant")
    (override,) = panel["fieldConfig"]["overrides"]
    assert override["matcher"] == {"id": "byFrameRefID", "options": status["refId"]}
    mappings = next(x["value"] for x in override["properties"] if x["id"] == "mappings")
    assert mappings == [{"type": "value", "options": {"0": {"text": "no calibration loaded"}}}]


def test_overview_compares_the_newest_release_with_the_previous_one():
    panels = _panels(GRAFANA / "dashboards" / "aem-overview.json")
    for dimension in ("sub_metric", "reason"):
        title = f"Newest vs previous: failures by {dimension.replace('_', '-')}"
        table = panels[title]
        assert table["type"] == "table"
        exprs = [t["expr"] for t in table["targets"]]
        assert f"aem:release_comparison:newest_turn_failures_by_{dimension}:ratio_rate1h" in exprs[0]
        assert f"aem:release_comparison:previous_turn_failures_by_{dimension}:ratio_rate1d" in exprs[1]
        assert " - " in exprs[2]
        assert [t["id"] for t in table["transformations"]] == ["merge", "organize"]
    top = panels["Top root causes of the newest release (reason:field)"]
    assert "aem_root_causes_total" in top["targets"][0]["expr"]
    assert "aem:release:newest" in top["targets"][0]["expr"]
    assert "{{reason}}:{{field}}" in top["targets"][0]["legendFormat"]
