"""Bundled sample traffic: a sales-report agent in two releases, the newer regressed on one argument.

Release `2026.11.1` reports the metric the user asked for. Release `2026.11.2` often filters on
`profit` when asked for `revenue`: the wrong dataset flows into the report, the chart and the
final answer, so one root cause shows up with a three-turn cascade behind it.
"""

from __future__ import annotations

import random
from typing import Any

AGENT = "sales-assistant"
RELEASES = ("2026.11.1", "2026.11.2")
REGIONS = {"EU": "Europe", "US": "the United States", "APAC": "Asia-Pacific"}
METRICS = ("revenue", "units sold", "gross margin")
CHARTS = ("bar", "line", "pie")
QUARTERS = ("Q1", "Q2", "Q3", "Q4")


def _slug(text: str) -> str:
    return text.lower().replace(" ", "-")


def _run(region: str, metric: str, chart: str, quarter: str, total: str) -> dict[str, Any]:
    dataset = f"ds-{_slug(region)}-{_slug(metric)}"
    report = f"rpt-{_slug(region)}-{_slug(metric)}-{quarter.lower()}"
    return {
        "filter": {
            "tool_id": "reports",
            "action": "FilterData",
            "args": {"metric": metric, "region": region},
            "output": {"dataset_id": dataset},
        },
        "create": {
            "tool_id": "reports",
            "action": "CreateReport",
            "args": {"dataset_id": dataset, "title": f"{region} {metric} report {quarter}"},
            "output": {"report_id": report, "total": total},
        },
        "chart": {
            "tool_id": "reports",
            "action": "AddChart",
            "args": {"report_id": report, "chart_type": chart},
            "output": {"status": "ok"},
        },
        "answer": (
            f"Your {region} {metric} report for {quarter} is ready: the total was {total}, shown as a {chart} chart."
        ),
    }


def sample_dialog(rng: random.Random, release: str, index: int) -> dict[str, Any]:
    region = rng.choice(list(REGIONS))
    metric = rng.choice(METRICS)
    chart = rng.choice(CHARTS)
    quarter = rng.choice(QUARTERS)
    gold_total = f"{rng.randint(11, 99) / 10:.1f} million euros"
    gold = _run(region, metric, chart, quarter, gold_total)
    predicted_metric = metric
    if release == RELEASES[1] and (metric == "revenue" or rng.random() < 0.35):
        predicted_metric = "profit"
    elif rng.random() < 0.05:
        predicted_metric = rng.choice([m for m in METRICS if m != metric])
    pred_total = gold_total if predicted_metric == metric else f"{rng.randint(1, 9) / 10:.1f} million euros"
    pred = _run(region, predicted_metric, chart, quarter, pred_total)
    ask = f"Can you build me a {quarter} {metric} report for {REGIONS[region]} with a {chart} chart?"
    turns: list[dict[str, Any]] = [
        {"turn_no": 1, "turn": "User", "predict_turn": {"content": ask}},
        {
            "turn_no": 2,
            "turn": "Agent",
            "gold_turn": {"response": f"Sure, I will prepare the {region} {metric} report for {quarter}."},
            "predict_turn": {"response": f"Of course, I'll prepare the {region} {metric} report for {quarter}."},
        },
        {
            "turn_no": 3,
            "turn": "Tool",
            "gold_turn": gold["filter"],
            "predict_turn": pred["filter"],
            "tags": ["OrderInvariant_filter"],
        },
        {"turn_no": 4, "turn": "Tool", "gold_turn": gold["create"], "predict_turn": pred["create"]},
        {"turn_no": 5, "turn": "Tool", "gold_turn": gold["chart"], "predict_turn": pred["chart"]},
        {
            "turn_no": 6,
            "turn": "Agent",
            "gold_turn": {"response": gold["answer"]},
            "predict_turn": {"response": pred["answer"]},
        },
    ]
    if rng.random() < 0.1:  # now and then the agent forgets the chart type
        turns[4]["predict_turn"] = {**pred["chart"], "args": {"report_id": pred["chart"]["args"]["report_id"]}}
    return {"dialog_id": f"{release}-{index:06d}", "agent": AGENT, "release": release, "turns": turns}


def sample_dialogs(per_release: int = 50, seed: int = 7) -> list[dict[str, Any]]:
    """Deterministic sample traffic, interleaving the two releases."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for i in range(per_release):
        for release in RELEASES:
            out.append(sample_dialog(rng, release, i))
    return out
