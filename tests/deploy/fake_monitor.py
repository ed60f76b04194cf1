"""A stand-in for `aem run`'s /metrics: the docs/metrics.md metrics (plus evictions, DLQ and the
LLM-judge metrics) on a fresh CollectorRegistry, served over HTTP on 127.0.0.1 and fed by a
background thread with realistic, steadily growing traffic for two agents and three releases.

Replace with the real monitor once `aem run` can be started in tests; the dashboard and rule
checks are written against Prometheus, not against this module.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

from monitor.calibration.overlay import AgreementFigure, Calibration
from monitor.stream.calibration import CalibrationMetrics

# a calibration of 200 labels, as `aem calibrate --write` records it
CALIBRATION = Calibration(
    id="cal-20261201-0a1b2c3d4e",
    created="2026-12-01T09:00:00Z",
    labels=200,
    agreement=[
        AgreementFigure(turn_type=t, kind=k, value=v, low=v - 0.05, high=min(1.0, v + 0.04), labels=n)
        for t, n in (("all", 200), ("action", 110), ("response", 90))
        for k, v in (("balanced_accuracy", 0.91), ("kappa", 0.8))
    ],
    low_confidence_share=0.1,
)

# agent -> [(release, first_seen_timestamp, turn pass probability)], oldest first
RELEASES = {
    "shop": [("v1.4.0", 1_700_000_000.0, 0.92), ("v1.5.0", 1_700_100_000.0, 0.81)],
    "faq": [("r7", 1_700_050_000.0, 0.95)],
}
REASONS = {
    "structural": ["tool_mismatch", "action_mismatch", "unexpected_turn"],
    "completeness": ["missing_parameters", "extra_parameters", "incomplete_response", "missing_turn"],
    "truthfulness": ["inconsistent_parameter_values", "inconsistent_response"],
}
ACTION_REASONS = {
    "tool_mismatch",
    "action_mismatch",
    "missing_parameters",
    "extra_parameters",
    "inconsistent_parameter_values",
    "unexpected_turn",
    "missing_turn",
}
SCORE_BUCKETS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)


@dataclass
class FakeMonitor:
    seed: int = 7
    tick_seconds: float = 0.1
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        r = self.registry
        self.rng = random.Random(self.seed)
        self.turns = Counter("aem_turns", "", ["agent", "release", "mode", "turn_type", "outcome"], registry=r)
        self.failures = Counter(
            "aem_turn_failures",
            "",
            ["agent", "release", "mode", "turn_type", "sub_metric", "reason", "attribution"],
            registry=r,
        )
        self.chain_turns = Counter("aem_chain_turns", "", ["agent", "release", "chain_length", "outcome"], registry=r)
        self.dialogs = Counter("aem_dialogs", "", ["agent", "release", "mode", "outcome"], registry=r)
        self.turn_score = Histogram(
            "aem_turn_score", "", ["agent", "release", "turn_type"], buckets=SCORE_BUCKETS, registry=r
        )
        self.first_seen = Gauge("aem_release_first_seen_timestamp_seconds", "", ["agent", "release"], registry=r)
        self.events = Counter("aem_events", "", ["outcome"], registry=r)
        self.lag = Gauge("aem_consumer_lag_messages", "", ["topic", "partition"], registry=r)
        self.latency = Histogram("aem_event_latency_seconds", "", buckets=LATENCY_BUCKETS, registry=r)
        self.open_dialogs = Gauge("aem_open_dialogs", "", registry=r)
        self.evictions = Counter("aem_evictions", "", registry=r)
        self.dlq = Counter("aem_dlq_messages", "", registry=r)
        self.dlq_reduced = Counter("aem_dlq_reduced", "", ["form"], registry=r)
        self.too_large = Counter("aem_turns_too_large", "", ["limit"], registry=r)
        self.unscored = Counter("aem_turns_unscored", "", ["reason"], registry=r)
        self.state_skipped = Counter("aem_state_records_skipped", "", ["reason"], registry=r)
        self.open_dialog_bytes = Gauge("aem_open_dialog_bytes", "", registry=r)
        self.label_overflow = Counter("aem_label_overflow", "", registry=r)
        self.judge_requests = Counter("aem_judge_requests", "", ["outcome"], registry=r)
        self.judge_latency = Histogram("aem_judge_latency_seconds", "", buckets=LATENCY_BUCKETS, registry=r)
        self.judge_configured = Gauge("aem_judge_configured", "", registry=r)
        self.judge_configured.set(1)
        self.root_causes = Counter("aem_root_causes", "", ["agent", "release", "reason", "field"], registry=r)
        self.calibration = CalibrationMetrics(r, CALIBRATION)  # the real exporter: nothing to drift
        for agent, releases in RELEASES.items():
            for release, seen, _ in releases:
                self.first_seen.labels(agent, release).set(seen)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._server = None
        self.port: int | None = None

    def turn(self, agent: str, release: str, p_pass: float) -> None:
        rng = self.rng
        mode = "reference" if rng.random() < 0.7 else "judge"
        turn_type = "action" if rng.random() < 0.6 else "response"
        ok = rng.random() < p_pass
        self.turns.labels(agent, release, mode, turn_type, "pass" if ok else "fail").inc()
        self.turn_score.labels(agent, release, turn_type).observe(
            rng.uniform(0.6, 1.0) if ok else rng.uniform(0.0, 0.5)
        )
        self.events.labels("scored").inc()
        if not ok:
            sub_metric = rng.choice(list(REASONS))
            reasons = [r for r in REASONS[sub_metric] if (r in ACTION_REASONS) == (turn_type == "action")] or REASONS[
                sub_metric
            ]
            reason = rng.choice(reasons)
            attribution = "cascading" if sub_metric == "truthfulness" and rng.random() < 0.5 else "root_cause"
            self.failures.labels(agent, release, mode, turn_type, sub_metric, reason, attribution).inc()
            if attribution == "root_cause":
                self.root_causes.labels(agent, release, reason, rng.choice(["metric", "region", "-"])).inc()
        if turn_type == "action":
            self.chain_turns.labels(agent, release, rng.choice(["1", "2", "3+"]), "pass" if ok else "fail").inc()

    def tick(self) -> None:
        rng = self.rng
        for agent, releases in RELEASES.items():
            for release, _, p_pass in releases:
                for _ in range(rng.randint(5, 15)):
                    self.turn(agent, release, p_pass)
                mode = rng.choice(["reference", "judge"])
                self.dialogs.labels(agent, release, mode, "pass" if rng.random() < p_pass - 0.2 else "fail").inc()
        for outcome, n in (("unscored", 1), ("invalid", rng.randint(0, 2)), ("duplicate", 1), ("late", 1)):
            self.events.labels(outcome).inc(n)
        self.unscored.labels("unscored").inc()
        self.unscored.labels("unknown_reference").inc(0)
        self.dlq.inc(rng.randint(0, 2))
        for partition in range(3):
            self.lag.labels("aem.traces", str(partition)).set(rng.randint(0, 40))
        for _ in range(10):
            self.latency.observe(rng.expovariate(1 / 0.2))
        self.open_dialogs.set(rng.randint(20, 60))
        self.evictions.inc(rng.randint(0, 1))
        self.judge_requests.labels("ok").inc(rng.randint(1, 3))
        self.judge_requests.labels(rng.choice(["error", "timeout"])).inc()
        self.judge_latency.observe(rng.uniform(0.2, 2.0))
        for turn_type in ("action", "response"):
            self.calibration.checked.labels(turn_type).inc(10)
            self.calibration.low_confidence.labels(turn_type).inc(rng.randint(0, 2))

    def _run(self) -> None:
        while not self._stop.wait(self.tick_seconds):
            self.tick()

    def start(self) -> FakeMonitor:
        self.tick()
        self._server, _ = start_http_server(0, addr="127.0.0.1", registry=self.registry)
        self.port = self._server.server_port
        self._thread = threading.Thread(target=self._run, name="fake-monitor", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> FakeMonitor:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
