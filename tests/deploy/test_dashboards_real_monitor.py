"""Dashboard panel queries and exemplars against a real Prometheus scraping the REAL monitor pipeline.

A real `aem run` consumes `aem replay --sample` traffic (two releases, cascades) from the real
broker (Tansu), then a third release of the same agent in which every turn fails (`aem replay
FILE --release ...`). Prometheus (exemplar storage on, the shipped rules loaded) scrapes it.

* every panel returns data; with only the failing release selected every non-judge panel still
  returns data and the correctness panels read 0 (not "No data"); the judge panels say the judge
  is not configured;
* the exemplars Prometheus stored for the failure counter name conversations whose turns really
  failed, as the verdict topic records them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from kafka import KafkaConsumer, TopicPartition

from monitor.demo.traffic import sample_dialogs
from tests.support.kafka import MonitorProcess, TopicSet, send
from tests.support.prometheus import (
    RULES_DIR,
    PrometheusProcess,
    free_port,
    has_finite_value,
    run_dashboard_queries,
)

from .conftest import REPO_ROOT
from .fake_monitor import CALIBRATION

pytestmark = pytest.mark.integration

FAILING_RELEASE = "2026.12.0-all-fail"
JUDGE_PANELS = {"aem-pipeline/LLM judge requests/s by outcome", "aem-pipeline/LLM judge latency p99"}
# panels whose every value is a pass ratio: a release that fails everything must read 0 there
CORRECTNESS_PANELS = {
    "aem-overview/Turn correctness by release (5m)",
    "aem-overview/Turn correctness, last hour",
    "aem-overview/Action-turn correctness by chain length",
    "aem-overview/Dialog pass rate",
    "aem-overview/Correctness by mode",
}


def aem_command() -> list[str]:
    exe = Path(sys.executable).with_name("aem")
    if exe.exists():
        return [str(exe)]
    found = shutil.which("aem")
    assert found, "the aem console script is not installed (pip install -e .)"
    return [found]


def failing_dialogs(count: int = 10) -> list[dict[str, Any]]:
    """Sample dialogs of the same agent whose every scored turn fails: wrong action, off-topic replies."""
    dialogs = []
    for dialog in sample_dialogs(per_release=count)[:count]:
        for turn in dialog["turns"]:
            if turn["turn"] == "Agent":
                turn["predict_turn"] = {"response": "The weather in Oslo is rainy today."}
            elif turn["turn"] == "Tool":
                turn["predict_turn"] = {**turn["predict_turn"], "action": "DeleteEverything"}
        dialog["dialog_id"] = "all-fail-" + dialog["dialog_id"]
        dialogs.append(dialog)
    return dialogs


def replay(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*aem_command(), "replay", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        cwd=REPO_ROOT,
        env=env,
    )


def wait_for_metric(monitor: MonitorProcess, port: int, *needles: str, timeout: float = 180) -> None:
    """Wait until one line of /metrics contains every needle."""
    deadline = time.monotonic() + timeout
    while True:
        assert monitor.process is not None and monitor.process.poll() is None, "aem run exited:\n" + "".join(
            monitor.lines[-30:]
        )
        try:
            lines = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=2).text.splitlines()
            if any(all(n in line for n in needles) for line in lines):
                return
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, f"aem run served no {needles} within {timeout}s"
        time.sleep(1)


@pytest.fixture(scope="module")
def live(broker, tmp_path_factory) -> Iterator[tuple[int, str, TopicSet]]:
    """`aem run` on the real broker, fed by sample traffic and then by a release that fails everything."""
    topics = TopicSet.fresh(broker.bootstrap)
    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    calibration = tmp_path_factory.mktemp("calibration") / "calibration.yaml"
    calibration.write_text(yaml.safe_dump({"scoring": {}, "calibration": CALIBRATION.model_dump(mode="json")}))
    run_args = topics.run_args(broker.bootstrap, "--idle-timeout", "20", "--config", str(calibration), port=port)
    monitor = MonitorProcess(run_args).start()
    common = ["--bootstrap-servers", broker.bootstrap, "--topic", topics.traces]
    traffic = [replay(["--sample", "--repeat", "100", "--rate", "30", *common], env)]
    try:
        send(broker.bootstrap, topics.traces, [b"{not json", b'{"schema_version": 7}'])  # the DLQ has data too
        wait_for_metric(monitor, port, "aem_dialogs_total{")
        # the failing release starts after the others: it is the agent's newest
        path = tmp_path_factory.mktemp("all-fail") / "all_fail.json"
        path.write_text(json.dumps(failing_dialogs()))
        failing = [str(path), "--release", FAILING_RELEASE, "--repeat", "30", "--rate", "15"]
        traffic.append(replay([*failing, *common], env))
        wait_for_metric(monitor, port, "aem_dialogs_total{", f'release="{FAILING_RELEASE}"')
        yield port, broker.bootstrap, topics
    finally:
        for process in traffic:
            process.terminate()
            process.wait(timeout=20)
        monitor.stop()


@pytest.fixture(scope="module")
def prom(live) -> Iterator[PrometheusProcess]:
    port = live[0]
    with PrometheusProcess(
        [f"127.0.0.1:{port}"], sorted(RULES_DIR.glob("*.yml")), extra_args=["--enable-feature=exemplar-storage"]
    ) as prom:
        prom.wait_for(f'aem:turn_correctness:ratio_rate5m{{release="{FAILING_RELEASE}"}}', timeout=90)
        prom.wait_for(f'aem:dialog_pass:ratio_rate5m{{release="{FAILING_RELEASE}"}}', timeout=90)
        prom.wait_for("aem:release:newest_vs_previous", timeout=60)
        yield prom


def settle(prom: PrometheusProcess, variables: dict[str, Any], ok: Any, timeout: float = 90) -> dict[str, list]:
    """Run the dashboards until `ok(results)` holds (rates need a few scrapes), then return the results."""
    deadline = time.monotonic() + timeout
    while True:
        results = run_dashboard_queries(prom, variables)
        if ok(results) or time.monotonic() > deadline:
            return results
        time.sleep(2)


def without_data(results: dict[str, list]) -> list[str]:
    return sorted(t for t, r in results.items() if t not in JUDGE_PANELS and not has_finite_value(r))


def test_every_panel_returns_data_from_the_real_monitor(prom):
    everything = {"job": ["aem-monitor"], "agent": ".*", "release": ".*"}
    results = settle(prom, everything, lambda r: not without_data(r))
    assert not without_data(results), f"panels without data from the real monitor: {without_data(results)}"
    # the demo monitor has no LLM judge: its panels say so instead of showing No data
    assert prom.query('aem_judge_configured{job="aem-monitor"}')[0]["value"][1] == "0"
    for title in JUDGE_PANELS:
        status = [s for s in results[title] if s["metric"]["__refId__"] == "B"]
        assert [s["value"][1] for s in status] == ["0"], title  # mapped to "judge not configured"
    bad = [r["name"] for g in prom.rule_groups() for r in g["rules"] if r["health"] != "ok"]
    assert not bad


def test_a_release_that_fails_every_turn_reads_zero_not_no_data(prom):
    only_failing = {"job": ["aem-monitor"], "agent": ["sales-assistant"], "release": [FAILING_RELEASE]}
    results = settle(prom, only_failing, lambda r: not without_data(r))
    empty = without_data(results)
    assert not empty, f"panels without data for a release failing everything: {empty}"
    for title in CORRECTNESS_PANELS:
        values = {float(s["value"][1]) for s in results[title] if s["metric"].get("release") == FAILING_RELEASE}
        assert values == {0.0}, f"{title}: {values}"
    # it is the agent's newest release: the comparison panels put it against the previous one
    newest = {s["metric"]["release"] for s in results["aem-overview/Newest vs previous release"]}
    assert FAILING_RELEASE in newest
    for dimension in ("reason", "sub-metric"):
        title = f"aem-overview/Newest vs previous: failures by {dimension}"
        rows = results[title]
        assert rows and all(s["metric"]["release"] == FAILING_RELEASE for s in rows), title
        assert {s["metric"]["previous_release"] for s in rows} <= {"2026.11.1", "2026.11.2"}
    root_causes = results["aem-overview/Top root causes of the newest release (reason:field)"]
    newest_causes = {(s["metric"]["reason"], s["metric"]["field"]) for s in root_causes}
    assert ("action_mismatch", "action") in newest_causes


def turn_verdicts_on(
    bootstrap: str, topic: str, wanted: set[tuple[str, int]], timeout: float = 120
) -> dict[tuple[str, int], dict[str, Any]]:
    """The turn verdicts on the topic, read from the beginning until every wanted (conversation_id,
    turn_no) was seen or the timeout (traffic is still flowing, so the topic has no end to wait for)."""
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False)
    try:
        tps = [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or set())]
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        seen: dict[tuple[str, int], dict[str, Any]] = {}
        deadline = time.monotonic() + timeout
        while not wanted <= set(seen) and time.monotonic() < deadline:
            for records in consumer.poll(timeout_ms=1000).values():
                for record in records:
                    verdict = json.loads(record.value)
                    if verdict.get("kind") == "turn":
                        seen[(verdict["conversation_id"], int(verdict["turn_no"]))] = verdict
        return seen
    finally:
        consumer.close()


def exemplar_turns(found: list[dict[str, Any]]) -> list[tuple[dict[str, str], tuple[str, int]]]:
    return [
        (s["seriesLabels"], (e["labels"]["conversation_id"], int(e["labels"]["turn_no"])))
        for s in found
        for e in s["exemplars"]
    ]


def test_exemplars_name_conversations_that_really_failed(prom, live):
    _, bootstrap, topics = live
    failures: list[dict[str, Any]] = []
    deadline = time.monotonic() + 60
    while not any(s["seriesLabels"].get("release") == FAILING_RELEASE for s in failures):
        assert time.monotonic() < deadline, f"no exemplar of {FAILING_RELEASE}: {failures}"
        time.sleep(2)
        failures = prom.query_exemplars('aem_turn_failures_total{job="aem-monitor"}', time.time() - 900, time.time())
    found = {"aem_turn_failures_total": exemplar_turns(failures)}
    # the turn counter's fail series and the score histogram carry them too
    for expr in ('aem_turns_total{job="aem-monitor",outcome="fail"}', 'aem_turn_score_bucket{job="aem-monitor"}'):
        found[expr] = exemplar_turns(prom.query_exemplars(expr, time.time() - 900, time.time()))
    assert all(found.values()), {k: len(v) for k, v in found.items()}
    wanted = {turn for pairs in found.values() for _, turn in pairs}
    verdicts = turn_verdicts_on(bootstrap, topics.verdicts, wanted)
    for expr, pairs in found.items():
        for series, turn in pairs:
            assert turn in verdicts, f"{expr}: exemplar {turn} has no verdict on {topics.verdicts}"
            verdict = verdicts[turn]
            assert verdict["success"] is False, f"{expr}: exemplar {turn} names a turn that passed: {verdict}"
            assert verdict["release"] == series["release"] and verdict["agent"] == series["agent"]
