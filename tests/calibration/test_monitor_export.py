"""What `aem run` does with a calibration: metrics of the agreement and its id, low-confidence counts, the
calibration id on every verdict record."""

from __future__ import annotations

import json

from prometheus_client import CollectorRegistry

from monitor.calibration.overlay import AgreementFigure, Calibration
from monitor.models.verdict import TurnVerdict
from monitor.stream.calibration import CalibrationMetrics, ConfidenceSink
from monitor.stream.emissions import Emission
from monitor.stream.sinks import VerdictTopicSink

CALIBRATION = Calibration(
    id="cal-20261202-abc",
    created="2026-12-02T04:00:00Z",
    labels=150,
    agreement=[AgreementFigure(turn_type="action", kind="kappa", value=0.8, low=0.7, high=0.88, labels=75)],
    low_confidence_share=0.12,
)


def emission(**verdict) -> Emission:
    return Emission("turn", "c-1", "office", "v1", "reference", verdict=TurnVerdict.model_validate(verdict))


def test_agreement_id_and_low_confidence_counts():
    registry = CollectorRegistry()
    sink = ConfidenceSink(CalibrationMetrics(registry, CALIBRATION), {"scoring": {"threshold": 0.36}})
    fail = {"success": False, "failure_reason": "inconsistent_parameter_values", "attribution": "root_cause"}
    for verdict in (
        {"turn_no": 1, "turn": "Tool", "success": True, "score": 0.38},  # 0.02 above the cut: low confidence
        {"turn_no": 2, "turn": "Tool", **fail, "score": 0.33},  # 0.03 below
        {"turn_no": 3, "turn": "Tool", "success": True, "score": 0.6},
        {"turn_no": 4, "turn": "Agent", "success": True, "score": 1.0},  # exact: no cut decided
        {"turn_no": 5, "turn": "Tool", "success": None, "failure_reason": "unscored"},  # not scored: not counted
    ):
        sink.add(emission(**verdict))
    value = registry.get_sample_value
    assert value("aem_low_confidence_turns_total", {"turn_type": "action"}) == 2
    assert value("aem_confidence_checked_turns_total", {"turn_type": "action"}) == 3
    assert value("aem_confidence_checked_turns_total", {"turn_type": "response"}) == 1
    assert value("aem_calibration_agreement", {"turn_type": "action", "kind": "kappa"}) == 0.8
    assert value("aem_calibration_agreement_low", {"turn_type": "action", "kind": "kappa"}) == 0.7
    assert value("aem_calibration_agreement_high", {"turn_type": "action", "kind": "kappa"}) == 0.88
    assert value("aem_calibration_info", {"id": CALIBRATION.id, "created": CALIBRATION.created}) == 1
    assert value("aem_calibration_low_confidence_share") == 0.12


def test_without_a_calibration_only_the_counts_and_the_loaded_flag_are_exported():
    """`aem_calibration_loaded` 0 lets the dashboard say "no calibration loaded"; 1 with one."""
    registry = CollectorRegistry()
    CalibrationMetrics(registry, None)
    names = {m.name for m in registry.collect()}
    assert names == {"aem_low_confidence_turns", "aem_confidence_checked_turns", "aem_calibration_loaded"}
    assert registry.get_sample_value("aem_calibration_loaded") == 0
    calibrated = CollectorRegistry()
    CalibrationMetrics(calibrated, CALIBRATION)
    assert calibrated.get_sample_value("aem_calibration_loaded") == 1


class Producer:
    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def send(self, topic: str, **record) -> None:
        self.sent.append(record["value"])

    def flush(self, timeout: float | None = None) -> None:
        return None


def test_every_verdict_record_carries_the_calibration_id():
    e = emission(turn_no=1, turn="Tool", success=True, score=0.9)
    plain, calibrated = Producer(), Producer()
    VerdictTopicSink(plain, "v").add(e)
    VerdictTopicSink(calibrated, "v", calibration_id="cal-1").add(e)
    record = json.loads(plain.sent[0])
    assert "calibration_id" not in record and record["turn_no"] == 1 and record["success"] is True
    assert json.loads(calibrated.sent[0]) == {**record, "calibration_id": "cal-1"}
