"""The fast-alert variant of the shipped Prometheus rules: same expressions, every window in minutes.

`aem demo --with-prometheus --fast-alerts` loads these instead of `deploy/prometheus/rules/*.yml`, so the
release-regression alert can fire within minutes of the demo's traffic instead of after hours of data.
The files are generated from the real ones at start-up, never copied by hand: each duration in a range
selector, an `offset` or a rule's `for` is divided by 60 (an hour becomes a minute, a day 24 minutes);
range selectors keep at least `MIN_RANGE_S` so they always hold two scrapes; the durations annotations
speak of ("the last 10 minutes", "the last hour") are divided alike. Record and alert names, labels and
thresholds stay as they are.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

SCALE = 60
MIN_RANGE_S = 30
_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31536000}
_DURATION = r"(?:\d+(?:ms|[smhdwy]))+"
_RANGE = re.compile(rf"\[({_DURATION})(:{_DURATION})?\]")
_OFFSET = re.compile(rf"\boffset\s+({_DURATION})")
_PART = re.compile(r"(\d+)(ms|[smhdwy])")
_SPOKEN = re.compile(r"\b(last )?(\d+ |an? )?(second|minute|hour|day|week)s?\b")
_SPOKEN_S = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 604800}


def seconds(duration: str) -> float:
    """A Prometheus duration (`1h`, `1h30m`, `500ms`) in seconds."""
    return sum(int(n) * _UNITS[unit] for n, unit in _PART.findall(duration))


def duration(secs: float) -> str:
    """Seconds as a Prometheus duration, whole seconds (`90` -> `1m30s`, `0` -> `0s`)."""
    whole = max(0, round(secs))
    if whole == 0:
        return "0s"
    parts = []
    for unit, size in (("h", 3600), ("m", 60), ("s", 1)):
        count, whole = divmod(whole, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts)


def shorten(value: str, floor: float = 0) -> str:
    return duration(max(seconds(value) / SCALE, floor))


def fast_expr(expr: str) -> str:
    """The same PromQL expression with its windows and offsets divided by 60."""

    def window(found: re.Match[str]) -> str:
        step = found.group(2)
        return f"[{shorten(found.group(1), MIN_RANGE_S)}{':' + shorten(step[1:], 1) if step else ''}]"

    expr = _RANGE.sub(window, expr)
    return _OFFSET.sub(lambda found: f"offset {shorten(found.group(1), 1)}", expr)


def spoken(secs: float) -> str:
    """Seconds in words, in the largest unit that divides them (`600` -> `10 minutes`, `60` -> `1 minute`)."""
    whole = max(1, round(secs))
    unit = next(u for u in ("week", "day", "hour", "minute", "second") if whole % _SPOKEN_S[u] == 0)
    count = whole // _SPOKEN_S[unit]
    return f"{count} {unit}{'s' if count != 1 else ''}"


def fast_text(text: str) -> str:
    """An annotation with the durations it speaks of divided by 60, a window ("the last 10 minutes") at least
    `MIN_RANGE_S` as its range selector is: `the last 30 seconds`, `the last hour` -> `the last minute`."""

    def scaled(found: re.Match[str]) -> str:
        last, count, unit = found.group(1) or "", (found.group(2) or "").strip(), found.group(3)
        if not (last or count):
            return found.group(0)  # a unit word with no amount ("per hour")
        secs = (int(count) if count.isdigit() else 1) * _SPOKEN_S[unit] / SCALE
        words = spoken(max(secs, MIN_RANGE_S) if last else secs)
        return last + (words.removeprefix("1 ") if last and not count else words)

    return _SPOKEN.sub(scaled, text)


def fast_rule(rule: dict[str, Any]) -> dict[str, Any]:
    out = {**rule, "expr": fast_expr(str(rule["expr"]))}
    if "annotations" in rule:
        out["annotations"] = {k: fast_text(v) if isinstance(v, str) else v for k, v in rule["annotations"].items()}
    if "for" in rule:
        out["for"] = shorten(str(rule["for"]))
    return out


def fast_rules(document: dict[str, Any]) -> dict[str, Any]:
    """A rule file's content (`{"groups": [...]}`) with every rule's windows shortened."""
    groups = [{**group, "rules": [fast_rule(rule) for rule in group["rules"]]} for group in document["groups"]]
    return {**document, "groups": groups}


def write_fast_rules(rules_dir: Path, out_dir: Path) -> list[Path]:
    """Write the fast variant of every `*.yml` rule file of ``rules_dir`` into ``out_dir``; returns the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for source in sorted(rules_dir.glob("*.yml")):
        document = yaml.safe_load(source.read_text(encoding="utf-8"))
        target = out_dir / f"fast-{source.name}"
        header = f"# Generated from {source.name} by monitor.demo.fast_rules: every window divided by {SCALE}.\n"
        target.write_text(header + yaml.safe_dump(fast_rules(document), sort_keys=False), encoding="utf-8")
        written.append(target)
    if not written:
        raise FileNotFoundError(f"no *.yml rule files in {rules_dir}")
    return written
