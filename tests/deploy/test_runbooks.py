"""docs/operating.md runbooks are executable: per alert the PromQL to run and the commands to see
failing conversations; the DLQ re-drive is documented; one name for the state topic everywhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from .conftest import REPO_ROOT

OPERATING = REPO_ROOT / "docs" / "operating.md"
ALERTS = [
    r["alert"]
    for g in yaml.safe_load((REPO_ROOT / "deploy" / "prometheus" / "rules" / "alerts.yml").read_text())["groups"]
    for r in g["rules"]
    if "alert" in r
]


def sections(text: str) -> dict[str, str]:
    """Level-3 sections of the page by heading."""
    parts = re.split(r"^### (\w+)\s*$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def runbook_promql(text: str = "") -> list[str]:
    """Every PromQL expression of the ```promql blocks: a line that starts unindented begins one."""
    text = text or OPERATING.read_text()
    exprs: list[str] = []
    for block in re.findall(r"```promql\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            code = line.split("#", 1)[0].rstrip()
            if not code.strip():
                continue
            if line[0].isspace() and exprs:
                exprs[-1] += "\n" + code
            else:
                exprs.append(code)
    return exprs


@pytest.mark.parametrize("alert", ALERTS)
def test_every_alert_section_has_promql_and_commands(alert: str):
    section = sections(OPERATING.read_text())[alert]
    assert "```promql" in section, f"{alert}: no PromQL to run"
    assert re.search(r"aem (inspect|tail) ", section), f"{alert}: no aem inspect/tail command"
    if alert in {"AemInvalidEventsSpike", "AemMonitorDown", "AemMonitorStalled"}:
        assert "(#re-driving-the-dead-letter-topic)" in section, f"{alert}: no DLQ re-drive steps"


def test_the_on_call_path_and_the_dlq_redrive_are_documented():
    text = OPERATING.read_text()
    for needle in [
        "api/v1/query_exemplars",
        "aem inspect <conversation_id>",
        "aem tail aem.verdicts --conversation <conversation_id>",
        "kafka-console-consumer.sh",  # the fallback without the aem topic tools
        "aem redrive --dry-run",
        "aem redrive --bootstrap-servers",
        "--enable-feature=exemplar-storage",
        "aem:alert_param:runbook_url",
    ]:
        assert needle in text, needle


def test_runbook_promql_is_extracted():
    exprs = runbook_promql()
    assert len(exprs) >= 20
    assert any(e.startswith("sort_desc(") and e.count("\n") >= 3 for e in exprs)


def test_one_name_for_the_state_topic():
    docs = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
    for path in docs:
        for m in re.finditer(r"aem\.state\S*", Path(path).read_text()):
            name = m.group(0).rstrip("`.,;:)")
            assert name in {"aem.state.<group_id>", "aem.state.aem-monitor"}, f"{path.name}: {m.group(0)}"
