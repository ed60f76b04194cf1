"""The fast-alert rules are the shipped rules with shorter windows: same names, same expressions otherwise,
valid for promtool."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
import yaml

from monitor.demo.fast_rules import fast_expr, write_fast_rules

from .conftest import REPO_ROOT

RULES = REPO_ROOT / "deploy" / "prometheus" / "rules"
DURATION = re.compile(r"\[[0-9a-z:]+\]|offset\s+[0-9a-z]+")


def _rules(path):
    return [rule for group in yaml.safe_load(path.read_text())["groups"] for rule in group["rules"]]


def test_windows_are_divided_by_sixty_with_a_floor():
    assert fast_expr("rate(x[1h]) / rate(x[1d])") == "rate(x[1m]) / rate(x[24m])"
    assert fast_expr("rate(x[5m]) and increase(y[6h] offset 10m)") == "rate(x[30s]) and increase(y[6m] offset 10s)"
    assert fast_expr("max_over_time(x[2h:10m])") == "max_over_time(x[2m:10s])"


@pytest.fixture(scope="module")
def fast_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("fast")
    write_fast_rules(RULES, out)
    return out


@pytest.mark.parametrize("name", ["alerts.yml", "recording.yml"])
def test_every_rule_keeps_its_name_and_expression(fast_dir, name):
    real, fast = _rules(RULES / name), _rules(fast_dir / f"fast-{name}")
    assert [r.get("alert") or r.get("record") for r in fast] == [r.get("alert") or r.get("record") for r in real]
    for old, new in zip(real, fast, strict=True):
        assert DURATION.sub("D", new["expr"]) == DURATION.sub("D", old["expr"])
        assert new.get("labels") == old.get("labels")
        assert set(new.get("annotations", {})) == set(old.get("annotations", {}))
        assert ("for" in new) == ("for" in old)


def test_the_regression_alert_waits_seconds_not_minutes(fast_dir):
    alerts = _rules(fast_dir / "fast-alerts.yml")
    regression = next(r for r in alerts if r.get("alert") == "AemReleaseCorrectnessRegression")
    assert regression["for"] == "15s"
    correctness = {r["record"]: r["expr"] for r in _rules(fast_dir / "fast-recording.yml")}
    assert "[1m]" in correctness["aem:turn_correctness:ratio_rate1h"]
    assert "[24m]" in correctness["aem:turn_correctness:ratio_rate1d"]


def test_the_annotations_speak_of_the_shortened_windows(fast_dir):
    """A fast alert that says "in the last 10 minutes" would describe a window it does not use."""
    alerts = {r["alert"]: r for r in _rules(fast_dir / "fast-alerts.yml") if "alert" in r}
    spike = alerts["AemFailureReasonSpike"]["annotations"]["description"]
    assert "in the last 30 seconds" in spike and "the 6 minutes before" in spike, spike
    texts = [text for rule in alerts.values() for text in rule.get("annotations", {}).values()]
    assert not [t for t in texts if re.search(r"last (10 minutes|15 minutes|5 minutes|hour|day)\b", t)]


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool not installed")
def test_promtool_accepts_the_fast_rules(fast_dir):
    files = sorted(str(p) for p in fast_dir.glob("*.yml"))
    proc = subprocess.run(["promtool", "check", "rules", *files], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
