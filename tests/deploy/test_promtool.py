"""promtool checks of deploy/prometheus: rule syntax, unit tests, config, and test coverage."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from monitor.report.proportions import two_proportion_z

from .conftest import REPO_ROOT

PROM_DIR = REPO_ROOT / "deploy" / "prometheus"
RULE_FILES = sorted((PROM_DIR / "rules").glob("*.yml"))
TEST_FILES = sorted((PROM_DIR / "tests").glob("*.yml"))
OPERATING = REPO_ROOT / "docs" / "operating.md"


def promtool() -> str:
    path = shutil.which("promtool")
    # fail, not skip: CI installs Debian's prometheus package, which ships promtool
    assert path, "promtool not found on PATH: apt-get install prometheus"
    return path


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    # Go's collector at GOGC=400 rather than 100: a run of the whole unit-test suite takes about 35 s of CPU
    # instead of 42 (and about 125 MB instead of 70)
    env = {**os.environ, "GOGC": os.environ.get("GOGC", "400")}
    return subprocess.run(
        [promtool(), *map(str, args)], capture_output=True, text=True, timeout=300, check=False, env=env
    )


def alerts() -> list[dict]:
    doc = yaml.safe_load((PROM_DIR / "rules" / "alerts.yml").read_text())
    return [r for g in doc["groups"] for r in g["rules"] if "alert" in r]


def recording_rules() -> list[dict]:
    doc = yaml.safe_load((PROM_DIR / "rules" / "recording.yml").read_text())
    return [r for g in doc["groups"] for r in g["rules"] if "record" in r]


def test_rule_files_exist():
    assert {p.name for p in RULE_FILES} == {"recording.yml", "alerts.yml"}
    assert TEST_FILES


def test_promtool_check_rules():
    result = run("check", "rules", *RULE_FILES)
    assert result.returncode == 0, result.stdout + result.stderr


def test_promtool_test_rules():
    result = run("test", "rules", *TEST_FILES)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("SUCCESS") == len(TEST_FILES)


def test_promtool_check_config():
    result = run("check", "config", PROM_DIR / "prometheus.yml")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_local_config_loads_the_shipped_rules_and_scrapes_loopback():
    local = PROM_DIR.parent / "local" / "prometheus.yml"
    result = run("check", "config", local)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 rule files found" in result.stdout
    assert "127.0.0.1:9464" in local.read_text()


def _copy_of_the_suite(
    tmp_path: Path,
    rules: Callable[[str], str],
    tests: Callable[[str], str] = str,
    only: Callable[[dict], bool] | None = None,
) -> list[Path]:
    """The rule files (edited by `rules`) and the promtool unit tests (edited by `tests`) in `tmp_path`, laid out as
    in deploy/prometheus; with `only`, just the test groups it keeps (a file left with none is left out). Returns
    the test files to run."""
    (tmp_path / "rules").mkdir(parents=True)
    (tmp_path / "tests").mkdir()
    for p in RULE_FILES:
        (tmp_path / "rules" / p.name).write_text(rules(p.read_text()))
    out = []
    for p in TEST_FILES:
        text = tests(p.read_text())
        if only is not None:
            doc = yaml.safe_load(text)
            doc["tests"] = [case for case in doc["tests"] if only(case)]
            if not doc["tests"]:
                continue
            text = yaml.safe_dump(doc, sort_keys=False, width=1_000)
        (tmp_path / "tests" / p.name).write_text(text)
        out.append(tmp_path / "tests" / p.name)
    assert out, "no test group kept"
    return out


def _tests_with_rules_changed(
    tmp_path: Path, old: str, new: str, only: Callable[[dict], bool] | None = None
) -> subprocess.CompletedProcess[str]:
    """The promtool unit tests (the groups `only` keeps) run against the rule files with `old` replaced by `new`
    (which must be there). Each promtool run of the whole suite costs about 40 s of CPU (the failure-reason
    groups evaluate every rule for 395 minutes at 1-minute steps), so a test of a broken rule runs the groups
    that exercise it: a group left out could not have failed in a way the test asserts."""

    def edit(text: str) -> str:
        assert text.count(old) <= 1, old
        return text.replace(old, new)

    assert sum(p.read_text().count(old) for p in RULE_FILES) == 1, old
    return run("test", "rules", *_copy_of_the_suite(tmp_path, edit, only=only))


def _checks_alert(name: str) -> Callable[[dict], bool]:
    return lambda case: any(check["alertname"] == name for check in case.get("alert_rule_test", []))


def _named(*names: str) -> Callable[[dict], bool]:
    assert all(any(case.get("name") == n for p in TEST_FILES for case in yaml.safe_load(p.read_text())["tests"])
               for n in names), names  # fmt: skip
    return lambda case: case.get("name") in names


def test_promtool_test_rules_catches_a_broken_rule(tmp_path: Path):
    """The unit tests are not vacuous: widening the regression margin to 50 points must fail them."""
    margin = "release_regression_margin\n        expr: vector({})"
    result = _tests_with_rules_changed(
        tmp_path, margin.format("0.02"), margin.format("0.5"), only=_checks_alert("AemReleaseCorrectnessRegression")
    )
    assert result.returncode != 0
    assert "AemReleaseCorrectnessRegression" in result.stdout + result.stderr


def test_noise_is_kept_quiet_by_the_significance_bound(tmp_path: Path):
    """Without the z bound the 5-point gap at 200 turns (noise) would fire: the statistic is what keeps it quiet."""
    noise = (
        "regression stays quiet on a 5-point gap at 200 turns (noise)",
        "failure-reason spike stays quiet on low volume (noise)",
    )
    result = _tests_with_rules_changed(
        tmp_path,
        "significance_z\n        expr: vector(3)",
        "significance_z\n        expr: vector(0)",
        only=_named(*noise),
    )
    assert result.returncode != 0
    out = result.stdout + result.stderr
    for name in noise:
        assert name in out


def _expected(case_name: str, expr: str) -> float:
    for path in TEST_FILES:
        for case in yaml.safe_load(path.read_text())["tests"]:
            if case.get("name") != case_name:
                continue
            for check in case.get("promql_expr_test", []):
                if check["expr"] == expr:
                    return float(check["exp_samples"][0]["value"])
    raise AssertionError(f"no promql_expr_test {expr!r} in {case_name!r}")


def test_the_rules_z_is_the_z_of_aem_compare():
    """The recording rule and `aem compare` compute the same two-proportion z on the same counts."""
    case = "regression fires on a 10-point drop at 400 turns"
    counts = {
        name: int(_expected(case, f"round(aem:release_regression:{name})"))
        for name in ("previous_passes_1d", "previous_turns_1d", "newest_passes_1h", "newest_turns_1h")
    }
    z = two_proportion_z(
        counts["previous_passes_1d"], counts["previous_turns_1d"], counts["newest_passes_1h"], counts["newest_turns_1h"]
    ).z
    assert round(z, 2) == _expected(case, "round(aem:release_regression:z, 0.01)")


RUNBOOK_TEMPLATE = (
    '{{ with query "aem:alert_param:runbook_url" }}{{ . | first | label "url" }}{{ else }}docs/operating.md{{ end }}#'
)


def test_every_alert_has_annotations_and_a_runbook_section():
    headings = {line.lstrip("#").strip().lower() for line in OPERATING.read_text().splitlines() if line.startswith("#")}
    for alert in alerts():
        ann = alert.get("annotations", {})
        assert {"summary", "description", "runbook_url"} <= set(ann), alert["alert"]
        assert alert["labels"]["severity"] in {"warning", "critical"}
        url = ann["runbook_url"]
        assert url.startswith(RUNBOOK_TEMPLATE), f"{alert['alert']}: runbook_url must use the one base URL"
        anchor = url.rsplit("#", 1)[1]
        assert anchor == alert["alert"].lower()
        assert anchor in headings, f"docs/operating.md has no section '{alert['alert']}'"


def test_runbook_links_follow_the_one_configured_url(tmp_path: Path):
    """Setting aem:alert_param:runbook_url once moves every alert's runbook link (no address is guessed)."""
    base = "https://git.example.org/team/aem-monitor/blob/v1/docs/operating.md"
    default = '"url", "docs/operating.md"'
    assert sum(p.read_text().count(default) for p in RULE_FILES) == 1

    def moved_rules(text: str) -> str:
        return text.replace(default, f'"url", "{base}"')

    def moved_expectations(text: str) -> str:
        text = text.replace('runbook_url: "docs/operating.md#', f'runbook_url: "{base}#')
        return text.replace('{url="docs/operating.md"}', f'{{url="{base}"}}')

    # the expectations still name the default: a group that checks an alert's annotations fails on the moved link
    first = _named("regression fires on a real 3-point drop at 20,000 turns")
    stale = run("test", "rules", *_copy_of_the_suite(tmp_path / "stale", moved_rules, only=first))
    assert stale.returncode != 0
    assert f"{base}#aemreleasecorrectnessregression" in stale.stdout + stale.stderr
    # every group that names the runbook link passes once its expectations name the configured URL (the others
    # name no link: what they check is the same whatever the URL, and test_promtool_test_rules runs them)
    def names_the_link(case: dict) -> bool:
        return "docs/operating.md" in yaml.safe_dump(case)

    linked = run("test", "rules", *_copy_of_the_suite(tmp_path / "moved", moved_rules, moved_expectations,
                                                       only=names_the_link))  # fmt: skip
    assert linked.returncode == 0, linked.stdout + linked.stderr
    assert linked.stdout.count("SUCCESS") == sum(
        any(names_the_link(c) for c in yaml.safe_load(p.read_text())["tests"]) for p in TEST_FILES
    )


def test_every_alert_is_unit_tested_firing_and_quiet():
    fired: dict[str, int] = {}
    quiet: dict[str, int] = {}
    for path in TEST_FILES:
        for case in yaml.safe_load(path.read_text())["tests"]:
            for check in case.get("alert_rule_test", []):
                bucket = fired if check.get("exp_alerts") else quiet
                bucket[check["alertname"]] = bucket.get(check["alertname"], 0) + 1
    names = {a["alert"] for a in alerts()}
    assert names <= set(fired), f"alerts never shown to fire: {names - set(fired)}"
    assert names <= set(quiet), f"alerts never shown to stay quiet: {names - set(quiet)}"
    # the comparison alerts are checked on noise, low volume and improvement, not just once
    assert quiet["AemReleaseCorrectnessRegression"] >= 4
    assert quiet["AemFailureReasonSpike"] >= 4


def test_every_recording_rule_used_by_an_alert_is_unit_tested():
    tested = ""
    for path in TEST_FILES:
        for case in yaml.safe_load(path.read_text())["tests"]:
            tested += " ".join(c["expr"] for c in case.get("promql_expr_test", []))
    alert_text = " ".join(a["expr"] for a in alerts())
    for rule in recording_rules():
        name = rule["record"]
        if name in alert_text:
            assert name in tested or name.startswith("aem:alert_param"), f"{name} has no promql_expr_test"


@pytest.mark.parametrize("name", ["aem:alert_param:release_regression_margin", "aem:alert_param:significance_z"])
def test_regression_alert_joins_the_documented_parameters(name: str):
    regression = next(a for a in alerts() if a["alert"] == "AemReleaseCorrectnessRegression")
    assert name in regression["expr"]
    assert name in {r["record"] for r in recording_rules()}
