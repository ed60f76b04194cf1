"""The generated tables of the docs, each from its one source: the metric definitions, the alert rule files and
the settings model.

    .venv/bin/python -m monitor.docs_tables           # rewrite the tables in docs/ (between the markers)
    .venv/bin/python -m monitor.docs_tables --check   # exit 1 naming every table that is out of date

A generated table sits between `<!-- generated: NAME -->` and `<!-- end generated: NAME -->` in its page.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from prometheus_client import CollectorRegistry
from prometheus_client.metrics import MetricWrapperBase
from pydantic import BaseModel

from monitor.cache import CacheCollector, CacheStats
from monitor.calibration.overlay import AgreementFigure, Calibration
from monitor.cli import build_parser
from monitor.cluster import KafkaSecurity
from monitor.judge.llm import JudgeMetrics
from monitor.stream.calibration import CalibrationMetrics
from monitor.stream.metrics import VerdictMetrics
from monitor.stream.otlp import OtlpInput
from monitor.stream.settings import MonitorSettings
from monitor.stream.telemetry import PipelineTelemetry

REPO = Path(__file__).resolve().parents[1]
RULES_DIR = REPO / "deploy" / "prometheus" / "rules"
DOCS = REPO / "docs"
SECTIONS = {"scoring": "docs/embeddings.md", "judge": "docs/judge.md", "otlp": "docs/otlp.md"}


@dataclass(frozen=True)
class MetricRow:
    name: str
    type: str
    labels: tuple[str, ...]
    help: str


class _NoCaches:
    """One stand-in cache, so the cache collector reports its label names."""

    def stats(self) -> CacheStats:
        return CacheStats("embeddings", 0, 0, 0, 0)


def _wrapper_rows(metric: MetricWrapperBase) -> Iterator[MetricRow]:
    labels = tuple(metric._labelnames)  # prometheus_client keeps the declared label names only here
    for family in metric.describe():
        name = f"{family.name}_total" if family.type == "counter" else family.name
        yield MetricRow(name, family.type, labels, family.documentation)


def _calibration_rows() -> list[MetricRow]:
    """The metrics `aem run` exports when started with a calibration (a sample one, to see them all)."""
    registry = CollectorRegistry()
    figure = AgreementFigure(turn_type="action", kind="kappa", value=1.0, low=1.0, high=1.0, labels=1)
    sample = Calibration(id="x", created="", labels=1, agreement=[figure], low_confidence_share=0.1)
    CalibrationMetrics(registry, sample)
    rows = []
    for family in registry.collect():
        labels = tuple(k for k in (family.samples[0].labels if family.samples else {}) if k not in ("id", "created"))
        labels = ("id", "created") if family.type == "info" else labels
        name = f"{family.name}_total" if family.type == "counter" else family.name
        kind = "gauge" if family.type == "info" else family.type
        rows.append(MetricRow(f"{name}_info" if family.type == "info" else name, kind, labels, family.documentation))
    return rows


def metric_rows() -> list[MetricRow]:
    """Every metric `aem run` can export, from the classes that define them."""
    registry = CollectorRegistry()
    owners: list[Any] = [VerdictMetrics(registry), PipelineTelemetry(registry), JudgeMetrics(registry)]
    rows = [row for owner in owners for value in vars(owner).values() if isinstance(value, MetricWrapperBase)
            for row in _wrapper_rows(value)]
    otlp = OtlpInput("otlp_json", registry=registry)
    rows += [*_wrapper_rows(otlp.spans), *_wrapper_rows(otlp.skipped)]
    rows += _calibration_rows()
    for family in CacheCollector(lambda: [_NoCaches()]).collect():
        labels = tuple(family.samples[0].labels) if family.samples else ()
        name = f"{family.name}_total" if family.type == "counter" else family.name
        rows.append(MetricRow(name, family.type, labels, family.documentation))
    return rows


def metrics_table() -> str:
    lines = ["| metric | type | labels | what |", "|---|---|---|---|"]
    for row in metric_rows():
        labels = ", ".join(row.labels) or "—"
        lines.append(f"| `{row.name}` | {row.type} | {labels} | {row.help.rstrip('.')} |")
    return "\n".join(lines)


_TEMPLATE = re.compile(r"\{\{\s*\$(labels\.(\w+)|value)[^}]*\}\}")


def _plain(text: str) -> str:
    """An annotation without Prometheus templates: `{{ $labels.agent }}` reads `<agent>`."""
    text = _TEMPLATE.sub(lambda m: f"<{m.group(2) or 'value'}>", text)
    return " ".join(text.split()).replace("|", "\\|")


def alert_rules() -> list[dict[str, Any]]:
    rules = []
    for path in sorted(RULES_DIR.glob("*.yml")):
        for group in yaml.safe_load(path.read_text(encoding="utf-8"))["groups"]:
            rules += [rule for rule in group["rules"] if "alert" in rule]
    return rules


def alerts_table() -> str:
    lines = ["| alert | severity | for | fires when |", "|---|---|---|---|"]
    for rule in alert_rules():
        severity = rule.get("labels", {}).get("severity", "—")
        description = _plain(rule.get("annotations", {}).get("description", ""))
        anchor = rule["alert"].lower()
        lines.append(
            f"| [`{rule['alert']}`](operating.md#{anchor}) | {severity} | {rule.get('for', '0s')} | {description} |"
        )
    return "\n".join(lines)


def _run_flags() -> dict[str, str]:
    """`aem run`'s flags by the setting they set (argparse dest)."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    run = sub.choices["run"]
    return {a.dest: a.option_strings[-1] for a in run._actions if a.option_strings and a.dest != "help"}


def _default(model: type[BaseModel], name: str) -> str:
    field = model.model_fields[name]
    value = field.get_default(call_default_factory=True)
    if isinstance(value, BaseModel):
        return "(section)"
    if value is None or value == []:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return f"`{getattr(value, 'value', value)}`"


def settings_rows() -> Iterator[tuple[str, str, str, str]]:
    flags = _run_flags()
    for name in MonitorSettings.model_fields:
        if name == "kafka":
            for sub in KafkaSecurity.model_fields:
                env = f"AEM_KAFKA_{sub.upper()}"
                yield f"kafka.{sub}", _default(KafkaSecurity, sub), env, flags.get(sub, "—")
        elif name in SECTIONS:
            yield name, f"section, see [{Path(SECTIONS[name]).name}]", f"`{name}:` in the config file", "—"
        else:
            yield name, _default(MonitorSettings, name), f"AEM_{name.upper()}", flags.get(name, "—")


def settings_table() -> str:
    lines = ["| setting | default | environment | `aem run` flag |", "|---|---|---|---|"]
    for name, default, env, flag in settings_rows():
        env_cell = env if env.startswith("`") else f"`{env}`"
        flag_cell = flag if flag == "—" else f"`{flag}`"
        default = re.sub(r"\[(\w+\.md)\]", lambda m: f"[{m.group(1)}]({_link(m.group(1))})", default)
        lines.append(f"| `{name}` | {default} | {env_cell} | {flag_cell} |")
    return "\n".join(lines)


def _link(page: str) -> str:
    return "../README.md" if page == "README.md" else page


TABLES: dict[str, tuple[Path, Callable[[], str]]] = {
    "metrics": (DOCS / "metrics.md", metrics_table),
    "alerts": (DOCS / "operating.md", alerts_table),
    "settings": (DOCS / "operating.md", settings_table),
}


def _block(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- generated: {name} -->\n)(.*?)(<!-- end generated: {name} -->)", re.S)


def current(name: str) -> str | None:
    """The table as the page has it now, or None when the page has no markers for it."""
    path, _ = TABLES[name]
    found = _block(name).search(path.read_text(encoding="utf-8"))
    return found.group(2).strip() if found else None


def stale() -> list[str]:
    return [name for name, (_, make) in TABLES.items() if current(name) != make()]


def _filled(table: str) -> Callable[[re.Match[str]], str]:
    """The replacement of a marked block: its markers around ``table``."""
    return lambda found: found.group(1) + table + "\n" + found.group(3)


def regenerate() -> list[str]:
    changed = []
    for name, (path, make) in TABLES.items():
        text = path.read_text(encoding="utf-8")
        block = _block(name)
        if not block.search(text):
            raise SystemExit(f"{path.relative_to(REPO)}: no <!-- generated: {name} --> markers")
        new = block.sub(_filled(make()), text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(name)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m monitor.docs_tables", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say which tables are out of date (exit 1)")
    args = parser.parse_args(argv)
    if args.check:
        out_of_date = stale()
        for name in out_of_date:
            sys.stderr.write(f"{TABLES[name][0].relative_to(REPO)}: the {name} table is out of date\n")
        return 1 if out_of_date else 0
    for name in regenerate():
        sys.stdout.write(f"{TABLES[name][0].relative_to(REPO)}: {name} table rewritten\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
