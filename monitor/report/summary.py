"""The `--format json` summary: totals broken down by release, sub-metric, reason, attribution, chain."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from monitor.models.verdict import DialogResult
from monitor.models.vocabulary import UNKNOWN_RELEASE


def _rate(passed: int, scored: int) -> float | None:
    return round(passed / scored, 6) if scored else None


def _totals(results: Sequence[DialogResult]) -> dict[str, Any]:
    turns = [t for r in results for t in r.turns]
    scored = [t for t in turns if t.success is not None]
    passed = sum(1 for t in scored if t.success)
    return {
        "dialogs": len(results),
        "dialogs_passed": sum(1 for r in results if r.test_pass),
        "turns": len(turns),
        "scored_turns": len(scored),
        "passed_turns": passed,
        "unscored_turns": len(turns) - len(scored),
        "success_rate": _rate(passed, len(scored)),
        "failures": len(scored) - passed,
    }


def summarize(results: Sequence[DialogResult]) -> dict[str, Any]:
    """Aggregate dialog results the way release managers read them."""
    by_release: dict[str, list[DialogResult]] = defaultdict(list)
    for result in results:
        by_release[result.release or UNKNOWN_RELEASE].append(result)
    failures = [t for r in results for t in r.turns if t.success is False]
    chains: dict[str, Counter[str]] = defaultdict(Counter)
    for turn in (t for r in results for t in r.turns):
        if turn.chain_length is not None and turn.success is not None:
            chains[turn.chain_length]["turns"] += 1
            chains[turn.chain_length]["passed"] += int(bool(turn.success))
    return {
        "overall": _totals(results),
        "by_release": {name: _totals(group) for name, group in sorted(by_release.items())},
        "by_sub_metric": dict(Counter(t.sub_metric or "none" for t in failures).most_common()),
        "by_failure_reason": dict(Counter(t.failure_reason or "none" for t in failures).most_common()),
        "by_attribution": dict(Counter(t.attribution or "none" for t in failures).most_common()),
        "by_chain_length": {
            bucket: {
                "turns": c["turns"],
                "passed": c["passed"],
                "success_rate": _rate(c["passed"], c["turns"]),
            }
            for bucket, c in sorted(chains.items())
        },
    }
