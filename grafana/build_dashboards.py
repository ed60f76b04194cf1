"""Write grafana/dashboards/*.json from the panel lists below (standard library only).

    python grafana/build_dashboards.py          # rewrite the JSON files
    python grafana/build_dashboards.py --check  # exit 1 if a committed file is out of date

The JSON output is committed; Grafana provisions it from grafana/provisioning/dashboards/aem.yml.
Queries use the recording rules of deploy/prometheus/rules/recording.yml where one exists, so
dashboards and alerts agree on what "correctness" means.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

OUT_DIR = Path(__file__).resolve().parent / "dashboards"
DATASOURCE = {"type": "prometheus", "uid": "aem-prometheus"}
SEL = 'agent=~"$agent",release=~"$release"'
AGENT = 'agent=~"$agent"'
JOB = 'job=~"$job"'  # raw series: the scrape job(s) of the monitor, chosen in the dashboard
RAW = f"{JOB},{SEL}"
NOT_CONFIGURED = "judge not configured"
NO_CALIBRATION = "no calibration loaded"


def target(
    expr: str, legend: str = "", ref: str = "A", instant: bool = False, exemplar: bool = False, table: bool = False
) -> dict[str, Any]:
    t: dict[str, Any] = {"datasource": DATASOURCE, "refId": ref, "expr": expr, "legendFormat": legend}
    if instant:
        t["instant"] = True
        t["range"] = False
    if exemplar:
        t["exemplar"] = True  # diamonds on the graph: {conversation_id, turn_no} of a failing turn
    if table:
        t["format"] = "table"
    return t


def panel(
    title: str,
    targets: list[dict[str, Any]],
    *,
    kind: str = "timeseries",
    unit: str = "short",
    description: str = "",
    w: int = 12,
    h: int = 8,
    minmax: tuple[float, float] | None = None,
) -> dict[str, Any]:
    defaults: dict[str, Any] = {"unit": unit}
    if minmax is not None:
        defaults["min"], defaults["max"] = minmax
    return {
        "type": kind,
        "title": title,
        "description": description,
        "datasource": DATASOURCE,
        "targets": targets,
        "fieldConfig": {"defaults": defaults, "overrides": []},
        "options": {"legend": {"displayMode": "table", "placement": "bottom", "calcs": ["lastNotNull"]}}
        if kind == "timeseries"
        else {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False}},
        "gridPos": {"w": w, "h": h},
    }


def ratio(
    title: str, expr: str, legend: str, description: str = "", exemplar: bool = False, **kw: Any
) -> dict[str, Any]:
    targets = [target(expr, legend, exemplar=exemplar)]
    return panel(title, targets, unit="percentunit", minmax=(0, 1), description=description, **kw)


def failure_share(by: str) -> str:
    """Share of scored turns failing per `by`, from the raw counters (so the panel can show exemplars)."""
    return (
        f"sum by (agent, release, {by}) (rate(aem_turn_failures_total{{{RAW}}}[$__rate_interval]))\n"
        "  / on (agent, release) group_left ()\n"
        f"sum by (agent, release) (rate(aem_turns_total{{{RAW}}}[$__rate_interval]))"
    )


def comparison_table(title: str, dimension: str, description: str) -> dict[str, Any]:
    """Per agent and `dimension`: the newest release (1h) against the previous one (1d), and the change."""
    newest = f"aem:release_comparison:newest_turn_failures_by_{dimension}:ratio_rate1h{{{AGENT}}}"
    previous = f"aem:release_comparison:previous_turn_failures_by_{dimension}:ratio_rate1d{{{AGENT}}}"
    filled_newest = f"({newest} or 0 * {previous})"
    filled_previous = f"({previous} or 0 * {newest})"
    p = panel(
        title,
        [
            target(filled_newest, ref="A", instant=True, table=True),
            target(filled_previous, ref="B", instant=True, table=True),
            target(f"{filled_newest} - {filled_previous}", ref="C", instant=True, table=True),
        ],
        kind="table",
        unit="percentunit",
        description=description,
    )
    p["options"] = {"showHeader": True, "sortBy": [{"displayName": "change", "desc": True}]}
    p["transformations"] = [
        {"id": "merge", "options": {}},
        {
            "id": "organize",
            "options": {
                "excludeByName": {"Time": True},
                "indexByName": {"agent": 0, "release": 1, "previous_release": 2, dimension: 3},
                "renameByName": {
                    "release": "newest release",
                    "previous_release": "previous release",
                    "Value #A": "newest (1h)",
                    "Value #B": "previous (1d)",
                    "Value #C": "change",
                },
            },
        },
    ]
    return p


def status_when_zero(p: dict[str, Any], expr: str, legend: str, text: str) -> dict[str, Any]:
    """Add to a stat panel a series that exists only when `expr` (a 0/1 gauge) is 0, shown as `text`: the
    panel says why it has nothing to show instead of being blank."""
    ref = chr(ord("A") + len(p["targets"]))
    p["targets"].append(target(f"{expr} == 0", legend, ref, instant=p["targets"][0].get("instant", False)))
    p["fieldConfig"]["overrides"].append(
        {
            "matcher": {"id": "byFrameRefID", "options": ref},
            "properties": [
                {"id": "unit", "value": "none"},
                {"id": "mappings", "value": [{"type": "value", "options": {"0": {"text": text}}}]},
            ],
        }
    )
    return p


def judge_panel(title: str, expr: str, legend: str, unit: str) -> dict[str, Any]:
    """A judge panel that reads "judge not configured" (not No data) when the monitor has no LLM judge."""
    p = panel(
        title,
        [target(expr, legend, "A")],
        kind="stat",
        unit=unit,
        description="Only with the optional LLM judge (AEM_JUDGE_URL); without one the panel says so.",
    )
    status_when_zero(p, f"max(aem_judge_configured{{{JOB}}})", "LLM judge", NOT_CONFIGURED)
    p["options"]["graphMode"] = "area"
    p["fieldConfig"]["defaults"]["noValue"] = "no judge requests yet"
    return p


def agreement_panel() -> dict[str, Any]:
    """How far the correctness beside it can be trusted: the calibration's agreement with people's labels;
    "no calibration loaded" when the monitor runs without one."""
    sel = f'{JOB},kind="balanced_accuracy",turn_type!="all"'
    p = panel(
        "Agreement with people's labels (calibration)",
        [
            target(f"max by (turn_type) (aem_calibration_agreement{{{sel}}})", "{{turn_type}}", "A", instant=True),
            target(
                f"max by (turn_type) (aem_calibration_agreement_low{{{sel}}})", "{{turn_type}} low", "B", instant=True
            ),
            target(f"max by (turn_type) (aem_calibration_agreement_high{{{sel}}})", "{{turn_type}} high", "C",
                   instant=True),
        ],
        kind="stat",
        unit="percentunit",
        description="Balanced accuracy of the verdicts against people's labels on this traffic, with its 95 % "
        "bootstrap interval, as measured by `aem calibrate` (the calibration `aem run --config` was started with; "
        "aem_calibration_info names it). \"no calibration loaded\": the monitor runs uncalibrated "
        "(docs/trusting-verdicts.md).",
        w=6,
    )
    return status_when_zero(p, f"max(aem_calibration_loaded{{{JOB}}})", "calibration", NO_CALIBRATION)


def variables() -> list[dict[str, Any]]:
    def var(name: str, query: str) -> dict[str, Any]:
        return {
            "name": name,
            "label": name,
            "type": "query",
            "datasource": DATASOURCE,
            "definition": query,
            "query": {"query": query, "refId": f"{name}-var"},
            "refresh": 2,
            "multi": True,
            "includeAll": True,
            "allValue": ".*",
            "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
            "sort": 1,
        }

    return [
        {**var("job", "label_values(aem_events_total, job)"), "label": "monitor job"},
        var("agent", "label_values(aem_turns_total, agent)"),
        var("release", 'label_values(aem_turns_total{agent=~"$agent"}, release)'),
    ]


def layout(panels: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Flow panels left to right, top to bottom, on Grafana's 24-column grid; assign ids."""
    x = y = row_h = 0
    for i, p in enumerate(panels, start=1):
        w, h = p["gridPos"]["w"], p["gridPos"]["h"]
        if x + w > 24:
            x, y, row_h = 0, y + row_h, 0
        p["gridPos"] = {"x": x, "y": y, "w": w, "h": h}
        p["id"] = i
        x += w
        row_h = max(row_h, h)
    return panels


def dashboard(uid: str, title: str, description: str, panels: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "uid": uid,
        "title": title,
        "description": description,
        "tags": ["aem"],
        "timezone": "browser",
        "schemaVersion": 39,
        "version": 1,
        "editable": True,
        "refresh": "30s",
        "time": {"from": "now-6h", "to": "now"},
        "templating": {"list": variables()},
        "annotations": {"list": []},
        "links": [
            {"type": "dashboards", "tags": ["aem"], "title": "AEM dashboards", "asDropdown": True},
        ],
        "panels": layout(panels),
    }


def correctness_band() -> dict[str, Any]:
    """Per-release 1h correctness with its 95 % Wilson band (the interval `aem compare` prints)."""
    p = panel(
        "Turn correctness by release, with its 95% interval (1h)",
        [
            target(f"aem:turn_correctness:ratio_rate1h{{{SEL}}}", "{{agent}} {{release}}", "A"),
            target(f"aem:turn_correctness:wilson_low1h{{{SEL}}}", "{{agent}} {{release}} low", "B"),
            target(f"aem:turn_correctness:wilson_high1h{{{SEL}}}", "{{agent}} {{release}} high", "C"),
        ],
        unit="percentunit",
        minmax=(0, 1),
        description=(
            "Share of scored turns that pass over the last hour, with the 95% Wilson score interval as a band: "
            "a release with few turns has a wide band. Two releases whose bands overlap may not differ; "
            "`aem compare` tests the difference (docs/releases.md)."
        ),
        w=12,
    )
    p["fieldConfig"]["overrides"] = [
        {
            "matcher": {"id": "byFrameRefID", "options": "C"},
            "properties": [
                {"id": "custom.fillBelowTo", "value": "B"},
                {"id": "custom.lineWidth", "value": 0},
                {"id": "custom.fillOpacity", "value": 20},
            ],
        },
        {"matcher": {"id": "byFrameRefID", "options": "B"}, "properties": [{"id": "custom.lineWidth", "value": 0}]},
    ]
    return p


def regression_table() -> dict[str, Any]:
    """The regression alert's comparison per agent: newest (1h) against previous (1d), the change and its z."""
    sel = f"{{{AGENT}}}"
    p = panel(
        "Newest vs previous: change in correctness and its z",
        [
            target(f"aem:release_regression:newest_turns_1h{sel}", ref="A", instant=True, table=True),
            target(f"aem:release_regression:previous_turns_1d{sel}", ref="B", instant=True, table=True),
            target(f"aem:release_regression:change{sel}", ref="C", instant=True, table=True),
            target(f"aem:release_regression:z{sel}", ref="D", instant=True, table=True),
        ],
        kind="table",
        description=(
            "Per agent: scored turns of the newest release (1h) and of the previous one (1d), the change in "
            "correctness (newest minus previous) and its two-proportion z. AemReleaseCorrectnessRegression "
            "fires when the change is at least the margin (2 points) down and z is below -3 for 15 minutes. "
            "`aem compare PREVIOUS NEWEST` breaks the change down by slice (docs/releases.md)."
        ),
    )
    p["options"] = {"showHeader": True, "sortBy": [{"displayName": "z", "desc": False}]}
    p["transformations"] = [
        {"id": "merge", "options": {}},
        {
            "id": "organize",
            "options": {
                "excludeByName": {"Time": True},
                "indexByName": {"agent": 0, "release": 1, "previous_release": 2},
                "renameByName": {
                    "release": "newest release",
                    "previous_release": "previous release",
                    "Value #A": "newest turns (1h)",
                    "Value #B": "previous turns (1d)",
                    "Value #C": "change",
                    "Value #D": "z",
                },
            },
        },
    ]
    return p


def release_comparison() -> list[dict[str, Any]]:
    """What did the newest release break? Newest vs previous per agent, on one screen."""
    return [
        panel(
            "Newest vs previous release",
            [
                target(
                    f"aem:turn_correctness:ratio_rate1h{{{AGENT}}} and on (agent, release) aem:release:newest",
                    "newest {{agent}} {{release}} (1h)",
                    "A",
                ),
                target(
                    f"aem:turn_correctness:ratio_rate1d{{{AGENT}}} and on (agent, release) aem:release:previous",
                    "previous {{agent}} {{release}} (1d)",
                    "B",
                ),
            ],
            unit="percentunit",
            description=(
                "Newest and previous release per agent, ordered by aem_release_first_seen_timestamp_seconds "
                "(ignores the release selector). The AemReleaseCorrectnessRegression alert compares exactly "
                "these two lines (newest over 1h, previous over 1d) with a margin."
            ),
        ),
        regression_table(),
        panel(
            "Top root causes of the newest release (reason:field)",
            [
                target(
                    "topk by (agent) (10, sum by (agent, release, reason, field) "
                    f"(increase(aem_root_causes_total{{{JOB},{AGENT}}}[$__range])) "
                    "and on (agent, release) aem:release:newest)",
                    "{{agent}} {{release}} {{reason}}:{{field}}",
                    instant=True,
                )
            ],
            kind="bargauge",
            description=(
                "Root-cause failed turns of each agent's newest release over the dashboard's range, by "
                "reason and offending field (parameter). Cascading failures are left out: fix these first. "
                "Example conversations: the exemplars of the failure-rate panels, then `aem inspect ID`."
            ),
        ),
        comparison_table(
            "Newest vs previous: failures by sub-metric",
            "sub_metric",
            "Share of turns failing on each sub-metric: newest release over 1h, previous over 1d, and the "
            "change in points. Largest increase first. Ignores the release selector.",
        ),
        comparison_table(
            "Newest vs previous: failures by reason",
            "reason",
            "Share of turns failing with each reason: newest release over 1h, previous over 1d, and the "
            "change in points. A reason the previous release never had shows previous = 0.",
        ),
    ]


def overview() -> dict[str, Any]:
    panels = [
        ratio(
            "Turn correctness by release (5m)",
            f"aem:turn_correctness:ratio_rate5m{{{SEL}}}",
            "{{agent}} {{release}}",
            "Share of scored turns that pass (aem_turns_total outcome=pass / all). Unscored turns are excluded. "
            "A release that fails every turn reads 0.",
            w=12,
        ),
        panel(
            "Turn correctness, last hour",
            [target(f"aem:turn_correctness:ratio_rate1h{{{SEL}}}", "{{agent}} {{release}}", instant=True)],
            kind="stat",
            unit="percentunit",
            w=6,
        ),
        agreement_panel(),
        correctness_band(),
        *release_comparison(),
        panel(
            "Scored turns/s by release",
            [target(f"aem:turns:rate5m{{{SEL}}}", "{{agent}} {{release}}")],
            unit="reqps",
            w=24,
            h=6,
        ),
        ratio(
            "Failure rate by sub-metric",
            failure_share("sub_metric"),
            "{{release}} {{sub_metric}}",
            "Share of scored turns failing on each sub-metric (structural / completeness / truthfulness). "
            "Diamonds are exemplars: hover one for the conversation_id and turn_no of a failing turn, then "
            "run `aem inspect <conversation_id>`.",
            exemplar=True,
        ),
        ratio(
            "Failure rate by reason",
            failure_share("reason"),
            "{{release}} {{reason}}",
            "Share of scored turns failing with each reason. Diamonds are exemplars (a failing turn's "
            "conversation_id and turn_no): `aem inspect <conversation_id>` shows its cascade.",
            exemplar=True,
        ),
        panel(
            "Top failure reasons (selected range)",
            [
                target(
                    f"topk(10, sum by (reason, sub_metric) (increase(aem_turn_failures_total{{{RAW}}}[$__range])))",
                    "{{reason}} ({{sub_metric}})",
                    instant=True,
                )
            ],
            kind="bargauge",
            description=(
                "Failed turns by reason over the dashboard's time range. The offending field of root causes "
                "is in 'Top root causes of the newest release'; per-turn detail is in the verdicts on "
                "aem.verdicts (`aem inspect`, `aem tail aem.verdicts`)."
            ),
        ),
        ratio(
            "Root cause vs cascading failures",
            f"aem:turn_failures_by_attribution:ratio_rate5m{{{SEL}}}",
            "{{release}} {{attribution}}",
            "Share of failures that are the turn's own (root_cause) vs caused by an earlier failed turn.",
        ),
        ratio(
            "Action-turn correctness by chain length",
            f"aem:chain_turn_correctness:ratio_rate5m{{{SEL}}}",
            "{{release}} chain {{chain_length}}",
        ),
        panel(
            "Action turns/s by chain length",
            [target(f"aem:chain_turns:rate5m{{{SEL}}}", "{{release}} chain {{chain_length}}")],
            unit="reqps",
        ),
        ratio("Dialog pass rate", f"aem:dialog_pass:ratio_rate5m{{{SEL}}}", "{{agent}} {{release}}"),
        ratio(
            "Judge-only vs reference share of turns",
            f"aem:turn_mode_share:ratio_rate5m{{{SEL}}}",
            "{{release}} {{mode}}",
            "mode=judge: no reference, scored reference-free; mode=reference: aligned to gold turns.",
        ),
        ratio(
            "Correctness by mode",
            f"aem:turn_correctness_by_mode:ratio_rate5m{{{SEL}}}",
            "{{release}} {{mode}}",
        ),
        panel(
            "Turn score p50 / p10",
            [
                target(
                    "histogram_quantile(0.5, sum by (le, release) "
                    f"(rate(aem_turn_score_bucket{{{RAW}}}[$__rate_interval])))",
                    "p50 {{release}}",
                    "A",
                    exemplar=True,
                ),
                target(
                    "histogram_quantile(0.1, sum by (le, release) "
                    f"(rate(aem_turn_score_bucket{{{RAW}}}[$__rate_interval])))",
                    "p10 {{release}}",
                    "B",
                ),
            ],
            minmax=(0, 1),
            description="The continuous score behind pass/fail. Diamonds: scores of failing turns (exemplars).",
        ),
    ]
    return dashboard(
        "aem-overview",
        "AEM / Agent correctness",
        "Per-release turn correctness, newest vs previous release, failure breakdowns with example "
        "conversations (exemplars), attribution and chains (AEM monitor).",
        panels,
    )


def pipeline() -> dict[str, Any]:
    rate = "[$__rate_interval]"
    job = f"{{{JOB}}}"
    panels = [
        panel(
            "Events/s by outcome",
            [target(f"sum by (outcome) (rate(aem_events_total{job}{rate}))", "{{outcome}}")],
            unit="reqps",
        ),
        panel(
            "Dead-letter messages/s",
            [target(f"sum(rate(aem_dlq_messages_total{job}{rate}))", "to aem.traces.dlq")],
            unit="reqps",
            description="Inspect with `aem tail aem.traces.dlq`; re-drive fixed events with `aem redrive`.",
        ),
        ratio("Invalid event share (10m)", "aem:events_invalid:ratio_rate10m", "invalid"),
        panel(
            "Consumer lag per partition",
            [target(f"max by (topic, partition) (aem_consumer_lag_messages{job})", "{{topic}}/{{partition}}")],
            description="Per topic/partition, the max across replicas (as aem:consumer_lag_messages:max).",
        ),
        panel(
            "Event-to-verdict latency p50 / p99",
            [
                target(
                    f"histogram_quantile(0.5, sum by (le) (rate(aem_event_latency_seconds_bucket{job}{rate})))",
                    "p50",
                    "A",
                ),
                target(
                    f"histogram_quantile(0.99, sum by (le) (rate(aem_event_latency_seconds_bucket{job}{rate})))",
                    "p99",
                    "B",
                ),
            ],
            unit="s",
        ),
        panel(
            "Open conversations",
            [target(f"sum by (instance) (aem_open_dialogs{job})", "{{instance}}")],
        ),
        panel(
            "Evictions/s (memory bound)",
            [target(f"sum(rate(aem_evictions_total{job}{rate}))", "evicted")],
            unit="reqps",
            description="Open conversations finished early because the in-memory bound was reached.",
        ),
        panel(
            "Monitor instances up",
            [target(f"sum(up{job})", "up", instant=True)],
            kind="stat",
            description="Scrape targets of the selected job(s) that are up (the job variable: `monitor job`).",
        ),
        panel(
            "Scored turns/s (selected agent, release)",
            [target(f"sum by (agent, release) (rate(aem_turns_total{{{RAW}}}{rate}))", "{{agent}} {{release}}")],
            unit="reqps",
        ),
        judge_panel(
            "LLM judge requests/s by outcome",
            f"sum by (outcome) (rate(aem_judge_requests_total{job}{rate}))",
            "{{outcome}}",
            "reqps",
        ),
        judge_panel(
            "LLM judge latency p99",
            f"histogram_quantile(0.99, sum by (le) (rate(aem_judge_latency_seconds_bucket{job}{rate})))",
            "p99",
            "s",
        ),
    ]
    return dashboard(
        "aem-pipeline",
        "AEM / Pipeline health",
        "Kafka consumption, validation, DLQ, lag, latency and memory of the AEM monitor.",
        panels,
    )


def render() -> dict[str, str]:
    return {f"{d['uid']}.json": json.dumps(d, indent=2, sort_keys=False) + "\n" for d in (overview(), pipeline())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="fail if the committed JSON is out of date")
    args = parser.parse_args(argv)
    stale = []
    for name, text in render().items():
        path = OUT_DIR / name
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
    if stale:
        print(f"out of date: {', '.join(stale)}; run python grafana/build_dashboards.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
