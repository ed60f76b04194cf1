"""The docs are the repo's own contract: their examples parse as what they claim, their links stay inside."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry

from monitor import docs_tables
from monitor.calibration.overlay import AgreementFigure, Calibration
from monitor.cluster import KafkaSecurity
from monitor.judge.config import JudgeSettings
from monitor.models.trace_event import parse_event
from monitor.models.verdict import TurnVerdict
from monitor.scoring.config import ScoringConfig
from monitor.stream.calibration import CalibrationMetrics
from monitor.stream.metrics import VerdictMetrics
from monitor.stream.otlp import OtlpInput
from monitor.stream.settings import MonitorSettings
from monitor.stream.telemetry import PipelineTelemetry
from monitor.wiring import build_engine

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
PAGES = [*sorted(DOCS.rglob("*.md")), REPO / "README.md"]
CHECKERS = {Path(__file__).resolve(), REPO / "tests" / "test_readme.py"}


def json_blocks(path: Path) -> list[dict]:
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", path.read_text(), flags=re.S)]


def test_every_trace_event_example_is_valid():
    examples = json_blocks(DOCS / "trace-events.md")
    assert {e["turn"] for e in examples} == {"User", "Tool", "Agent"}
    for example in examples:
        assert parse_event(example).conversation_id


def test_the_verdict_example_is_a_verdict():
    (example,) = json_blocks(DOCS / "verdicts.md")
    verdict = TurnVerdict.model_validate(example)
    assert verdict.attribution == "cascading" and verdict.caused_by == 2


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_links_stay_inside_the_repo(page):
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", page.read_text()):
        if target.startswith(("http://", "https://")):
            continue
        resolved = (page.parent / target).resolve()
        assert resolved.is_relative_to(REPO), f"{page.name} links outside the repo: {target}"
        assert resolved.exists(), f"{page.name} links to a missing {target}"


def _table_names(page: str) -> set[str]:
    return set(re.findall(r"^\| \[?`([\w.]+)`", (DOCS / page).read_text(), flags=re.M))


def test_the_generated_tables_match_their_sources():
    """docs/metrics.md, docs/operating.md: regenerate with `python -m monitor.docs_tables`."""
    assert docs_tables.stale() == []


def test_the_metric_page_lists_exactly_what_the_monitor_exports():
    documented = {name for name in _table_names("metrics.md") if name.startswith("aem_")}
    registry = CollectorRegistry()
    build_engine(ScoringConfig(), registry=registry, judge=JudgeSettings(url="http://127.0.0.1:1/v1", model="m"))
    VerdictMetrics(registry)
    PipelineTelemetry(registry)
    OtlpInput("otlp_json", registry=registry)
    figure = AgreementFigure(turn_type="action", kind="kappa", value=0.8, low=0.7, high=0.9, labels=50)
    calibration = Calibration(id="c1", created="", labels=50, agreement=[figure], low_confidence_share=0.1)
    CalibrationMetrics(registry, calibration)
    exported = {f"{m.name}_total" if m.type == "counter" else m.name for m in registry.collect()}
    exported = {f"{name}_info" if name == "aem_calibration" else name for name in exported}
    assert {"aem_root_causes_total", "aem_turns_total", "aem_judge_requests_total"} <= exported
    assert documented == {name for name in exported if name.startswith("aem_")}


def test_the_operating_page_lists_every_alert_and_setting():
    alerts = {rule["alert"] for rule in docs_tables.alert_rules()}
    assert len(alerts) >= 8 and alerts <= _table_names("operating.md")
    settings = {f"kafka.{f}" for f in KafkaSecurity.model_fields} | set(MonitorSettings.model_fields) - {"kafka"}
    assert settings <= _table_names("operating.md")
    for row in docs_tables.settings_table().splitlines()[2:]:
        assert row.count("|") == 5, row


def test_nothing_depends_on_a_path_outside_the_repo():
    """A clone has no ../shared and no DESIGN.md: no code, test, benchmark or page may point there."""
    pattern = re.compile(r"/work/|\.\./shared|parent\s*/\s*\"shared\"|DESIGN\.md")
    offenders = []
    files = [*PAGES, *(REPO / "benchmarks" / "data").glob("*.md")]
    for folder in ("monitor", "tests", "benchmarks", "deploy"):
        files += (REPO / folder).rglob("*.py")
    for path in files:
        if path.resolve() in CHECKERS:  # the tests that spell the patterns out
            continue
        if pattern.search(path.read_text(encoding="utf-8")):
            offenders.append(str(path.relative_to(REPO)))
    assert not offenders


def test_the_readme_links_every_docs_page():
    readme = (REPO / "README.md").read_text()
    linked = set(re.findall(r"\]\((docs/[^)#]+)", readme))
    pages = {str(p.relative_to(REPO)) for p in DOCS.glob("*.md")}
    assert pages <= linked, pages - linked
    assert len(readme.encode()) <= 10_000


def test_user_docs_carry_no_development_history():
    """No rounds and no issue numbers in README.md or docs/*.md (history: CHANGELOG.md; rationale: docs/design/).

    Word-level: "grounding" or "around" are words, and a "round trip" ticket is data."""
    history = re.compile(r"\brounds?\b(?![- ]trip)|\bissue [0-9]", flags=re.I)
    for page in [REPO / "README.md", *sorted(DOCS.glob("*.md"))]:
        for number, line in enumerate(page.read_text().splitlines(), 1):
            assert not history.search(line), f"{page.name}:{number}: {line.strip()}"


def test_the_label_record_example_is_a_label_record():
    from monitor.calibration.labels import LabelRecord

    (example,) = json_blocks(DOCS / "label-records.md")
    record = LabelRecord.model_validate(example)
    assert record.row.label == "pass" and record.row.scores == {"value_threshold": 0.41}


def _page_commands(path: Path, blocks: str = "sh|bash runnable") -> list[list[str]]:
    """The command lines of a page's shell blocks (continuations joined), as words, `.venv/bin/` dropped."""
    out = []
    for block in re.findall(rf"```(?:{blocks})\n(.*?)```", path.read_text(), flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line.split(" #", 1)[0])
            if words:
                out.append([w.removeprefix(".venv/bin/") for w in words])
    return out


def _flags(words: list[str]) -> dict[str, str]:
    return {w: words[i + 1] for i, w in enumerate(words[:-1]) if w.startswith("--")}


def test_the_otlp_page_runs_beside_the_tour_with_one_topic_per_encoding():
    """Each `aem run` of docs/otlp.md starts while the README's monitor runs (its own group, so its own state
    topic; its own metrics port; its own DLQ, which `aem redrive` does not send to `aem.traces`), and no topic
    the page uses gets two encodings (a protobuf reader dead-letters a JSON batch)."""
    readme = _page_commands(REPO / "README.md", "bash runnable")
    (tour,) = [_flags(w) for w in readme if w[:2] == ["aem", "run"] and "--help" not in w]
    tour_group, tour_port = tour.get("--group-id", "aem-monitor"), tour.get("--metrics-port", "9464")
    encodings: dict[str, set[str]] = {}
    runs = 0
    for words in _page_commands(DOCS / "otlp.md"):
        flags = _flags(words)
        if words[:2] == ["aem", "run"]:
            runs += 1
            assert flags.get("--group-id", tour_group) != tour_group, words
            assert flags.get("--metrics-port", "9464") not in (tour_port, "9464"), words
            assert flags.get("--dlq-topic", "aem.traces.dlq") != "aem.traces.dlq", words
            written = (flags.get("--topic", "aem.traces"), flags.get("--input-format", "aem"))
        elif words[:2] == ["aem", "replay"]:
            written = (flags.get("--topic", "aem.traces"), flags.get("--format", "aem"))
        elif words[0] == "python" and words[1].startswith("examples/otel_"):  # monitor.otel's defaults
            written = (flags.get("--topic", "otlp_spans"), flags.get("--encoding", "otlp_proto"))
        else:
            continue
        encodings.setdefault(written[0], set()).add(written[1])
    assert runs >= 3
    assert all(len(found) == 1 for found in encodings.values()), encodings
    run_groups = [_flags(w).get("--group-id") for w in _page_commands(DOCS / "otlp.md") if w[:2] == ["aem", "run"]]
    topics_of = {g: {_flags(w)["--topic"] for w in _page_commands(DOCS / "otlp.md") if _flags(w).get("--group-id") == g}
                 for g in run_groups}  # fmt: skip
    assert all(len(t) == 1 for t in topics_of.values()), topics_of  # a group reads one topic


def test_the_reply_decision_examples_show_the_default_thresholds():
    """docs/replies.md: the verifier's decision carries `pass_threshold`, the fused one `fused_threshold`."""
    defaults = ScoringConfig().verifier
    decisions = {d["check"]: d for d in json_blocks(DOCS / "replies.md") if "check" in d}
    assert decisions["verifier"]["threshold"] == defaults.pass_threshold
    assert decisions["fused"]["threshold"] == defaults.fused_threshold


def test_the_readme_says_how_long_the_install_and_the_tests_take_on_two_cores():
    readme = (REPO / "README.md").read_text()
    set_up = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    tests = readme.split("## Test\n", 1)[1].split("\n## ", 1)[0]
    assert re.search(r"2-core machine this takes about \d+ minutes", set_up), set_up
    assert re.search(r"about \d+ minutes on 2 cores", tests), tests
