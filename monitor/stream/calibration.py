"""What the monitor exports about its calibration (docs/metrics.md): the agreement with people's labels the
calibration measured, its id and date, and how many verdicts sit close to a cut, against the share the
calibration saw (the drift alert compares the two)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Info

from monitor.calibration.cuts import LOW_CONFIDENCE_MARGIN, low_confidence
from monitor.calibration.overlay import Calibration
from monitor.stream.emissions import Emission
from monitor.stream.sinks import Sink

TURN_TYPES = ("action", "response")


class CalibrationMetrics:
    def __init__(self, registry: CollectorRegistry, calibration: Calibration | None) -> None:
        r = registry
        self.low_confidence = Counter(
            "aem_low_confidence_turns",
            "Scored turns whose deciding score is within the margin of a cut",
            ["turn_type"],
            registry=r,
        )
        self.checked = Counter(
            "aem_confidence_checked_turns", "Scored turns checked for closeness to a cut", ["turn_type"], registry=r
        )
        for turn_type in TURN_TYPES:  # present from the start, so rates exist before the first near-cut verdict
            self.low_confidence.labels(turn_type)
            self.checked.labels(turn_type)
        loaded = Gauge("aem_calibration_loaded", "1 when a calibration is loaded, else 0", registry=r)
        loaded.set(0 if calibration is None else 1)  # the dashboard says "no calibration loaded" on 0
        if calibration is None:
            return
        labels = ["turn_type", "kind"]
        value = Gauge("aem_calibration_agreement", "Agreement with people's labels at calibration", labels, registry=r)
        low = Gauge("aem_calibration_agreement_low", "Lower bound of its 95 % bootstrap interval", labels, registry=r)
        high = Gauge("aem_calibration_agreement_high", "Upper bound of its 95 % bootstrap interval", labels, registry=r)
        labelled = Gauge(
            "aem_calibration_labels", "Labelled turns the agreement was measured on", ["turn_type"], registry=r
        )
        for figure in calibration.agreement:
            value.labels(figure.turn_type, figure.kind).set(figure.value)
            low.labels(figure.turn_type, figure.kind).set(figure.low)
            high.labels(figure.turn_type, figure.kind).set(figure.high)
            labelled.labels(figure.turn_type).set(figure.labels)
        Info("aem_calibration", "The calibration in use: its id and date", registry=r).info(
            {"id": calibration.id, "created": calibration.created}
        )
        if calibration.low_confidence_share is not None:
            Gauge(
                "aem_calibration_low_confidence_share",
                "Share of low-confidence verdicts on the calibrated traffic",
                registry=r,
            ).set(calibration.low_confidence_share)


@dataclass
class ConfidenceSink(Sink):
    """Counts every scored turn verdict and the low-confidence ones (deciding score within the margin of its cut)."""

    metrics: CalibrationMetrics
    cut_config: dict[str, Any]
    margin: float = LOW_CONFIDENCE_MARGIN
    _turns: dict[str, str] = field(default_factory=lambda: {"Tool": "action", "Agent": "response"})

    def add(self, emission: Emission) -> None:
        verdict = emission.verdict
        if verdict is None or verdict.success is None:
            return
        turn_type = self._turns.get(verdict.turn, "response")
        self.metrics.checked.labels(turn_type).inc()
        # the whole verdict: a cut may read any of its fields (StrEnum members compare equal to their strings)
        record = verdict.model_dump()
        if low_confidence(record, self.cut_config, self.margin):
            self.metrics.low_confidence.labels(turn_type).inc()
