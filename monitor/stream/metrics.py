"""The verdict metrics of docs/metrics.md (turns, failures, chains, dialogs, root causes), written by the Prometheus
sink only; the pipeline's own health is `telemetry.py`. One registry per monitor (one per test)."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from monitor.models.verdict import DialogResult, TurnVerdict
from monitor.models.vocabulary import FailureReason
from monitor.stream.labels import LabelGuard

SCORE_BUCKETS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)
UNSCORED_REASONS = (FailureReason.UNSCORED, FailureReason.TOO_LARGE, FailureReason.UNKNOWN_REFERENCE)
EXEMPLAR_MAX_CHARS = 128  # OpenMetrics: label names and values of one exemplar, together
ROOT_CAUSE_FIELDS_PER_RELEASE = 50  # distinct `field` values per (agent, release); the rest count as "other"


def failing_turn_exemplar(conversation_id: str | None, turn_no: int | None) -> dict[str, str] | None:
    """The exemplar labels naming one failing turn, or None when there is no id or it is too long to fit."""
    if not conversation_id:
        return None
    labels = {"conversation_id": conversation_id, "turn_no": "" if turn_no is None else str(turn_no)}
    if sum(len(k) + len(v) for k, v in labels.items()) > EXEMPLAR_MAX_CHARS:
        return None
    return labels


class VerdictMetrics:
    """Counts verdicts, chains and dialogs by (agent, release); expires label sets of long-gone releases."""

    def __init__(
        self,
        registry: CollectorRegistry | None = None,
        release_ttl_seconds: float = 7 * 24 * 3600,
        clock: Callable[[], float] = time.time,
        labels: LabelGuard | None = None,
    ) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        self.release_ttl_seconds = release_ttl_seconds
        self.clock = clock
        r = self.registry
        self.turns = Counter(
            "aem_turns", "Scored turns", ["agent", "release", "mode", "turn_type", "outcome"], registry=r
        )
        self.failures = Counter(
            "aem_turn_failures",
            "Failed turns by sub-metric, reason and attribution",
            ["agent", "release", "mode", "turn_type", "sub_metric", "reason", "attribution"],
            registry=r,
        )
        self.chain_turns = Counter(
            "aem_chain_turns",
            "Action turns by chain length",
            ["agent", "release", "chain_length", "outcome"],
            registry=r,
        )
        self.dialogs = Counter("aem_dialogs", "Finished dialogs", ["agent", "release", "mode", "outcome"], registry=r)
        self.turn_score = Histogram(
            "aem_turn_score",
            "Continuous turn score",
            ["agent", "release", "turn_type"],
            buckets=SCORE_BUCKETS,
            registry=r,
        )
        self.release_first_seen = Gauge(
            "aem_release_first_seen_timestamp_seconds",
            "When this monitor first saw a release (event time)",
            ["agent", "release"],
            registry=r,
        )
        self.unscored = Counter(
            "aem_turns_unscored",
            "Turns left unscored (success null), by reason: never counted as passes",
            ["reason"],
            registry=r,
        )
        # every reason exists from the start, so an alert on its increase sees the first one
        self._unscored = {reason: self.unscored.labels(reason) for reason in UNSCORED_REASONS}  # never removed
        self.root_causes = Counter(
            "aem_root_causes",
            "Root-cause failed turns by reason and offending field (bounded: extra fields count as other)",
            ["agent", "release", "reason", "field"],
            registry=r,
        )
        self._root_cause_fields: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.label_overflow = Counter(
            "aem_label_overflow",
            'Events whose (agent, release) pair was beyond the label cap, counted under release="other"',
            registry=r,
        )
        self.labels = labels if labels is not None else LabelGuard()
        self.labels.on_overflow = self.label_overflow.inc
        self._release_seen: dict[tuple[str, str], float] = {}
        self._children: dict[tuple[int, tuple[str, ...]], object] = {}
        self._turn_series: dict[tuple[str, str, str, str, bool], tuple[Any, Any]] = {}  # see `_series`
        # every metric labelled by (agent, release): a release's series expire together
        self._by_release: tuple[Counter | Histogram | Gauge, ...] = (
            self.turns,
            self.failures,
            self.chain_turns,
            self.dialogs,
            self.turn_score,
            self.release_first_seen,
            self.root_causes,
        )

    # -- recording -----------------------------------------------------------------------------

    def _labels(self, metric: Counter | Histogram | Gauge, agent: str, release: str, *values: str):
        """The labelled child, cached (this runs several times per turn), and remembered per release."""
        agent, release = self.labels.admit(agent, release, count=False)
        labels = (agent, release, *values)
        child = self._children.get((id(metric), labels))
        if child is None:
            child = metric.labels(*labels)
            self._children[(id(metric), labels)] = child
        return child

    def _series(self, agent: str, release: str, mode: str, turn_type: str, success: bool) -> tuple[Any, Any]:
        """The `aem_turns` and `aem_turn_score` children of one kind of turn, looked up once per turn
        (agent and release already admitted)."""
        key = (agent, release, mode, turn_type, success)
        series = self._turn_series.get(key)
        if series is None:
            outcome = "pass" if success else "fail"
            series = (
                self._labels(self.turns, agent, release, mode, turn_type, outcome),
                self._labels(self.turn_score, agent, release, turn_type),
            )
            self._turn_series[key] = series
        return series

    def see_release(self, agent: str, release: str, received: float) -> None:
        """Note an event of (agent, release), received at ``received`` (events.py: clamped)."""
        key = self.labels.admit(agent, release)
        if key not in self._release_seen and not self.labels.is_overflow(key):  # "other" is no release
            self.release_first_seen.labels(*key).set(received)
        self._release_seen[key] = self.clock()

    def record_turn(
        self, verdict: TurnVerdict, agent: str, release: str, mode: str, conversation_id: str | None = None
    ) -> None:
        """Count a turn; a failing one becomes the exemplar {conversation_id, turn_no} of its series."""
        agent, release = self.labels.admit(agent, release, count=False)
        success = verdict.success
        if success is None:
            reason = verdict.failure_reason or FailureReason.UNSCORED
            child = self._unscored.get(reason)
            (child if child is not None else self.unscored.labels(reason)).inc()
            return
        turn_type = verdict.turn_type
        turns, score = self._series(agent, release, mode, turn_type, success)
        exemplar = None if success else failing_turn_exemplar(conversation_id, verdict.turn_no)
        turns.inc(exemplar=exemplar)
        if not success:
            cause, attribution = verdict.failure_reason or "none", verdict.attribution or "root_cause"
            labels = (mode, turn_type, verdict.sub_metric or "none", cause, attribution)
            self._labels(self.failures, agent, release, *labels).inc(exemplar=exemplar)
            if attribution == "root_cause":  # as reason:field; past the per-release bound new fields count as other
                seen, field = self._root_cause_fields[(agent, release)], verdict.field or "none"
                if field not in seen:
                    field = "other" if len(seen) >= ROOT_CAUSE_FIELDS_PER_RELEASE else field
                    seen.add(field)
                self._labels(self.root_causes, agent, release, cause, field).inc(exemplar=exemplar)
        if verdict.chain_length is not None:
            self._labels(self.chain_turns, agent, release, verdict.chain_length, "pass" if success else "fail").inc()
        if verdict.score is not None:
            score.observe(verdict.score, exemplar=exemplar)

    def record_chain(self, agent: str, release: str, bucket: str, outcomes: Sequence[bool | None]) -> None:
        """Action turns whose chain bucket became known (their pass/fail was counted when scored)."""
        passed = sum(1 for success in outcomes if success)
        failed = sum(1 for success in outcomes if success is False)
        if passed:
            self._labels(self.chain_turns, agent, release, bucket, "pass").inc(passed)
        if failed:
            self._labels(self.chain_turns, agent, release, bucket, "fail").inc(failed)

    def record_dialog(self, result: DialogResult) -> None:
        release = result.release or "unknown"
        outcome = "unscored" if result.test_pass is None else "pass" if result.test_pass else "fail"
        self._labels(self.dialogs, result.agent, release, result.mode, outcome).inc()

    def expire_releases(self) -> list[tuple[str, str]]:
        """Drop every label set of releases not seen for `release_ttl_seconds`."""
        cutoff = self.clock() - self.release_ttl_seconds
        gone = [key for key, seen in self._release_seen.items() if seen < cutoff]
        for agent, release in gone:
            for metric in self._by_release:
                metric.remove_by_labels({"agent": agent, "release": release})
            del self._release_seen[(agent, release)]
            self._root_cause_fields.pop((agent, release), None)
            self.labels.forget(agent, release)
        if gone:
            self._children.clear()  # cached children of the removed series must not be reused
            self._turn_series.clear()
        return gone
