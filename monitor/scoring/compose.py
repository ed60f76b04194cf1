"""Composition of turn verdicts into a dialog result (docs/taxonomy.md)."""

from __future__ import annotations

from collections.abc import Sequence

from monitor.models.verdict import DialogResult
from monitor.models.vocabulary import UNKNOWN_RELEASE
from monitor.scoring.config import CompositionConfig
from monitor.scoring.types import CASCADING, ROOT_CAUSE, DialogMeta, ScoredTurn
from monitor.scoring.verdicts import to_verdict

_SUB_METRICS = ("structural", "completeness", "truthfulness")


def _weight(turn: ScoredTurn, weights: dict[str, float]) -> float:
    keys = ["action" if turn.turn == "Tool" else "response"]
    if turn.tool_id is not None:
        keys.append(f"tool:{turn.tool_id}")
    keys.extend(f"tag:{tag}" for tag in turn.tags)
    found = [weights[k] for k in keys if k in weights]
    return max(found) if found else 1.0


def success_rate(turns: Sequence[ScoredTurn], config: CompositionConfig) -> float | None:
    scored = [t for t in turns if t.check.success is not None]
    if not scored:
        return None
    if config.kind == "weighted":
        total = sum(_weight(t, config.weights) for t in scored)
        passed = sum(_weight(t, config.weights) for t in scored if t.check.success)
        return passed / total if total else None
    return sum(1 for t in scored if t.check.success) / len(scored)


def test_pass(turns: Sequence[ScoredTurn], rate: float | None, config: CompositionConfig) -> bool | None:
    """Whether the dialog passes; None when it has turns but none was scored (never false without a failure)."""
    if not turns:
        return True  # nothing expected and nothing done: no failure to report (success_rate stays None)
    if rate is None:
        return None
    if config.kind == "gating":
        critical = set(config.critical_tags)
        if any(t.failed and critical.intersection(t.tags) for t in turns):
            return False
    if config.kind == "per_sub_metric":
        scored = [t for t in turns if t.check.success is not None]
        for sub_metric in _SUB_METRICS:
            bar = config.sub_metric_bars.get(sub_metric)  # type: ignore[call-overload]
            if bar is None or not scored:
                continue
            ok = sum(1 for t in scored if t.check.sub_metric != sub_metric or not t.failed) / len(scored)
            if ok < bar:
                return False
        return True
    return rate >= config.pass_bar - 1e-9


def compose(meta: DialogMeta, mode: str, turns: Sequence[ScoredTurn], config: CompositionConfig) -> DialogResult:
    rate = success_rate(turns, config)
    failures = [t for t in turns if t.failed]
    roots = [t for t in failures if t.attribution == ROOT_CAUSE]
    numbered = [t.turn_no for t in failures if t.turn_no is not None]
    return DialogResult(
        dialog_id=meta.dialog_id,
        release=meta.release or UNKNOWN_RELEASE,
        agent=meta.agent,
        mode=mode,
        success_rate=None if rate is None else round(rate, 6),
        test_pass=test_pass(turns, rate, config),
        first_failure_turn=min(numbered) if numbered else None,
        root_cause=roots[0].check.failure_reason if roots else None,
        root_cause_count=len(roots),
        cascading_count=sum(1 for t in failures if t.attribution == CASCADING),
        total_failures=len(failures),
        unscored_count=sum(1 for t in turns if t.check.success is None),
        turns=[to_verdict(t) for t in turns],
    )
