"""The docs are the repo's own contract: their examples parse as what they claim, their links stay inside."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from monitor.models.verdict import TurnVerdict
from monitor.stream.events import parse_event
from monitor.stream.metrics import MonitorMetrics

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
PAGES = [*sorted(DOCS.glob("*.md")), REPO / "README.md"]


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


def test_the_metric_page_lists_what_the_monitor_exports():
    documented = set(re.findall(r"^\| `(aem_\w+)` \|", (DOCS / "metrics.md").read_text(), flags=re.M))
    exported = {
        f"{m.name}_total" if m.type == "counter" else m.name
        for m in MonitorMetrics().registry.collect()
        if m.name.startswith("aem_")
    }
    assert exported <= documented, exported - documented


def test_nothing_depends_on_a_path_outside_the_repo():
    """A clone has no ../shared: no code default, test or benchmark may point there.

    benchmarks/*accuracy*.py are left out: their --data is required and their messages may name the dev
    data folder as an example."""
    pattern = re.compile(r"/work/shared|\.\./shared|parent\s*/\s*\"shared\"")
    offenders = []
    for folder in ("monitor", "tests", "benchmarks", "deploy"):
        for path in (REPO / folder).rglob("*.py"):
            if "accuracy" in path.name or path == Path(__file__).resolve():
                continue
            if pattern.search(path.read_text(encoding="utf-8")):
                offenders.append(str(path.relative_to(REPO)))
    assert not offenders


def test_the_label_record_example_is_a_label_record():
    from monitor.calibration.labels import LabelRecord

    (example,) = json_blocks(DOCS / "label-records.md")
    record = LabelRecord.model_validate(example)
    assert record.row.label == "pass" and record.row.scores == {"value_threshold": 0.41}
