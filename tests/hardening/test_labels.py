"""Bounded labels: charset, length, a cap on (agent, release) pairs; trusted timestamps; /metrics size."""

from __future__ import annotations

import urllib.request

import pytest
from prometheus_client import CollectorRegistry
from structlog.testing import capture_logs

from monitor.models.verdict import TurnVerdict
from monitor.stream.events import received
from monitor.stream.health import Health, HealthServer
from monitor.stream.labels import OTHER, LabelGuard, clean_label
from monitor.stream.metrics import VerdictMetrics
from monitor.stream.settings import MonitorSettings

NOW = 1_800_000_000.0


def test_labels_keep_to_the_charset_and_length() -> None:
    assert clean_label("support-bot", 64) == "support-bot"
    assert clean_label("v1.2.3+build/7@eu:1", 64) == "v1.2.3+build/7@eu:1"
    assert clean_label('rel"\n{bad}=label é', 64) == "rel___bad__label__"
    assert clean_label("x" * 10_000, 64) == "x" * 64
    assert clean_label("", 64) == clean_label(None, 64) == "unknown"


def test_pairs_beyond_the_cap_go_to_other_counted_and_logged_once() -> None:
    overflows: list[int] = []
    guard = LabelGuard(max_chars=32, max_pairs=3, on_overflow=lambda: overflows.append(1))
    assert [guard.admit("bot", f"r{i}") for i in range(3)] == [("bot", "r0"), ("bot", "r1"), ("bot", "r2")]
    with capture_logs() as logs:
        assert guard.admit("bot", "r3") == ("bot", OTHER)  # a known agent keeps its name
        assert guard.admit("new-agent", "r9") == (OTHER, OTHER)  # a new agent does not
        assert guard.admit("bot", "r4", count=False) == ("bot", OTHER)
    assert guard.admit("bot", "r1") == ("bot", "r1")  # admitted pairs stay
    assert len(overflows) == 2 and guard.overflowed == 2
    assert [e["event"] for e in logs] == ["label_pairs_capped"]
    guard.forget("bot", "r0")  # an expired release frees its slot
    assert guard.admit("bot", "r5") == ("bot", "r5")


def test_a_known_raw_pair_is_remembered_but_overflows_still_count_each_time() -> None:
    overflows: list[int] = []
    guard = LabelGuard(max_chars=8, max_pairs=2, on_overflow=lambda: overflows.append(1))
    assert guard.admit("bot", "rel ease") == ("bot", "rel_ease")
    assert guard.admit("bot", "rel ease") == ("bot", "rel_ease")  # the remembered answer
    assert guard.admit("bot", "rel_ease") == ("bot", "rel_ease")  # another spelling of the same labels
    assert len(guard) == 1
    assert guard.admit("bot", "r2") == ("bot", "r2")
    for _ in range(3):
        assert guard.admit("bot", "r3") == ("bot", OTHER)
    assert len(overflows) == 3  # beyond the cap nothing is remembered: every event counts
    guard.forget("bot", "rel_ease")
    assert guard.admit("bot", "r3") == ("bot", "r3")  # the freed slot goes to the next new pair
    assert guard.admit("bot", "rel ease") == ("bot", OTHER)  # no stale memory of the forgotten pair


def test_received_is_the_broker_time_clamped() -> None:
    assert received(int((NOW - 2) * 1000), 300, NOW) == pytest.approx(NOW - 2)
    assert received(253402300799000, 300, NOW) == NOW + 300  # year 9999
    assert received(1000, 300, NOW) == NOW - 300  # 1970
    assert received(-1, 300, NOW) == NOW  # no timestamp at all


def verdict(no: int, success: bool) -> TurnVerdict:
    return TurnVerdict.model_validate(
        {"turn_no": no, "turn": "Tool", "success": success, "score": 1.0 if success else 0.2,
         "failure_reason": None if success else "inconsistent_parameter_values",
         "sub_metric": None if success else "truthfulness", "chain_length": "1"}
    )


def test_twenty_thousand_releases_leave_metrics_under_one_megabyte() -> None:
    registry = CollectorRegistry()
    settings = MonitorSettings()
    metrics = VerdictMetrics(registry, labels=LabelGuard(settings.max_label_chars, settings.max_release_pairs))
    cap = settings.max_release_pairs
    server = HealthServer(registry, Health(), host="127.0.0.1", port=0).start()
    try:
        for i in range(20_000):
            release = f"release-{i:05d}-" + "z" * 200  # long values are cut too
            metrics.see_release("support-bot", release, NOW)
            metrics.record_turn(verdict(1, True), "support-bot", release, "reference")
            metrics.record_turn(verdict(2, False), "support-bot", release, "reference")
        body = urllib.request.urlopen(f"http://127.0.0.1:{server.port}/metrics", timeout=30).read()
    finally:
        server.shutdown()
    print(f"/metrics after 20,000 releases (cap {cap}): {len(body)} bytes")
    assert len(body) < 1_000_000, f"/metrics is {len(body)} bytes"
    assert registry.get_sample_value("aem_label_overflow_total") == 20_000 - cap
    other = {"agent": "support-bot", "release": OTHER, "mode": "reference", "turn_type": "action", "outcome": "pass"}
    assert registry.get_sample_value("aem_turns_total", other) == 20_000 - cap  # nothing is lost, only folded
    first_seen = [line for line in body.decode().splitlines() if line.startswith("aem_release_first_seen")]
    assert len(first_seen) == cap and not any(f'release="{OTHER}"' in line for line in first_seen)


def test_the_live_stats_are_bounded_like_the_labels() -> None:
    from monitor.stream.emissions import Emission
    from monitor.stream.sinks import RunStats, StatsSink

    stats = RunStats()
    sink = StatsSink(stats, LabelGuard(max_chars=16, max_pairs=5))
    for i in range(20_000):
        sink.add(Emission("turn", f"c{i}", "bot", f"release-{i}", "reference", verdict=verdict(1, i % 2 == 0)))
    sink.add(Emission("turn", "x", "new-agent", "r", "reference", verdict=verdict(1, True)))
    sink.add(Emission("turn", "y", "bot", 'rel"\n{bad}' + "x" * 100, "reference", verdict=verdict(1, False)))
    assert len(stats.by_release) == 7  # five pairs, ("bot", "other"), ("other", "other")
    assert stats.by_release[("bot", OTHER)] == [9_997, 19_996]  # nothing is lost, only pooled
    assert stats.by_release[(OTHER, OTHER)] == [1, 1]
    assert sum(total for _, total in stats.by_release.values()) == stats.verdicts == 20_002
