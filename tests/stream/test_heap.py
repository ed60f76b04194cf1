"""`aem run` keeps the cyclic garbage collector off its set-up heap while it streams (`gc.freeze`, runner.py)."""

from __future__ import annotations

import gc

from prometheus_client import CollectorRegistry

from monitor.scoring import ScoringConfig
from monitor.stream.settings import MonitorSettings
from monitor.wiring import build_engine, build_monitor
from tests.stream.fakes import FakeConsumer, FakeProducer


def test_the_monitor_freezes_when_started_and_thaws_when_it_stops():
    gc.unfreeze()
    settings = MonitorSettings(state_topic="", metrics_port=0)
    monitor = build_monitor(
        settings,
        engine=build_engine(ScoringConfig(), embed=False),
        registry=CollectorRegistry(),
        consumer=FakeConsumer(),
        producer=FakeProducer(),
    )
    assert gc.get_freeze_count() == 0
    monitor.start()
    assert gc.get_freeze_count() > 0
    monitor._shutdown()
    assert gc.get_freeze_count() == 0
