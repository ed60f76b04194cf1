"""The Prometheus sink on a registry of its own: names, labels, release expiry."""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from monitor.models.verdict import DialogResult, TurnVerdict
from monitor.stream.emissions import Emission, Outcome
from monitor.stream.metrics import VerdictMetrics
from monitor.stream.telemetry import PipelineTelemetry
from tests.stream.helpers import FakeClock


def verdict(**kw) -> TurnVerdict:
    base = {
        "turn_no": 2,
        "turn": "Tool",
        "success": False,
        "failure_reason": "prior_action_failed",
        "sub_metric": "truthfulness",
        "score": 0.2,
        "attribution": "cascading",
        "chain_length": "3+",
    }
    return TurnVerdict(**{**base, **kw})


def test_turn_labels_follow_design():
    metrics = VerdictMetrics()
    metrics.record_turn(verdict(), "a", "r1", "reference")
    metrics.record_turn(
        verdict(
            turn="Agent",
            success=True,
            failure_reason=None,
            sub_metric=None,
            attribution=None,
            chain_length=None,
            score=0.9,
        ),
        "a",
        "r1",
        "judge",
    )
    get = metrics.registry.get_sample_value
    assert (
        get(
            "aem_turns_total",
            {"agent": "a", "release": "r1", "mode": "reference", "turn_type": "action", "outcome": "fail"},
        )
        == 1
    )
    assert (
        get(
            "aem_turns_total",
            {"agent": "a", "release": "r1", "mode": "judge", "turn_type": "response", "outcome": "pass"},
        )
        == 1
    )
    assert (
        get(
            "aem_turn_failures_total",
            {
                "agent": "a",
                "release": "r1",
                "mode": "reference",
                "turn_type": "action",
                "sub_metric": "truthfulness",
                "reason": "prior_action_failed",
                "attribution": "cascading",
            },
        )
        == 1
    )
    assert get("aem_chain_turns_total", {"agent": "a", "release": "r1", "chain_length": "3+", "outcome": "fail"}) == 1
    assert get("aem_turn_score_count", {"agent": "a", "release": "r1", "turn_type": "action"}) == 1
    assert get("aem_events_total", {"outcome": "scored"}) is None  # the pipeline's telemetry counts events


def test_unscored_turns_are_counted_not_passed():
    metrics = VerdictMetrics()
    metrics.record_turn(
        verdict(success=None, failure_reason="unscored", sub_metric=None, score=None), "a", "r", "judge"
    )
    assert (
        metrics.registry.get_sample_value(
            "aem_turns_total", {"agent": "a", "release": "r", "mode": "judge", "turn_type": "action", "outcome": "pass"}
        )
        is None
    )


def test_unscored_turns_are_counted_by_reason_from_zero():
    metrics = VerdictMetrics()
    get = metrics.registry.get_sample_value
    # every reason is exported at 0 before the first one, so an alert on its increase sees it
    assert get("aem_turns_unscored_total", {"reason": "unknown_reference"}) == 0
    for reason in ("unknown_reference", "unknown_reference", "too_large"):
        metrics.record_turn(
            verdict(success=None, failure_reason=reason, sub_metric=None, score=None), "a", "r", "reference"
        )
    assert get("aem_turns_unscored_total", {"reason": "unknown_reference"}) == 2
    assert get("aem_turns_unscored_total", {"reason": "too_large"}) == 1
    assert get("aem_turns_unscored_total", {"reason": "unscored"}) == 0


def test_first_seen_is_the_first_event_time_and_long_gone_releases_expire():
    clock = FakeClock()
    metrics = VerdictMetrics(release_ttl_seconds=3600, clock=clock)
    metrics.see_release("a", "old", received=100.0)
    metrics.see_release("a", "old", received=500.0)
    metrics.record_turn(verdict(), "a", "old", "reference")
    metrics.record_dialog(
        DialogResult(
            dialog_id="d",
            release="old",
            agent="a",
            success_rate=0.2,
            test_pass=False,
            first_failure_turn=2,
            root_cause=None,
            root_cause_count=0,
            cascading_count=1,
            total_failures=1,
            turns=[],
        )
    )
    get = metrics.registry.get_sample_value
    assert get("aem_release_first_seen_timestamp_seconds", {"agent": "a", "release": "old"}) == 100.0
    clock.advance(1800)
    metrics.see_release("a", "new", received=2000.0)
    assert metrics.expire_releases() == []
    clock.advance(2000)
    assert metrics.expire_releases() == [("a", "old")]
    assert get("aem_release_first_seen_timestamp_seconds", {"agent": "a", "release": "old"}) is None
    assert (
        get(
            "aem_turns_total",
            {"agent": "a", "release": "old", "mode": "reference", "turn_type": "action", "outcome": "fail"},
        )
        is None
    )
    assert get("aem_dialogs_total", {"agent": "a", "release": "old", "mode": "reference", "outcome": "fail"}) is None
    assert get("aem_release_first_seen_timestamp_seconds", {"agent": "a", "release": "new"}) == 2000.0


def test_a_release_seen_again_after_expiry_is_counted_again():
    """The cached children of an expired release's series are not reused: its turns count from zero, visibly."""
    clock = FakeClock()
    metrics = VerdictMetrics(release_ttl_seconds=3600, clock=clock)
    labels = {"agent": "a", "release": "r", "mode": "reference", "turn_type": "action", "outcome": "pass"}
    passing = verdict(success=True, failure_reason=None, sub_metric=None, attribution=None, score=1.0)
    metrics.see_release("a", "r", received=100.0)
    metrics.record_turn(passing, "a", "r", "reference")
    metrics.record_turn(passing, "a", "r", "reference")
    get = metrics.registry.get_sample_value
    assert get("aem_turns_total", labels) == 2
    clock.advance(4000)
    assert metrics.expire_releases() == [("a", "r")]
    metrics.see_release("a", "r", received=5000.0)
    metrics.record_turn(passing, "a", "r", "reference")
    assert get("aem_turns_total", labels) == 1
    assert get("aem_turn_score_count", {"agent": "a", "release": "r", "turn_type": "action"}) == 1


def test_a_chain_counts_each_scored_member_once_by_outcome():
    metrics = VerdictMetrics()
    metrics.record_chain("a", "r", "3+", [True, False, True, None])
    get = metrics.registry.get_sample_value
    base = {"agent": "a", "release": "r", "chain_length": "3+"}
    assert get("aem_chain_turns_total", {**base, "outcome": "pass"}) == 2
    assert get("aem_chain_turns_total", {**base, "outcome": "fail"}) == 1


def test_telemetry_counts_each_turn_verdicts_event_once_by_outcome():
    registry = CollectorRegistry()
    telemetry = PipelineTelemetry(registry, clock=lambda: 110.0)
    scored = Emission("turn", "c", "a", "r", "reference", verdict=verdict(), received=100.0)
    unscored = Emission(
        "turn", "c", "a", "r", "reference",
        verdict=verdict(success=None, failure_reason="too_large", sub_metric=None, score=None),
    )
    chain = Emission("chain", "c", "a", "r", "reference")
    telemetry.observe(Outcome(emissions=[scored, unscored, chain], evicted=2, too_large=["max_numbers"]))
    telemetry.record_event("duplicate")
    get = registry.get_sample_value
    assert [get("aem_events_total", {"outcome": o}) for o in ("scored", "unscored", "duplicate", "late")] == [
        1, 1, 1, 0
    ]
    assert get("aem_event_latency_seconds_count") == 1 and get("aem_event_latency_seconds_sum") == 10.0
    assert get("aem_evictions_total") == 2
    assert get("aem_turns_too_large_total", {"limit": "max_numbers"}) == 1


def test_a_dialog_without_a_scored_turn_is_counted_unscored_not_failed():
    metrics = VerdictMetrics()
    metrics.record_dialog(
        DialogResult(
            dialog_id="d", release="r", agent="a", success_rate=None, test_pass=None, first_failure_turn=None,
            root_cause=None, root_cause_count=0, cascading_count=0, total_failures=0, unscored_count=2, turns=[],
        )
    )  # fmt: skip
    get = metrics.registry.get_sample_value
    labels = {"agent": "a", "release": "r", "mode": "reference"}
    assert get("aem_dialogs_total", {**labels, "outcome": "unscored"}) == 1
    assert get("aem_dialogs_total", {**labels, "outcome": "fail"}) is None
